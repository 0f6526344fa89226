/**
 * What the quick search looks for among the records: one source a kind, each asking its list route
 * (with the route's own `search`, first page, a few rows) only when the user holds the route's read
 * permission and the plugin runs, so a user who may not read a kind sends no request for it and sees
 * no hit of it. A hit opens the record itself where the screen can (`?open=<id>`: the screen opens
 * its dialog or drawer, see open-record.ts), or its list filtered to it.
 */
import { api } from '../api/client'
import type { Messages } from '../i18n/en'

export interface Hit {
  href: string
  label: string
  /** The section of a screen, the kind of a record. */
  detail: string
  kind: 'screen' | 'record'
}

export interface Source {
  key: string
  /** The user may read it and its plugin runs. */
  allowed: boolean
  find(q: string): Promise<Hit[]>
}

export const RECORDS_PER_KIND = 5

const page = (q: string) => ({ page: 1, per_page: RECORDS_PER_KIND, search: q })
const go = (path: string, param: string, value: string) => `${path}?${param}=${encodeURIComponent(value)}`
const joined = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join(' · ')

/** The sources in the order their hits are listed. */
export function quickSearchSources(t: Messages, can: (p: string) => boolean, runs: (plugin: string) => boolean): Source[] {
  const k = { ...t.menu.search.kinds, ...t.find.kinds }
  const record = (href: string, label: string, detail: string): Hit => ({ href, label, detail, kind: 'record' })
  const off = (enabled: boolean) => (enabled ? '' : t.find.disabled)
  return [
    {
      key: 'devices',
      allowed: can('inventory.read') && runs('inventory'),
      find: async (q) => (await api.get('/api/v1/devices', { query: { ...page(q), sort_by: 'name', sort_order: 'asc' } })).items
        .map((d) => record(go('/devices', 'search', d.name), `${d.name} · ${d.address}`, k.device)),
    },
    {
      key: 'device-groups',
      allowed: can('inventory.read') && runs('inventory'),
      find: async (q) => (await api.get('/api/v1/device-groups', { query: { ...page(q), sort_by: 'name', sort_order: 'asc' } })).items
        .map((g) => record(go('/device-groups', 'open', g.id), joined(g.name, g.description), k.deviceGroup)),
    },
    {
      key: 'users',
      allowed: can('users.read'),
      find: async (q) => (await api.get('/api/v1/users', { query: { ...page(q), sort_by: 'username', sort_order: 'asc' } })).items
        .map((u) => record(go('/users', 'search', u.username), joined(u.username, u.display_name), k.user)),
    },
    {
      key: 'user-groups',
      allowed: can('groups.read'),
      find: async (q) => (await api.get('/api/v1/user-groups', { query: { ...page(q), sort_by: 'name', sort_order: 'asc' } })).items
        .map((g) => record(go('/user-groups', 'open', g.id), joined(g.name, g.description), k.userGroup)),
    },
    {
      key: 'aaa-rules',
      allowed: can('aaa-policy.read') && runs('aaa-policy'),
      // The rule lists are not paginated: the route searches, the first few in evaluation order are shown.
      find: async (q) => (await api.get('/api/v1/aaa/policy/rules', { query: { search: q } })).slice(0, RECORDS_PER_KIND)
        .map((r) => record(go('/policy', 'open', r.id), joined(r.name, `#${r.position + 1}`, off(r.enabled)), k.aaaRule)),
    },
    {
      key: 'nac-rules',
      allowed: can('nac.policy.read') && runs('nac'),
      find: async (q) => (await api.get('/api/v1/nac/policy/rules', { query: { search: q } })).slice(0, RECORDS_PER_KIND)
        .map((r) => record(go('/nac/policy', 'open', r.id), joined(r.name, `#${r.position + 1}`, off(r.enabled)), k.nacRule)),
    },
    {
      key: 'endpoints',
      allowed: can('nac.read') && runs('nac'),
      find: async (q) => (await api.get('/api/v1/nac/endpoints', { query: { ...page(q), sort_by: 'mac', sort_order: 'asc' } })).items
        .map((e) => record(go('/nac/endpoints', 'search', e.mac), joined(e.mac, e.description), k.endpoint)),
    },
    {
      key: 'nac-sessions',
      allowed: can('nac.sessions.read') && runs('nac'),
      // A hit a session; it opens the sessions of that user name (or of that MAC when the text is not in the name; a session without either: the list searched).
      find: async (q) => (await api.get('/api/v1/nac/sessions', { query: { ...page(q), sort_by: 'last_update_at', sort_order: 'desc' } })).items.map((s) => {
        const byName = !!s.username && s.username.toLocaleLowerCase().includes(q.toLocaleLowerCase())
        const href = byName && s.username ? go('/nac/sessions', 'username', s.username) : s.mac ? go('/nac/sessions', 'mac', s.mac) : go('/nac/sessions', 'search', q)
        return record(href, joined(s.username, s.mac, s.nas_ip, t.find.sessionState[s.state] ?? s.state), k.nacSession)
      }),
    },
    {
      key: 'guests',
      allowed: can('portal.read') && runs('portal'),
      find: async (q) => (await api.get('/api/v1/captive-portal/guests', { query: { ...page(q), sort_by: 'name', sort_order: 'asc' } })).items
        .map((g) => record(go('/captive-portal/guests', 'search', g.username ?? g.email ?? g.name ?? q), joined(g.name, g.email, g.username), k.guest)),
    },
    {
      key: 'certificates',
      allowed: can('pki.view') && runs('pki'),
      find: async (q) => (await api.get('/api/v1/pki/certificates', { query: { ...page(q), sort_by: 'subject', sort_order: 'asc' } })).items
        .map((c) => record(go('/pki/certificates', 'open', c.id), joined(c.subject, c.serial), k.certificate)),
    },
  ]
}

/** One hit per place: several sessions of one user open the same filtered list. */
export function uniqueHits(hits: Hit[]): Hit[] {
  const seen = new Set<string>()
  return hits.filter((h) => !seen.has(h.href) && !!seen.add(h.href))
}
