/**
 * The frame of every signed-in page: the menu (a drawer below 992 px (Mantine's md), so a
 * tablet in portrait keeps the width for tables), the header with the
 * language switch and sign-out, and the footer with the platform version and edition (Community, Pro).
 */
import { AppShell, Burger, Button, Group, NavLink, Text, VisuallyHidden } from '@mantine/core'
import { useDisclosure, useMediaQuery } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { readiness } from '../api/client'
import { useAuth, usePluginRuns } from '../auth'
import { useExtensions } from '../extensions'
import { useI18n } from '../i18n'
import { Link, usePath } from '../router'
import { LanguageSwitch } from './LanguageSwitch'

export function Layout({ children }: { children: ReactNode }) {
  const { t, language } = useI18n()
  const auth = useAuth()
  const path = usePath()
  const [opened, { toggle, close }] = useDisclosure()
  // Below md the closed menu is only moved off screen: inert keeps Tab and screen readers out of it.
  const narrow = useMediaQuery('(max-width: 62em)')
  const ready = useQuery({ queryKey: ['ready'], queryFn: readiness, staleTime: 60_000 })
  const extensions = useExtensions()
  const runs = usePluginRuns()
  const item = (href: string, label: string, show = true) =>
    show && <NavLink key={href} component={Link} href={href} label={label} active={path === href || path.startsWith(href + '/')} onClick={close} />
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'md', collapsed: { mobile: !opened } }} footer={{ height: 36 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <a href="#main" className="skip-link">{t.app.skip}</a>
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="sm" aria-label={t.app.menu} />
            <Text fw={700} size="lg">{t.app.title}</Text>
          </Group>
          <Group wrap="nowrap" gap="sm">
            <LanguageSwitch />
            <Text size="sm" visibleFrom="sm" component={Link} href="/account" data-testid="whoami" c="inherit" td="none">{auth.me?.username}</Text>
            <Button variant="default" size="xs" onClick={() => void auth.signOut()}>{t.app.signOut}</Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t.app.menu} inert={narrow && !opened} style={{ overflowY: 'auto' }}>
        {item('/', t.nav.dashboard)}
        {item('/devices', t.nav.devices, auth.can('inventory.read') && runs('inventory'))}
        {item('/device-groups', t.nav.deviceGroups, auth.can('inventory.read') && runs('inventory'))}
        {item('/policy', t.nav.policy, auth.can('aaa-policy.read') && runs('aaa-policy'))}
        {item('/logs', t.nav.logs, auth.can('aaa-logs.read') && runs('aaa-logs'))}
        {item('/deploys', t.nav.deploys, auth.can('deploy.read'))}
        {item('/tacacs/command-sets', t.config.nav.commandSets, auth.can('tacacs.read') && runs('tacacs'))}
        {item('/tacacs/profiles', t.config.nav.tacacsProfiles, auth.can('tacacs.read') && runs('tacacs'))}
        {item('/radius/profiles', t.config.nav.radiusProfiles, auth.can('radius.read') && runs('radius'))}
        {item('/log-exclusions', t.config.nav.exclusions, auth.can('aaa-logs.exclusions.read') && runs('aaa-logs'))}
        {item('/users', t.nav.users, auth.can('users.read'))}
        {item('/user-groups', t.nav.userGroups, auth.can('groups.read'))}
        {item('/roles', t.nav.roles, auth.can('roles.read'))}
        {item('/audit', t.nav.audit, auth.can('audit.read'))}
        {item('/settings', t.nav.settings, auth.can('settings.read'))}
        {item('/pki/cas', t.nav.pkiCas, auth.can('pki.view') && runs('pki'))}
        {item('/pki/certificates', t.nav.pkiCertificates, auth.can('pki.view') && runs('pki'))}
        {item('/pki/templates', t.nav.pkiTemplates, auth.can('pki.view') && runs('pki'))}
        {item('/nac/endpoints', t.nav.nacEndpoints, auth.can('nac.read') && runs('nac'))}
        {item('/nac/endpoint-groups', t.nav.nacGroups, auth.can('nac.read') && runs('nac'))}
        {item('/nac/profiles', t.nav.nacProfiles, auth.can('nac.policy.read') && runs('nac'))}
        {item('/nac/policy', t.nav.nacPolicy, auth.can('nac.policy.read') && runs('nac'))}
        {item('/nac/sessions', t.nav.nacSessions, auth.can('nac.sessions.read') && runs('nac'))}
        {item('/nac/profiling-rules', t.nav.nacProfiling, auth.can('nac.read') && runs('nac'))}
        {item('/captive-portal/portals', t.portal.nav.portals, auth.can('portal.read') && runs('portal'))}
        {item('/captive-portal/guests', t.portal.nav.guests, auth.can('portal.read') && runs('portal'))}
        {item('/captive-portal/sessions', t.portal.nav.sessions, auth.can('portal.read') && runs('portal'))}
        {item('/captive-portal/approvals', t.portal.nav.approvals, auth.can('portal.read') && runs('portal'))}
        {item('/ncm/devices', t.ncm.nav.devices, auth.can('ncm.read') && runs('ncm'))}
        {item('/ncm/compliance', t.ncm.nav.compliance, auth.can('ncm.read') && runs('ncm'))}
        {item('/ncm/collectors', t.ncm.nav.collectors, auth.can('ncm.read') && runs('ncm'))}
        {item('/ncm/setup', t.ncm.nav.setup, auth.can('ncm.read') && runs('ncm'))}
        {extensions.flatMap((e) => e.pages.filter((p) => !p.permission || auth.can(p.permission)).map((p) => item(`/x/${e.plugin}/${p.path}`, (language === 'ru' && p.title.ru) || p.title.en)))}
        {item('/account', t.nav.account)}
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>{children}</AppShell.Main>
      <AppShell.Footer px="md">
        <Group h="100%" justify="space-between">
          {/* The plugins and their versions on hover: the edition is a list of plugins (system info shows them too). */}
          <Text size="xs" c="dimmed" data-testid="footer-version" title={ready.data?.plugins.map((p) => `${p.id} ${p.version}`).join(', ')}>
            {ready.data ? t.app.version(ready.data.version, ready.data.edition.name) : <VisuallyHidden>{t.common.loading}</VisuallyHidden>}
          </Text>
          {auth.me?.docs_enabled && <Text size="xs" c="dimmed" component="a" href="/docs" visibleFrom="sm">API /api/v1</Text>}
        </Group>
      </AppShell.Footer>
    </AppShell>
  )
}
