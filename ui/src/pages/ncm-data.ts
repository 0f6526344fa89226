/**
 * Configuration tracking (the ncm plugin): the objects its routes answer and every call the ncm
 * screens make, in one place. Collectors (enrolled with a one-time token), the tracked devices with
 * their version history, the diff between two versions and the TACACS+ records of the change window,
 * the search over the latest configurations, compliance rules and results, and the setup (schedules,
 * credentials, command profiles).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { api, fetchText } from '../api/client'

/** The loose form of the typed client (same requests, same errors): the ncm answers are typed here. */
type Call = (path: string, o?: { params?: object; query?: object; body?: unknown }) => Promise<unknown>
const http = api as unknown as Record<'get' | 'post' | 'patch' | 'put' | 'delete', Call>
const get = <T>(path: string, o?: { params?: object; query?: object }) => http.get(path, o) as Promise<T>
const send = <T>(method: 'post' | 'patch' | 'put' | 'delete', path: string, o?: { params?: object; body?: unknown }) => http[method](path, o) as Promise<T>

export interface Page<T> { items: T[]; total: number; total_by_filter: number; page: number; pages: number }

export type CollectorState = 'pending' | 'active' | 'revoked'
export type ContractState = 'unknown' | 'match' | 'mismatch'
export interface Collector {
  id: string
  name: string
  description: string | null
  state: CollectorState
  max_concurrency: number
  enrolled_at: string | null
  last_contact_at: string | null
  last_address: string | null
  release: string | null
  contract_state: ContractState
  contract_seen: string | null
  last_refusal_code: string | null
  last_refusal_at: string | null
  /** Deleted: kept as a tombstone so its next request gets a clear refusal. */
  removed: boolean
}
export interface Enrollment { collector: Collector; enrollment_token: string; expires_at: string }

export type FetchStatus = 'ok' | 'timeout' | 'connect_failed' | 'auth_failed' | 'host_key_mismatch' | 'too_large' | 'protocol_error'
export interface TrackedDevice {
  device_id: string
  name: string
  address: string
  host: string | null
  port: number
  enabled: boolean
  collector_id: string | null
  profile_id: string | null
  last_fetch_at: string | null
  last_status: FetchStatus | 'no_host' | null
  last_error: string | null
  consecutive_failures: number
  host_key_sha256: string | null
  latest_version_id: string | null
  next_due_at: string | null
}
export interface Version {
  id: string
  device_id: string
  previous_id: string | null
  collector_id: string | null
  first_finished_at: string
  last_seen_at: string
  seen_count: number
  fetch_ms: number | null
  added: number
  removed: number
  secrets_only: boolean
}
export interface Diff { unified: string; added: number; removed: number; truncated: boolean; secrets_only: boolean }
export interface Change {
  timestamp: string
  username: string | null
  kind: 'authorization' | 'accounting' | string
  action: string
  command: string
  client_address: string | null
  matches_diff: boolean
}
export interface Changes { items: Change[]; truncated: boolean; logs_available: boolean }
export interface SearchHit { device_id: string; device_name: string | null; match_count: number; lines: { n: number; line: string }[] }
export interface SearchAnswer { items: SearchHit[]; total: number; total_capped: boolean }

export type Requirement = 'must_contain' | 'must_not_contain'
export type RuleMatch = 'literal' | 'regex'
export interface Rule {
  id: string
  name: string
  description: string | null
  device_group_id: string | null
  requirement: Requirement
  match: RuleMatch
  pattern: string
  notify: boolean
  enabled: boolean
  evaluating: boolean
  device_group_name: string | null
  evaluated_at: string | null
}
export interface RuleResult {
  rule_id: string
  rule_name: string
  device_id: string
  device_name: string | null
  version_id: string
  status: 'pass' | 'fail'
  match_count: number
  evidence: { line: number; text: string }[]
  since: string
  evaluated_at: string
}

export interface Credential { id: string; name: string; username: string; auth: 'password' | 'private_key'; has_password: boolean; has_private_key: boolean; has_enable_secret: boolean }
export interface Profile { id: string; name: string; builtin: boolean; mode: 'shell' | 'exec'; command: string; prompt: string; pre_commands: string[]; pager_pattern: string | null; strip_lines: string[]; secret_lines: string[] }
export interface Schedule { id: string; device_group_id: string; collector_id: string; credential_id: string; profile_id: string; interval_minutes: number; enabled: boolean }

const all = { page: 1, per_page: 100 }
const BASE = '/api/v1/ncm'
/** The search needs 3 characters at least (the server's rule). */
export const SEARCH_MIN = 3

export const ncmKeys = { all: ['ncm'] as const }

export const useCollectors = () => useQuery({ queryKey: ['ncm', 'collectors'], queryFn: () => get<Page<Collector>>(`${BASE}/collectors`, { query: all }), refetchInterval: 15_000 })
/** One page of the collectors, as the collectors screen sorts and pages them (its key under ['ncm', 'collectors']: refreshed with the rest). */
export const useCollectorPage = (query: { page: number; per_page: number; sort_by?: string; sort_order?: 'asc' | 'desc'; search?: string }) =>
  useQuery({ queryKey: ['ncm', 'collectors', query], queryFn: () => get<Page<Collector>>(`${BASE}/collectors`, { query }), refetchInterval: 15_000, placeholderData: keepPreviousData })
