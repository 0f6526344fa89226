/**
 * The app: signed out, the sign-in; signed in, the frame and the page the
 * path names. A screen is one file under pages/ and one line here.
 */
import { Center, Loader, Text } from '@mantine/core'
import { lazy, Suspense, type ReactNode } from 'react'
import { useAuth } from './auth'
import { Layout } from './components/Layout'
import { ExtensionPage } from './extensions'
import { useI18n } from './i18n'
import { Account } from './pages/Account'
import { Dashboard } from './pages/Dashboard'
import { DeviceGroups } from './pages/DeviceGroups'
import { Devices } from './pages/Devices'
import { SignIn } from './pages/SignIn'
import { usePath } from './router'

// The screens of the second slice load on first visit: the first screen's bundle stays small.
const Deploys = lazy(() => import('./pages/Deploys').then((m) => ({ default: m.Deploys })))
const Logs = lazy(() => import('./pages/Logs').then((m) => ({ default: m.Logs })))
const Policy = lazy(() => import('./pages/Policy').then((m) => ({ default: m.Policy })))
// NAC (802.1X/MAB): endpoints, their groups, authorization profiles, the NAC policy.
const Endpoints = lazy(() => import('./pages/Endpoints').then((m) => ({ default: m.Endpoints })))
const EndpointGroups = lazy(() => import('./pages/EndpointGroups').then((m) => ({ default: m.EndpointGroups })))
const AuthProfiles = lazy(() => import('./pages/AuthProfiles').then((m) => ({ default: m.AuthProfiles })))
const NacPolicy = lazy(() => import('./pages/NacPolicy').then((m) => ({ default: m.NacPolicy })))
const NacSessions = lazy(() => import('./pages/NacSessions').then((m) => ({ default: m.NacSessions })))
const ProfilingRules = lazy(() => import('./pages/ProfilingRules').then((m) => ({ default: m.ProfilingRules })))

function page(path: string): ReactNode {
  if (path === '/' || path === '') return <Dashboard />
  if (path === '/devices') return <Devices />
  if (path === '/account') return <Account />
  if (path === '/device-groups') return <DeviceGroups />
  if (path === '/deploys') return <Deploys />
  if (path === '/policy') return <Policy />
  if (path === '/logs') return <Logs />
  if (path === '/nac/endpoints') return <Endpoints />
  if (path === '/nac/endpoint-groups') return <EndpointGroups />
  if (path === '/nac/profiles') return <AuthProfiles />
  if (path === '/nac/policy') return <NacPolicy />
  if (path === '/nac/sessions') return <NacSessions />
  if (path === '/nac/profiling-rules') return <ProfilingRules />
  const ext = /^\/x\/([a-z][a-z0-9_-]*)\/(.+)$/.exec(path)
  if (ext) return <ExtensionPage plugin={ext[1]} path={ext[2]} />
  return null
}

export function App() {
  const auth = useAuth()
  const { t } = useI18n()
  const path = usePath()
  if (!auth.token) return <SignIn />
  if (!auth.me) {
    return (
      <Center mih="100vh">
        <Loader aria-label={t.common.loading} />
      </Center>
    )
  }
  return (
    <Layout>
      <Suspense fallback={<Loader aria-label={t.common.loading} />}>{page(path.replace(/\/+$/, '') || '/') ?? <Text>{t.common.notFound}</Text>}</Suspense>
    </Layout>
  )
}
