/**
 * The NAC change impact's replay: each distinct 802.1X or MAB request of the logs, resolved and
 * evaluated on the deployed side and on the pending one (services/impact-side.ts), handed to the
 * shared accumulator (sdk/policy-impact-accumulator.ts). What the log cannot replay is counted and
 * named, never guessed:
 *
 * - PEAP whose password the log does not prove right (never accepted, never denied by a NAC rule:
 *   the inner tunnel checks the password after the account) where a side would let the account in;
 * - EAP-TLS whose certificate the log does not prove accepted (refused in the TLS exchange);
 * - a rule reached that tests a certificate field (not logged), or a time window when the request
 *   was seen at several times (the grouping keeps the last one only);
 * - PEAP without a logged inner identity, MAB without a readable MAC.
 *
 * No MFA step: FreeRADIUS does not ask for a second factor inside the 802.1X tunnel.
 */
import type { ImpactAccumulator } from '../../../sdk/policy-impact-accumulator.js'
import type { ImpactOutcome, ImpactRequest, NacMethod } from '../../../sdk/index.js'
import type { DistinctRadiusRequest } from '../../aaa-logs/api.js'
import { accountRefusal } from './account.js'
import { NAS_PORT_TYPES } from './conditions.js'
import { ImpactSide, treeMac, type Resolved, type Unknown } from './impact-side.js'
import unreplayableWords from '../locales/unreplayable-en.js'

/** Why a request is not replayed, in English words (the route says them in the caller's language). */
export const UNREPLAYABLE = unreplayableWords
export type UnreplayableReason = keyof typeof UNREPLAYABLE

/** The logged last answers that prove the credential passed (the outer post-auth ran after the EAP exchange). */
const POST_AUTH_REASONS = new Set(['nac_denied', 'disabled', 'network_login_off', 'expired'])

export interface ReplayOptions {
  /** When the replay stops (epoch ms); reaching it is `time_budget`. */
  deadline: number
  /** Names of user groups and device groups by id, for the answer. */
  names: ReadonlyMap<string, string>
  /** The instant the requests are replayed at (the expiry of an account). */
  at: Date
}

export interface ReplayResult {
  timeBudgetReached: boolean
  evaluate_ms: number
}

const named = (ids: readonly string[], names: ReadonlyMap<string, string>) => ids.map((id) => ({ id, name: names.get(id) ?? id }))

/** The /nac/policy/test body that answers why (against the edited policy). */
export function policyTestBody(q: DistinctRadiusRequest, method: NacMethod, mac: string | null, device: string | null, exactTime: boolean): Record<string, unknown> {
  return {
    method,
    ...(mac ? { mac } : {}),
    ...(method !== 'mab' && q.nac_user !== null ? { username: q.nac_user } : {}),
    ...(device ?? q.nas_ip ? { nas: device ?? q.nas_ip } : {}),
    // The test takes the names FreeRADIUS knows only (its schema's list).
    ...(q.nas_port_type && (NAS_PORT_TYPES as readonly string[]).includes(q.nas_port_type) ? { nas_port_type: q.nas_port_type } : {}),
    ...(exactTime ? { time: q.last_seen.toISOString() } : {}),
  }
}

/** Replays `requests` (NAC ones only; device administration is the AAA policy's) into `acc`. */
export function replayNac(requests: readonly DistinctRadiusRequest[], deployed: ImpactSide, pending: ImpactSide, acc: ImpactAccumulator, o: ReplayOptions): ReplayResult {
  const started = Date.now()
  let timeBudgetReached = false
  let i = 0
  for (const q of requests) {
    if (q.nac_method === null) continue
    if ((++i & 1023) === 0 && Date.now() > o.deadline) {
      timeBudgetReached = true
      break
    }
    const method = q.nac_method
    const unreplayable = (reason: UnreplayableReason) => acc.unreplayable(q, reason, UNREPLAYABLE[reason])
    const mac = treeMac(q.calling_station_id)
    if (method === 'peap' && q.nac_user === null) {
      unreplayable('user_not_logged')
      continue
    }
    if (method === 'mab' && mac === null) {
      unreplayable('mac_not_logged')
      continue
    }
    const proven = q.permitted > 0 || (q.last.result_code !== null && POST_AUTH_REASONS.has(q.last.result_code) && (method === 'eap-tls' || q.last.result_code === 'nac_denied'))
    if (method === 'eap-tls' && !proven) {
      unreplayable('certificate_refused')
      continue
    }
    // Seen once: the log fixes its time (the server's local time, as the tree reads %t).
    const t = q.events === 1 ? q.last_seen : null
    const localTime = t ? { day: t.getDay(), minute: t.getHours() * 60 + t.getMinutes() } : null
    const named_ = method === 'mab' ? null : q.nac_user
    const b = deployed.resolve(method, named_, mac, q.nas_ip, q.nas_port_type, localTime)
    const a = pending.resolve(method, named_, mac, q.nas_ip, q.nas_port_type, localTime)
    if (method === 'peap' && !proven && (lets(b, o.at) || lets(a, o.at))) {
      unreplayable('password_unknown')
      continue
    }
    const before = deployed.outcome(b, o.at)
    const after = pending.outcome(a, o.at)
    if (typeof before === 'string' || typeof after === 'string') {
      unreplayable((typeof before === 'string' ? before : after) as Unknown)
      continue
    }
    const side = a.client ? a : b
    const request: ImpactRequest = {
      kind: 'nac_authentication',
      username: named_,
      mac,
      device: side.client ? { id: side.client.id, name: side.client.name } : null,
      nas_ip: q.nas_ip,
      method,
      service: null,
      command: null,
      priv_lvl: null,
      user_groups: named((a.account ? a : b).user_group_ids, o.names),
      device_groups: named(side.client?.device_group_ids ?? [], o.names),
      events: q.events,
      last_seen: q.last_seen.toISOString(),
    }
    acc.add(request, before as ImpactOutcome, after as ImpactOutcome, () => ({
      path: '/api/v1/nac/policy/test',
      deployed: { ...policyTestBody(q, method, mac, side.client?.id ?? null, t !== null), against: 'deployed' },
      pending: policyTestBody(q, method, mac, side.client?.id ?? null, t !== null),
    }))
  }
  return { timeBudgetReached, evaluate_ms: Date.now() - started }
}

/** Whether the side lets the account through to the password check (a client takes the packet, no refusal). */
function lets(r: Resolved, at: Date): boolean {
  return r.client !== null && accountRefusal(r.method, r.named, r.account, at) === null
}
