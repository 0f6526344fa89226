/**
 * The change impact the Deploys screen shows: which impact reports to ask
 * (the AAA policy's, the NAC policy's: each only when its plugin runs and the
 * user may read it), asking them, and the summary a deploy carries into its
 * audit entry (POST /deploys `impact`). Both reports answer one shape
 * (sdk/policy-impact.ts `PolicyImpactResponse`).
 */
import { ApiError, consoleHeaders } from '../api/client'
import type { components } from '../generated/api'

type S = components['schemas']
export type Impact = S extends { PolicyImpactResponse: infer R } ? R : PolicyImpactShape
export type ImpactChange = Impact['changes'][number]
export type ImpactOutcome = ImpactChange['before']
export type ImpactGroupRow = Impact['groups']['users'][number]
export type ImpactSummary = Impact['summary']
export type DeployImpact = NonNullable<S['DeployRequest']['impact']>

type Count = { requests: number; events: number }
type Ref = { id: string; name: string }
type Outcome = {
  decision: 'permit' | 'deny'
  rule: (Ref & { position: number }) | null
  profile: Ref | null
  attributes: { name: string; value: string }[]
  command_line: { command_set: Ref | null; line: string | null } | null
  reason: string
}
type Row = { id: string | null; name: string; permit_to_deny: number; deny_to_permit: number; attributes: number; rule: number; events: number }
/** The answer's shape as sdk/policy-impact.ts declares it, for a build whose OpenAPI has no impact route yet. */
interface PolicyImpactShape {
  window: { from: string; to: string; days: number }
  compared: { deployed: { daemon: string; release: string | null; deploy_id: string | null; deployed_at: string | null }[]; pending: 'database' }
  requests: { distinct: number; events: number; evaluated: number; unchanged: number; unaffected?: { events: number }; unreplayable: Count & { by_reason: (Count & { reason: string; description: string })[] } }
  limits: { reached: 'max_requests' | 'time_budget' | null; max_requests: number; time_budget_seconds: number }
  summary: {
    permit_to_deny: Count; deny_to_permit: Count; attributes: Count; rule: Count
    users_losing_access: number; devices_losing_access: number; rules_newly_deciding: number; requests_newly_decided: Count; text: string
  }
  groups: { users: Row[]; user_groups: Row[]; devices: Row[]; device_groups: Row[]; rules: Row[] }
  changes: {
    request: {
      kind: 'tacacs_authentication' | 'tacacs_session' | 'tacacs_command' | 'radius_authentication' | 'nac_authentication'
      username: string | null; mac: string | null; device: Ref | null; nas_ip: string | null; method: string | null; service: string | null
      command: string | null; priv_lvl: number | null; user_groups: Ref[]; device_groups: Ref[]; events: number; last_seen: string
    }
    change: 'permit_to_deny' | 'deny_to_permit' | 'attributes' | 'rule'
    before: Outcome
    after: Outcome
    changed_attributes: { name: string; before: string | null; after: string | null }[]
    policy_test: { path: string; deployed: Record<string, unknown> | null; pending: Record<string, unknown> }
  }[]
  changes_total: number
  timing: { total_ms: number; log_scan_ms: number; evaluate_ms: number }
  replica_lag_ms: number | null
}

/** One impact report: the route, what it needs, and the console page of its policy test. */
export interface ImpactSource {
  name: 'aaa' | 'nac'
  path: string
  plugins: string[]
  permissions: string[]
  /** The daemons whose deploy it is about. */
  daemons: string[]
  testPage: string
}

export const IMPACT_SOURCES: ImpactSource[] = [
  { name: 'aaa', path: '/api/v1/aaa/policy/impact', plugins: ['aaa-policy', 'aaa-logs'], permissions: ['aaa-policy.read', 'aaa-logs.read'], daemons: ['tac_plus-ng', 'freeradius'], testPage: '/policy' },
  { name: 'nac', path: '/api/v1/nac/policy/impact', plugins: ['nac', 'aaa-logs'], permissions: ['nac.policy.read', 'aaa-logs.read'], daemons: ['freeradius'], testPage: '/nac/policy' },
]

