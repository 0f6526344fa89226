import '@mantine/core/styles.css'
import './app.css'
import { createTheme, MantineProvider, TableScrollContainer } from '@mantine/core'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api/client'
import { App } from './App'
import { AuthProvider } from './auth'
import { ConfirmProvider } from './components/Confirm'
import { DialogCloseLabel } from './components/DialogCloseLabel'
import { I18nProvider } from './i18n'
import { contrastResolver } from './theme-contrast'

const queryClient = new QueryClient({
  defaultOptions: {
    // A refusal (4xx) will not change by asking again; a network error or a 503 may.
    queries: { retry: (n, e) => n < 2 && !(e instanceof ApiError && e.status >= 400 && e.status < 500), refetchOnWindowFocus: false },
  },
})

// Shade 8 and a darker "dimmed": white on the default blue (shade 6) and the default dimmed grey on white
// fall short of WCAG AA's 4.5:1 for normal text (3.5:1 and 3.3:1); these meet it, and so do the other
// colours' badges (theme-contrast.ts).
// A table wider than the screen scrolls in its container: focusable, so the keyboard can scroll it too
// (WCAG 2.1.1; axe-core's scrollable-region-focusable at 768 px).
const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 8,
  defaultRadius: 'sm',
  components: { TableScrollContainer: TableScrollContainer.extend({ defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } }) },
})
const cssVariablesResolver = contrastResolver(8, (th) => ({ '--mantine-color-dimmed': th.colors.gray[7] }))

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <QueryClientProvider client={queryClient}>
        <I18nProvider>
          <DialogCloseLabel>
            <ConfirmProvider>
              <AuthProvider>
                <App />
              </AuthProvider>
            </ConfirmProvider>
          </DialogCloseLabel>
        </I18nProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
)
