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
// TACACS+ / RADIUS configuration and log exclusions.
const CommandSets = lazy(() => import('./pages/CommandSets').then((m) => ({ default: m.CommandSets })))
const TacacsProfiles = lazy(() => import('./pages/TacacsProfiles').then((m) => ({ default: m.TacacsProfiles })))
const RadiusProfiles = lazy(() => import('./pages/RadiusProfiles').then((m) => ({ default: m.RadiusProfiles })))
const LogExclusions = lazy(() => import('./pages/LogExclusions').then((m) => ({ default: m.LogExclusions })))
// Identity and administration (users, user groups, roles, the audit trail, settings).
const Users = lazy(() => import('./pages/Users').then((m) => ({ default: m.Users })))
const UserGroups = lazy(() => import('./pages/UserGroups').then((m) => ({ default: m.UserGroups })))
const Roles = lazy(() => import('./pages/Roles').then((m) => ({ default: m.Roles })))
const Audit = lazy(() => import('./pages/Audit').then((m) => ({ default: m.Audit })))
const Settings = lazy(() => import('./pages/Settings').then((m) => ({ default: m.Settings })))
// PKI: certificate authorities, certificates, templates (with the EST approval queue).
const PkiCas = lazy(() => import('./pages/PkiCas').then((m) => ({ default: m.PkiCas })))
const PkiCertificates = lazy(() => import('./pages/PkiCertificates').then((m) => ({ default: m.PkiCertificates })))
const PkiTemplates = lazy(() => import('./pages/PkiTemplates').then((m) => ({ default: m.PkiTemplates })))
// NAC (802.1X/MAB): endpoints, their groups, authorization profiles, the NAC policy.
const Endpoints = lazy(() => import('./pages/Endpoints').then((m) => ({ default: m.Endpoints })))
const EndpointGroups = lazy(() => import('./pages/EndpointGroups').then((m) => ({ default: m.EndpointGroups })))
const AuthProfiles = lazy(() => import('./pages/AuthProfiles').then((m) => ({ default: m.AuthProfiles })))
const NacPolicy = lazy(() => import('./pages/NacPolicy').then((m) => ({ default: m.NacPolicy })))
const NacSessions = lazy(() => import('./pages/NacSessions').then((m) => ({ default: m.NacSessions })))
const ProfilingRules = lazy(() => import('./pages/ProfilingRules').then((m) => ({ default: m.ProfilingRules })))
// The captive portal: portals (with the guest page's preview), guests, portal sessions, sponsor approvals.
const Portals = lazy(() => import('./pages/Portals').then((m) => ({ default: m.Portals })))
const Guests = lazy(() => import('./pages/Guests').then((m) => ({ default: m.Guests })))
const PortalSessions = lazy(() => import('./pages/PortalSessions').then((m) => ({ default: m.PortalSessions })))
const Approvals = lazy(() => import('./pages/Approvals').then((m) => ({ default: m.Approvals })))
// Configuration tracking (ncm): collectors, the devices' configuration history, compliance, setup.
const NcmCollectors = lazy(() => import('./pages/NcmCollectors').then((m) => ({ default: m.NcmCollectors })))
const NcmDevices = lazy(() => import('./pages/NcmDevices').then((m) => ({ default: m.NcmDevices })))
const NcmDevice = lazy(() => import('./pages/NcmDevice').then((m) => ({ default: m.NcmDevice })))
const NcmCompliance = lazy(() => import('./pages/NcmCompliance').then((m) => ({ default: m.NcmCompliance })))
const NcmSetup = lazy(() => import('./pages/NcmSetup').then((m) => ({ default: m.NcmSetup })))
// The pages mailed links open, signed out: the second-factor setup and the password reset.
const MfaSetup = lazy(() => import('./pages/MfaSetup').then((m) => ({ default: m.MfaSetup })))
const ResetPassword = lazy(() => import('./pages/ResetPassword').then((m) => ({ default: m.ResetPassword })))

function page(path: string): ReactNode {
  if (path === '/' || path === '') return <Dashboard />
  if (path === '/devices') return <Devices />
  if (path === '/account') return <Account />
  if (path === '/device-groups') return <DeviceGroups />
  if (path === '/deploys') return <Deploys />
  if (path === '/policy') return <Policy />
  if (path === '/logs') return <Logs />
  if (path === '/tacacs/command-sets') return <CommandSets />
  if (path === '/tacacs/profiles') return <TacacsProfiles />
  if (path === '/radius/profiles') return <RadiusProfiles />
  if (path === '/log-exclusions') return <LogExclusions />
  if (path === '/users') return <Users />
  if (path === '/user-groups') return <UserGroups />
  if (path === '/roles') return <Roles />
  if (path === '/audit') return <Audit />
  if (path === '/settings') return <Settings />
  if (path === '/pki/cas') return <PkiCas />
  if (path === '/pki/certificates') return <PkiCertificates />
  if (path === '/pki/templates') return <PkiTemplates />
  if (path === '/nac/endpoints') return <Endpoints />
  if (path === '/nac/endpoint-groups') return <EndpointGroups />
  if (path === '/nac/profiles') return <AuthProfiles />
  if (path === '/nac/policy') return <NacPolicy />
  if (path === '/nac/sessions') return <NacSessions />
  if (path === '/nac/profiling-rules') return <ProfilingRules />
  // Not under /portal: that path is the guest pages', served by the API.
  if (path === '/captive-portal/portals') return <Portals />
  if (path === '/captive-portal/guests') return <Guests />
  if (path === '/captive-portal/sessions') return <PortalSessions />
  if (path === '/captive-portal/approvals') return <Approvals />
  if (path === '/ncm/collectors') return <NcmCollectors />
  if (path === '/ncm/devices') return <NcmDevices />
  if (path === '/ncm/compliance') return <NcmCompliance />
  if (path === '/ncm/setup') return <NcmSetup />
  const ncmDevice = /^\/ncm\/devices\/([0-9a-f-]{36})$/.exec(path)
  if (ncmDevice) return <NcmDevice key={ncmDevice[1]} id={ncmDevice[1]} />
  const ext = /^\/x\/([a-z][a-z0-9_-]*)\/(.+)$/.exec(path)
  if (ext) return <ExtensionPage plugin={ext[1]} path={ext[2]} />
  return null
}

export function App() {
  const auth = useAuth()
  const { t } = useI18n()
  const path = usePath()
  // Opened from a mail, with a token rather than a session: before the sign-in.
  const mailed = path === '/mfa/setup' ? <MfaSetup /> : path === '/reset-password' ? <ResetPassword /> : null
  if (mailed) return <Suspense fallback={<Loader aria-label={t.common.loading} />}>{mailed}</Suspense>
  if (auth.signedIn === false) return <SignIn />
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