export type ImpactResult =
  | { source: ImpactSource; state: 'complete' | 'limit_reached'; impact: Impact }
  | { source: ImpactSource; state: 'unavailable' | 'forbidden' | 'failed'; error?: string }

/** The reports about `daemon` (every daemon: all), each asked only when its plugins run and the user holds its permissions. */
export async function askImpact(o: { daemon?: string; runs(plugin: string): boolean; can(permission: string): boolean }): Promise<ImpactResult[]> {
  const sources = IMPACT_SOURCES.filter((s) => !o.daemon || s.daemons.includes(o.daemon))
  return Promise.all(
    sources.map(async (source): Promise<ImpactResult> => {
      if (!source.plugins.every(o.runs)) return { source, state: 'unavailable' }
      if (!source.permissions.every(o.can)) return { source, state: 'forbidden' }
      try {
        // A deploy of one daemon: the AAA report of that daemon's protocol only (FreeRADIUS: RADIUS; tac_plus-ng: TACACS+).
        const body = source.name === 'aaa' && o.daemon ? { protocol: o.daemon === 'tac_plus-ng' ? 'tacacs' : 'radius' } : {}
        const impact = await post<Impact>(source.path, body)
        return { source, state: impact.limits.reached ? 'limit_reached' : 'complete', impact }
      } catch (e) {
        if (e instanceof ApiError && e.status === 403) return { source, state: 'forbidden', error: e.message }
        if (e instanceof ApiError && e.status === 404) return { source, state: 'unavailable', error: e.message }
        return { source, state: 'failed', error: (e as Error).message }
      }
    }),
  )
}

/** A POST to a route the generated types may not list yet (the impact routes), with the session and language. */
async function post<T>(path: string, body: object): Promise<T> {
  const headers = consoleHeaders({ Accept: 'application/json', 'Content-Type': 'application/json' })
  const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) })
  const data = (await res.json().catch(() => null)) as (T & { detail?: string; code?: string; field?: string | null }) | null
  if (!res.ok) throw new ApiError(res.status, data?.detail ?? `${res.status} ${res.statusText}`, data?.code ?? `HTTP_${res.status}`, data?.field ?? null)
  return data as T
}

const add = (a: Count, b: Count): Count => ({ requests: a.requests + b.requests, events: a.events + b.events })
const ZERO: Count = { requests: 0, events: 0 }

/** What was asked and answered, summed over the reports: the deploy's `impact` for its audit entry. */
export function impactRecord(results: ImpactResult[], text: string, confirmed: boolean): DeployImpact {
  const answered = results.flatMap((r) => ('impact' in r ? [r.impact] : []))
  const sum = (f: (i: Impact) => Count) => answered.map(f).reduce(add, ZERO)
  return {
    text: text.slice(0, 2000) || '-',
    window_days: answered[0]?.window.days ?? 7,
    permit_to_deny: sum((i) => i.summary.permit_to_deny),
    deny_to_permit: sum((i) => i.summary.deny_to_permit),
    attributes: sum((i) => i.summary.attributes),
    rule: sum((i) => i.summary.rule),
    unreplayable: sum((i) => ({ requests: i.requests.unreplayable.requests, events: i.requests.unreplayable.events })),
    sources: results.map((r) => ({ name: r.source.name, state: r.state })),
    ...(confirmed ? { confirmed: true } : {}),
  }
}

/** Requests permitted today that the deploy would deny, over every report answered. */
export function permitToDeny(results: ImpactResult[]): Count {
  return results.reduce((c, r) => ('impact' in r ? add(c, r.impact.summary.permit_to_deny) : c), ZERO)
}

/** The policy test page filled with one request (its body in the URL's `test`), answered at once. */
export function policyTestLink(source: ImpactSource, body: Record<string, unknown>): string {
  return `${source.testPage}?test=${encodeURIComponent(JSON.stringify(body))}`
}

/** The body a policy test page was opened with (`?test=…`), or null. */
export function testFromUrl(): Record<string, unknown> | null {
  const raw = new URLSearchParams(location.search).get('test')
  if (!raw) return null
  try {
    const v: unknown = JSON.parse(raw)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}
