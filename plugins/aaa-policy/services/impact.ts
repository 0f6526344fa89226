/**
 * Change impact (POST /aaa/policy/impact): the distinct requests of a window of the logs, each
 * evaluated against the inputs the active release of its daemon was rendered from (deployed) and
 * against the database as edited (pending), with the policy test's own semantics
 * (services/batch-evaluate.ts, proven equal to `evaluateWith`). `ImpactAccumulator` counts, groups
 * and keeps the biggest changes.
 *
 * What the logs cannot tell is not guessed: a login that only ever failed on its password, a second
 * factor, a directory user (whose groups the directory gives at each login), a method the test does
 * not answer, a command line whose `<cr>` the daemon decides two ways: counted and named.
 */
import type { DistinctRadiusRequest, DistinctRequests, DistinctTacacsRequest } from '../../aaa-logs/api.js'
import type { ImpactOutcome, ImpactRequest, ImpactRequestKind } from '../../../sdk/index.js'
import type { BatchEvaluator } from './batch-evaluate.js'
import type { EditReach } from './impact-reach.js'
import type { PolicyTestInput, PolicyTestResult } from './evaluate.js'
import unreplayableWords from '../locales/unreplayable-en.js'
import { ENGLISH_TRACE } from './first-match.js'

export type { DistinctRadiusRequest, DistinctRequests, DistinctTacacsRequest }

/** Why a request is not replayed: a code and what it means, in words (English; the route says them in the caller's language). */
export const UNREPLAYABLE = unreplayableWords
export type UnreplayableReason = keyof typeof UNREPLAYABLE

/** tac_plus-ng's authen_type as logged → the policy test's method. */
const TACACS_METHODS: Record<string, PolicyTestInput['method']> = { ascii: 'ascii', pap: 'pap', chap: 'chap', mschapv2: 'mschapv2', 'ms-chapv2': 'mschapv2', enable: 'enable' }
/** FreeRADIUS's Auth-Type as logged → the policy test's method (null: PAP, the test's default for RADIUS). */
const RADIUS_METHODS: Record<string, PolicyTestInput['method']> = { PAP: 'pap', CHAP: 'chap', 'MS-CHAPv2': 'mschapv2' }

/** The NAS's AV pairs as logged (`name=value`, `name*value`) beyond service, cmd and cmd-arg. */
function nasAttributes(args: readonly string[]): { name: string; value: string; optional?: boolean }[] {
  const out: { name: string; value: string; optional?: boolean }[] = []
  for (const a of args) {
    const i = a.search(/[=*]/)
    if (i <= 0) continue
    const name = a.slice(0, i)
    if (name === 'service' || name === 'cmd' || name === 'cmd-arg') continue
    out.push(a[i] === '*' ? { name, value: a.slice(i + 1), optional: true } : { name, value: a.slice(i + 1) })
  }
  return out
}

/** A `<cr>` word anywhere but last (routes/test.ts ambiguousCr): the policy test refuses such a line. */
function ambiguousCr(line: string): boolean {
  const words = line.split(/[ \t]+/).filter((w) => w !== '')
  return words.some((w, i) => /^<cr>$/i.test(w) && (i === 0 || i !== words.length - 1))
}

export interface Replayable {
  kind: ImpactRequestKind
  input: PolicyTestInput
}

/** The policy test's request for a logged TACACS+ request, or why it cannot be replayed. */
export function tacacsInput(r: DistinctTacacsRequest): Replayable | { unreplayable: UnreplayableReason } {
  if (!r.nas_ip) return { unreplayable: 'no_address' }
  const at = r.last_seen.toISOString()
  if (r.kind === 'authentication') {
    const method = TACACS_METHODS[(r.authen_type ?? '').toLowerCase()]
    if (!method) return { unreplayable: 'method' }
    if (r.permitted === 0 && /mfa|second factor|one-time|otp/i.test(`${r.last.message ?? ''}`)) return { unreplayable: 'mfa' }
    if (r.permitted === 0 && r.last.result_code === 'AUTHC-FAIL') return { unreplayable: 'wrong_password' }
    return { kind: 'tacacs_authentication', input: { username: r.username, protocol: 'tacacs', nas_ip: r.nas_ip, method, at } }
  }
  const command = r.command === null || r.command === '' ? undefined : r.command
  if (command !== undefined) {
    if (ambiguousCr(command)) return { unreplayable: 'command_cr' }
    return { kind: 'tacacs_command', input: { username: r.username, protocol: 'tacacs', nas_ip: r.nas_ip, command, ...(r.priv_lvl === null ? {} : { priv_lvl: r.priv_lvl }), at } }
  }
  const nas = nasAttributes(r.arguments)
  return { kind: 'tacacs_session', input: { username: r.username, protocol: 'tacacs', nas_ip: r.nas_ip, ...(r.service ? { service: r.service } : {}), ...(nas.length ? { nas_attributes: nas } : {}), at } }
}

/** The same for a RADIUS device-administration request (NAC ones are the nac plugin's). */
export function radiusInput(r: DistinctRadiusRequest): Replayable | { unreplayable: UnreplayableReason } {
  if (!r.nas_ip) return { unreplayable: 'no_address' }
  const method = r.auth_type === null ? 'pap' : RADIUS_METHODS[r.auth_type]
  if (!method) return { unreplayable: 'method' }
  if (r.permitted === 0 && (r.last.result_code ?? '').startsWith('mfa_')) return { unreplayable: 'mfa' }
  if (r.permitted === 0 && r.last.result_code === 'wrong_password') return { unreplayable: 'wrong_password' }
  return { kind: 'radius_authentication', input: { username: r.username, protocol: 'radius', nas_ip: r.nas_ip, method, at: r.last_seen.toISOString() } }
}

