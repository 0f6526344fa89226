import '@mantine/core/styles.css'
import './app.css'
import { createTheme, MantineProvider } from '@mantine/core'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api/client'
import { App } from './App'
import { AuthProvider } from './auth'
import { I18nProvider } from './i18n'

const queryClient = new QueryClient({
  defaultOptions: {
    // A refusal (4xx) will not change by asking again; a network error or a 503 may.
    queries: { retry: (n, e) => n < 2 && !(e instanceof ApiError && e.status >= 400 && e.status < 500), refetchOnWindowFocus: false },
  },
})

const theme = createTheme({ primaryColor: 'blue', defaultRadius: 'sm' })

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <QueryClientProvider client={queryClient}>
        <I18nProvider>
          <AuthProvider>
            <App />
          </AuthProvider>
        </I18nProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
)