export const createCollector = (body: { name: string; description: string | null }) => send<Enrollment>('post', `${BASE}/collectors`, { body })
/** A new token re-enrolls the collector (new keys); the answer is the token alone, shown with the collector it is for. */
export const newEnrollmentToken = async (c: Collector): Promise<Enrollment> => ({
  collector: c,
  ...(await send<{ enrollment_token: string; expires_at: string }>('post', `${BASE}/collectors/{collector_id}/enrollment-token`, { params: { collector_id: c.id } })),
})
export const revokeCollector = (id: string) => send<Collector>('post', `${BASE}/collectors/{collector_id}/revoke`, { params: { collector_id: id } })
export const deleteCollector = (id: string) => send<void>('delete', `${BASE}/collectors/{collector_id}`, { params: { collector_id: id } })

export const useTrackedDevices = (query: { page: number; per_page: number; sort_by?: string; sort_order?: 'asc' | 'desc'; search?: string; last_status?: string }) =>
  useQuery({ queryKey: ['ncm', 'devices', query], queryFn: () => get<Page<TrackedDevice>>(`${BASE}/devices`, { query }), placeholderData: keepPreviousData })
export const useTrackedDevice = (id: string) => useQuery({ queryKey: ['ncm', 'devices', id], queryFn: () => get<TrackedDevice>(`${BASE}/devices/{device_id}`, { params: { device_id: id } }) })
export const fetchNow = (id: string) => send<unknown>('post', `${BASE}/devices/{device_id}/fetch`, { params: { device_id: id } })
export const useSearch = (q: string, match: 'contains' | 'line') =>
  useQuery({ queryKey: ['ncm', 'search', q, match], queryFn: () => get<SearchAnswer>(`${BASE}/search`, { query: { q, match } }), enabled: q.trim().length >= SEARCH_MIN, placeholderData: keepPreviousData })

export const useVersions = (id: string) =>
  useQuery({ queryKey: ['ncm', 'versions', id], queryFn: () => get<Page<Version>>(`${BASE}/devices/{device_id}/versions`, { params: { device_id: id }, query: all }), refetchInterval: 10_000 })
export const useDiff = (id: string, from: string | null, to: string | null) =>
  useQuery({ queryKey: ['ncm', 'diff', id, from, to], queryFn: () => get<Diff>(`${BASE}/devices/{device_id}/diff`, { params: { device_id: id }, query: { from, to, context: 3 } }), enabled: !!from && !!to && from !== to })
export const useChanges = (id: string, version: string | null, enabled: boolean) =>
  useQuery({
    queryKey: ['ncm', 'changes', id, version],
    queryFn: () => get<Changes>(`${BASE}/devices/{device_id}/versions/{version_id}/changes`, { params: { device_id: id, version_id: version } }),
    enabled: enabled && !!version,
    retry: false,
  })
export const versionText = (id: string, version: string) => fetchText(`${BASE}/devices/{device_id}/versions/{version_id}/config`, { device_id: id, version_id: version }, {}, 'text/plain')

export const useRules = () => useQuery({ queryKey: ['ncm', 'rules'], queryFn: () => get<Page<Rule>>(`${BASE}/rules`, { query: all }) })
export const saveRule = (rule: Omit<Rule, 'id' | 'evaluated_at' | 'evaluating' | 'device_group_name'>, id?: string) =>
  id ? send<Rule>('patch', `${BASE}/rules/{rule_id}`, { params: { rule_id: id }, body: rule }) : send<Rule>('post', `${BASE}/rules`, { body: rule })
export const deleteRule = (id: string) => send<void>('delete', `${BASE}/rules/{rule_id}`, { params: { rule_id: id } })
export const useCompliance = (query: { page: number; per_page: number; sort_by?: string; sort_order?: 'asc' | 'desc'; status?: string }) =>
  useQuery({ queryKey: ['ncm', 'compliance', query], queryFn: () => get<Page<RuleResult>>(`${BASE}/compliance`, { query }), refetchInterval: 15_000, placeholderData: keepPreviousData })

export const useCredentials = () => useQuery({ queryKey: ['ncm', 'credentials'], queryFn: () => get<Page<Credential>>(`${BASE}/credentials`, { query: all }) })
export const useProfiles = () => useQuery({ queryKey: ['ncm', 'profiles'], queryFn: () => get<{ items: Profile[] }>(`${BASE}/profiles`) })
export const useSchedules = () => useQuery({ queryKey: ['ncm', 'schedules'], queryFn: () => get<Page<Schedule>>(`${BASE}/schedules`, { query: all }) })
export const createCredential = (body: Record<string, unknown>) => send<Credential>('post', `${BASE}/credentials`, { body })
export const createProfile = (body: Record<string, unknown>) => send<Profile>('post', `${BASE}/profiles`, { body })
export const createSchedule = (body: Record<string, unknown>) => send<Schedule>('post', `${BASE}/schedules`, { body })
export const removeSetup = (kind: 'credentials' | 'profiles' | 'schedules', id: string) => send<void>('delete', `${BASE}/${kind}/{id}`, { params: { id } })

/** The command an administrator runs where the collector will live: the core's address as this browser reaches it. */
export const enrollCommand = (token: string, name: string) => `portcullis collector enroll --core ${location.origin} --token ${token} --name ${shellWord(name)}`
/** A name as one shell word (quoted unless plain). */
const shellWord = (s: string) => (/^[A-Za-z0-9._-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/**
 * Status colours, shared by the lists (filled badges) and the diff (its green and red): dark enough for
 * WCAG AA's 4.5:1 against white, which Mantine's shades 6 to 9 of green and red are not.
 */
export const ADDED = '#1e6b2d'
export const REMOVED = '#b0262a'
export const NEUTRAL = '#495057'
export const OTHER_COLOR = '#a33b00'
export const INFO = '#1864ab'
export const STATE_COLOR: Record<string, string> = { active: ADDED, pending: INFO, revoked: REMOVED, match: ADDED, mismatch: REMOVED, unknown: NEUTRAL, ok: ADDED, pass: ADDED, fail: REMOVED }