/** The deployed side's reason when no release of the daemon is active (English; `Sides.nothingDeployed` for other words). */
const NOTHING_DEPLOYED = ENGLISH_TRACE.say('aaa-policy:verdict.nothing_deployed')

/** The attributes `outcomeOf` shows for a permit. */
function shownAttributes(kind: ImpactRequestKind, res: PolicyTestResult): readonly { name: string; value: string }[] {
  if (kind === 'tacacs_authentication' || kind === 'tacacs_command') return []
  return kind === 'tacacs_session' ? (res.authorization_reply?.attributes ?? res.attributes) : res.attributes
}

/**
 * True when both sides answer alike in everything `changeOf` compares (decision, rule, profile, the
 * command-set line, a permit's attributes): the request is counted unchanged without building its
 * outcomes. Conservative: anything else goes through `outcomeOf` and `changeOf`.
 */
export function sameAnswer(kind: ImpactRequestKind, a: PolicyTestResult, b: PolicyTestResult): boolean {
  if (a.decision !== b.decision || (a.matched_rule?.id ?? null) !== (b.matched_rule?.id ?? null) || (a.profile?.id ?? null) !== (b.profile?.id ?? null)) return false
  if (kind === 'tacacs_command') {
    const x = a.command_decision
    const y = b.command_decision
    if ((x?.decision ?? null) !== (y?.decision ?? null) || (x?.matched?.command_set_id ?? null) !== (y?.matched?.command_set_id ?? null) || (x?.matched?.command ?? null) !== (y?.matched?.command ?? null)) return false
  }
  const p = shownAttributes(kind, a)
  const q = shownAttributes(kind, b)
  return p.length === q.length && p.every((x, i) => x.name === q[i].name && x.value === q[i].value)
}

/** What the NAS is answered, as the impact report compares it. */
export function outcomeOf(kind: ImpactRequestKind, res: PolicyTestResult | null, nothingDeployed = NOTHING_DEPLOYED): ImpactOutcome {
  const isCommand = kind === 'tacacs_command'
  if (!res) return { decision: 'deny', rule: null, profile: null, attributes: [], command_line: isCommand ? { command_set: null, line: null } : null, reason: nothingDeployed }
  const cd = res.command_decision
  const permit = res.decision === 'permit' && (!isCommand || cd?.decision === 'permit')
  // A login carries no attributes; a command is answered PASS_ADD without pairs; a session: the reply's pairs.
  const attrs = permit ? shownAttributes(kind, res) : []
  return {
    decision: permit ? 'permit' : 'deny',
    rule: res.matched_rule,
    profile: res.profile ? { id: res.profile.id, name: res.profile.name } : null,
    attributes: attrs.map((a) => ({ name: a.name, value: a.value })),
    command_line: isCommand ? { command_set: cd?.matched ? { id: cd.matched.command_set_id, name: cd.matched.command_set_name } : null, line: cd?.matched?.command ?? null } : null,
    reason: cd && isCommand ? `${res.reason}; ${cd.reason}` : res.reason,
  }
}

/** The names the answer shows, resolved once. */
export interface ImpactNames {
  userGroups(userId: string): ImpactRequest['user_groups']
  deviceGroups(deviceId: string): ImpactRequest['device_groups']
}

export interface Sides {
  deployed: BatchEvaluator | null
  pending: BatchEvaluator
  /** The deployed side's reason when nothing is deployed, in the evaluators' words (their `PHRASE_SAY`); English when absent. */
  nothingDeployed?: string
  /** The release the deployed side was read from. */
  deployedRelease: string | null
  /** The requests the edit can reach (impact-reach.ts); absent: every request is replayed. */
  reach?: EditReach
}

/** Is the user a directory user on either side (their groups are the directory's to say)? */
export const directoryUser = (s: Sides, username: string): boolean => Boolean(s.pending.loginOf(username)?.directory || s.deployed?.loginOf(username)?.directory)

/** Both outcomes of one request, and the request as the answer shows it. */
export function replayOne(s: Sides, names: ImpactNames, r: Replayable, logged: { events: number; permitted: number; last_seen: Date; method: string | null }) {
  const before = s.deployed ? s.deployed.evaluate(r.input) : null
  const after = s.pending.evaluate(r.input)
  if (before && sameAnswer(r.kind, before, after)) return null
  // A login only ever refused, by the policy: the daemon never checked its password (seen with
  // FreeRADIUS, rejected by a rule before the password), so a permit after the edit is a guess.
  if (r.input.method && logged.permitted === 0 && (!before || before.decision === 'deny') && after.decision === 'permit') return { unreplayable: 'password_unknown' as const, request: null, before: null, after: null, link: null }
  const user = after.user ?? before?.user ?? null
  const device = after.device ?? before?.device ?? null
  const request: ImpactRequest = {
    kind: r.kind,
    username: r.input.username,
    mac: null,
    device: device ? { id: device.id, name: device.name } : null,
    nas_ip: r.input.nas_ip ?? null,
    method: r.input.method ?? null,
    service: r.kind === 'tacacs_session' || r.kind === 'tacacs_command' ? (r.input.service ?? 'shell') : null,
    command: r.input.command ?? null,
    priv_lvl: r.input.priv_lvl ?? null,
    user_groups: user ? names.userGroups(user.id) : [],
    device_groups: device ? names.deviceGroups(device.id) : [],
    events: logged.events,
    last_seen: logged.last_seen.toISOString(),
  }
  const body = { ...r.input }
  const link = () => ({ path: '/api/v1/aaa/policy/test', deployed: s.deployed ? { ...body, against: 'deployed' } : null, pending: { ...body, against: 'database' } })
  return { unreplayable: null, request, before: outcomeOf(r.kind, before, s.nothingDeployed), after: outcomeOf(r.kind, after), link }
}
