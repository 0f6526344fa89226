/**
 * What the menu offers this user: the screens grouped into sections, each screen only when the
 * user's permissions allow it and its plugin runs (a section with none is left out). The quick
 * search (QuickSearch.tsx) offers the same entries as its screens.
 */
import { useAuth, usePluginRuns } from '../auth'
import { useExtensions } from '../extensions'
import { useI18n } from '../i18n'
import type { SectionId } from './menu-ids'

export interface MenuEntry {
  href: string
  label: string
}

export interface MenuSection {
  id: SectionId
  label: string
  entries: MenuEntry[]
}

export interface Menu {
  /** Above the sections (the dashboard). */
  top: MenuEntry[]
  sections: MenuSection[]
  /** Below them (the user's own account). */
  bottom: MenuEntry[]
}

/** Whether `href` is the page at `path` or one under it (/ncm/devices for /ncm/devices/<id>). */
export function isCurrent(path: string, href: string): boolean {
  return path === href || (href !== '/' && path.startsWith(href + '/'))
}

export function useMenu(): Menu {
  const { t, language } = useI18n()
  const auth = useAuth()
  const runs = usePluginRuns()
  const extensions = useExtensions()
  const s = t.menu.sections
  // [href, label, shown]: the order within a section is the order of the work (the list, then its groups, then its policy).
  type Row = [string, string, boolean]
  const inv = auth.can('inventory.read') && runs('inventory')
  const tac = auth.can('tacacs.read') && runs('tacacs')
  const nac = runs('nac')
  const portal = auth.can('portal.read') && runs('portal')
  const pki = auth.can('pki.view') && runs('pki')
  const ncm = auth.can('ncm.read') && runs('ncm')
  const logs = runs('aaa-logs')
  const groups: [SectionId, string, Row[]][] = [
    ['devices', s.devices, [['/devices', t.nav.devices, inv], ['/device-groups', t.nav.deviceGroups, inv]]],
    ['identities', s.identities, [['/users', t.nav.users, auth.can('users.read')], ['/user-groups', t.nav.userGroups, auth.can('groups.read')], ['/roles', t.nav.roles, auth.can('roles.read')]]],
    ['deviceAdmin', s.deviceAdmin, [
      ['/policy', t.nav.policy, auth.can('aaa-policy.read') && runs('aaa-policy')],
      ['/tacacs/command-sets', t.config.nav.commandSets, tac],
      ['/tacacs/profiles', t.config.nav.tacacsProfiles, tac],
      ['/radius/profiles', t.config.nav.radiusProfiles, auth.can('radius.read') && runs('radius')],
    ]],
    ['networkAccess', s.networkAccess, [
      ['/nac/endpoints', t.nav.nacEndpoints, auth.can('nac.read') && nac],
      ['/nac/endpoint-groups', t.nav.nacGroups, auth.can('nac.read') && nac],
      ['/nac/profiles', t.nav.nacProfiles, auth.can('nac.policy.read') && nac],
      ['/nac/policy', t.nav.nacPolicy, auth.can('nac.policy.read') && nac],
      ['/nac/sessions', t.nav.nacSessions, auth.can('nac.sessions.read') && nac],
      ['/nac/profiling-rules', t.nav.nacProfiling, auth.can('nac.read') && nac],
    ]],
    ['guestAccess', s.guestAccess, [
      ['/captive-portal/portals', t.portal.nav.portals, portal],
      ['/captive-portal/guests', t.portal.nav.guests, portal],
      ['/captive-portal/sessions', t.portal.nav.sessions, portal],
      ['/captive-portal/approvals', t.portal.nav.approvals, portal],
    ]],
    ['certificates', s.certificates, [['/pki/cas', t.nav.pkiCas, pki], ['/pki/certificates', t.nav.pkiCertificates, pki], ['/pki/templates', t.nav.pkiTemplates, pki]]],
    ['configTracking', s.configTracking, [
      ['/ncm/devices', t.ncm.nav.devices, ncm],
      ['/ncm/compliance', t.ncm.nav.compliance, ncm],
      ['/ncm/collectors', t.ncm.nav.collectors, ncm],
      ['/ncm/setup', t.ncm.nav.setup, ncm],
    ]],
    ['logs', s.logs, [
      ['/logs', t.nav.logs, auth.can('aaa-logs.read') && logs],
      ['/log-exclusions', t.config.nav.exclusions, auth.can('aaa-logs.exclusions.read') && logs],
      ['/audit', t.nav.audit, auth.can('audit.read')],
    ]],
    ['administration', s.administration, [['/deploys', t.nav.deploys, auth.can('deploy.read')], ['/settings', t.nav.settings, auth.can('settings.read')]]],
    ['plugins', s.plugins, extensions.flatMap((e) =>
      e.pages.filter((p) => !p.permission || auth.can(p.permission)).map((p): Row => [`/x/${e.plugin}/${p.path}`, (language === 'ru' && p.title.ru) || p.title.en, true]),
    )],
  ]
  const sections = groups
    .map(([id, label, rows]) => ({ id, label, entries: rows.filter((r) => r[2]).map(([href, l]) => ({ href, label: l })) }))
    .filter((g) => g.entries.length > 0)
  return { top: [{ href: '/', label: t.nav.dashboard }], sections, bottom: [{ href: '/account', label: t.nav.account }] }
}
