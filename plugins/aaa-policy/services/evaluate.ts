/**
 * The policy test: what the rendered configuration would answer, computed from
 * the same rules the renderers read (`listRules`), with the daemons' rules:
 *
 * - the user must be known to the daemon (the name exactly, enabled, network login on),
 *   and so must the device (found by id or by most specific prefix, enabled,
 *   holding a key for the protocol); otherwise the request is refused before
 *   any rule is tried;
 * - an expired user (users.expires_at at or before `at`) is refused a login, by FreeRADIUS for
 *   every request; tac_plus-ng checks it at login only, so an authorization alone still answers;
 *   a RADIUS accept of a user who will expire carries Session-Timeout (the seconds left) first;
 * - a directory user while no directory is set (directory.url null) is refused by both daemons,
 *   before any rule (FreeRADIUS: directory_not_configured; tac_plus-ng is not given them);
 * - a login (`method`; RADIUS always, PAP unless asked) needs what the daemon
 *   checks the password against: the user's network verifiers, the kept
 *   cleartext for CHAP (both daemons) and for MS-CHAP on tac_plus-ng (which
 *   cannot use the NT hash FreeRADIUS gets); enable is the matched
 *   profile's (`enable_mode`: none refuses, login needs the login verifier,
 *   secret takes the profile's secret), at level 15 as `enable` asks. Without it
 *   the request is refused before any rule too (the password is taken to be
 *   right: the test never sees one);
 * - rules are tried in order; a disabled rule is skipped; a rule matches when
 *   its WHO (the user, or a group the user is a member of) and its WHERE (the
 *   device, or its group or any ancestor group) both match, and its optional
 *   conditions hold (the source address inside a client prefix, `at` inside
 *   the time window: services/conditions.ts); the default rule matches anyone
 *   anywhere;
 * - the first matching rule decides: with a profile for the protocol asked it
 *   permits with that profile, without one it denies (the rule renders `deny`);
 * - no matching rule (only possible with the default rule disabled): deny.
 */
import type { Knex } from 'knex'
import type { Static, UserRef } from '../../../sdk/index.js'
import type { Device } from '../../inventory/api.js'
import type { PolicyRuleView } from '../api.js'
import { sourcePrefix } from './conditions.js'
import { ENGLISH_TRACE, firstMatch, type TraceWords } from './first-match.js'
import { databasePolicyData, type DatabaseDataDeps, type PolicyData } from './policy-data.js'
import { avPairs, enableRefusal, loginRefusal, METHOD_NAME, PROTOCOL, withReply } from './verdict-parts.js'
import type { METHODS, PolicyTestRequest, PolicyTestResponse, PolicyTraceStep } from '../schemas/test.js'

export type PolicyTestInput = Static<typeof PolicyTestRequest>
export type PolicyTestResult = Static<typeof PolicyTestResponse>
type Step = Static<typeof PolicyTraceStep>
type Method = (typeof METHODS)[number]

/** What the policy test reads through: the same deps as the database's PolicyData (services/policy-data.ts). */
export type EvaluateDeps = DatabaseDataDeps

type UserRow = Pick<UserRef, 'id' | 'username' | 'enabled' | 'network_login'>


/** `words`: the trace's language (first-match.ts traceWords); English without. */
export function evaluate(d: EvaluateDeps, db: Knex.Transaction, input: PolicyTestInput, words?: TraceWords): Promise<PolicyTestResult> {
  return evaluateWith(d, databasePolicyData(d, db), input, words)
}

/** The same answer from any source of the policy's data: the database, or a deployed release's inputs (services/policy-data.ts). */
export async function evaluateWith(d: EvaluateDeps, db: PolicyData, input: PolicyTestInput, words?: TraceWords): Promise<PolicyTestResult> {
  const result = await evaluateRules(d, db, input, words)
  // A directory user's mapped groups are the directory's to say at each login: the test knows the local memberships only.
  if (result.user && result.rules_tried > 0 && (await db.loginMaterial(result.user.id))?.directory) {
    result.reason += `; ${(words ?? ENGLISH_TRACE).say('aaa-policy:verdict.directory_user', { username: result.user.username })}`
  }
  return result
}

async function evaluateRules(d: EvaluateDeps, db: PolicyData, input: PolicyTestInput, words: TraceWords | undefined): Promise<PolicyTestResult> {
  const protocol = input.protocol
  const trace: Step[] = []
  // A RADIUS request always authenticates; a TACACS+ one only when asked (authorization is separate).
  const method: Method | null = input.method ?? (protocol === 'radius' ? 'pap' : null)
  const result: PolicyTestResult = { decision: 'deny', reason: '', user: null, device: null, matched_rule: null, profile: null, attributes: [], method, command_decision: null, authorization_reply: null, rules_tried: 0, trace }
  const deny = (reason: string): PolicyTestResult => Object.assign(result, { decision: 'deny' as const, reason })
  const say = (key: string, vars?: Record<string, unknown>) => (words ?? ENGLISH_TRACE).say(`aaa-policy:verdict.${key}`, vars)

  // The user, as the daemons know users: they are rendered from the enabled users with network login.
  const user = await db.findUser(input.username)
  if (!user) return deny(say('unknown_user', { username: input.username }))
  // The platform keeps names unique case-insensitively, but tac_plus-ng looks a user up with strcmp
  // (config.c compare_name): another case is another, unknown, name. Applied to RADIUS too, until
  // its renderer says otherwise.
  if (user.username !== input.username) {
    return deny(say('unknown_case', { username: input.username, account: user.username }))
  }
  result.user = { id: user.id, username: user.username }
  if (!user.enabled) return deny(say('user_disabled', { username: user.username }))
  if (!user.network_login) return deny(say('network_login_off', { username: user.username }))

  // The device (the daemon's client): by id, or the most specific prefix containing the address.
  let device = input.device_id ? await db.getDevice(input.device_id) : await db.findDeviceByAddress(input.nas_ip!)
  // The source address a rule's client condition sees (first-match.ts): the NAS's, else the device's own prefix.
  const source = input.nas_ip ?? device?.address ?? ''
  // FreeRADIUS's clients are the enabled devices with a secret only: a device without one (or
  // disabled) inside a wider client is answered as that client, whose name the rules' WHERE sees.
  let via = ''
  if (device && protocol === 'radius' && (!device.enabled || !device.has_radius_secret)) {
    const client = await db.findRadiusClient(input.nas_ip ?? device.address)
    if (client) {
      via = ` (${say(device.enabled ? 'wider_client_no_secret' : 'wider_client_disabled', { device: device.name, address: input.nas_ip ?? say('its_address'), client: client.name })})`
      device = client
    }
  }
  if (!device) {
    return deny(
      input.device_id ? say('no_device_id', { id: input.device_id }) : say('no_device_address', { address: input.nas_ip }),
    )
  }
  result.device = { id: device.id, name: device.name, address: device.address }
  if (!device.enabled) return deny(say('device_disabled', { device: device.name }))
  if (protocol === 'tacacs' && !device.has_tacacs_key) return deny(say('no_tacacs_key', { device: device.name }))
  if (protocol === 'radius' && !device.has_radius_secret) return deny(say('no_radius_secret', { device: device.name }))
  // Expiry (users.expires_at), which the daemons enforce themselves: FreeRADIUS rejects every request
  // from that second on; tac_plus-ng refuses a login (authen.c user_expiry_check), not an authorization.
  const expiresAt = user.expires_at ? new Date(user.expires_at) : null
  const at = input.at === undefined ? new Date() : new Date(input.at)
  const expired = expiresAt !== null && expiresAt.getTime() <= at.getTime()
  if (expired && (method || protocol === 'radius')) {
    return deny(say(protocol === 'radius' ? 'expired_radius' : 'expired_tacacs', { username: user.username, at: expiresAt.toISOString() }) + via)
  }
  // A directory user while no directory is set: refused by either daemon, a login or not (tac_plus-ng does not know them).
  if ((await db.loginMaterial(user.id))?.no_directory) {
    return deny(protocol === 'radius' ? say('no_directory_radius', { username: user.username }) + via : say('no_directory_tacacs', { username: user.username }))
  }
  if (method) {
    const refused = protocol === 'tacacs' && method === 'enable' ? null : loginRefusal(protocol, method, user, await db.loginMaterial(user.id), say)
    if (refused) return deny(say('login_refused', { method: METHOD_NAME[method], why: refused }) + via)
  }
  const decided = await decide(d, db, input, result, user, device, source, words)
  decided.reason += via
  if (expired) decided.reason += ` (${say('expired_session', { username: user.username, at: expiresAt.toISOString() })})`
  // rlm_expiration caps the session at the seconds left: its Session-Timeout comes before the profile's attributes.
  if (expiresAt && protocol === 'radius' && decided.decision === 'permit') {
    decided.attributes.unshift({ name: 'Session-Timeout', value: String(Math.floor(expiresAt.getTime() / 1000) - Math.floor(at.getTime() / 1000)) })
  }
  return decided
}

/** The ruleset's part: the rules in order, then the matched rule's profile. */
async function decide(d: EvaluateDeps, db: PolicyData, input: PolicyTestInput, result: PolicyTestResult, user: UserRow, device: Device, source: string, words: TraceWords | undefined): Promise<PolicyTestResult> {
  const protocol = input.protocol
  const trace = result.trace
  const deny = (reason: string): PolicyTestResult => Object.assign(result, { decision: 'deny' as const, reason })
  const say = (key: string, vars?: Record<string, unknown>) => (words ?? ENGLISH_TRACE).say(`aaa-policy:verdict.${key}`, vars)

  // One after another: a transaction is one connection, which takes one query at a time.
  const groupIds = new Set(await db.groupIdsOf(user.id))
  const deviceGroups = new Set(await db.deviceGroupIds(device.id))
  const rules = await db.listRules()
  // The walk and its trace: services/first-match.ts (the parts of each step that do not depend on the request are prepared once per list).
  const at = input.at === undefined ? new Date() : new Date(input.at)
  const matched = firstMatch(rules, user, device, groupIds, deviceGroups, trace, { at, source: sourcePrefix(source), sourceText: source, relevantOnly: input.trace === 'relevant', words })
  result.rules_tried = matched ? rules.indexOf(matched) + 1 : rules.length
  if (!matched) return deny(say('no_rule'))
  result.matched_rule = { id: matched.id, name: matched.name, position: matched.position }

  const profileId = protocol === 'tacacs' ? matched.tacacs_profile_id : matched.radius_profile_id
  if (!profileId) return deny(say('no_profile', { rule: matched.name, protocol: PROTOCOL[protocol] }))
  return protocol === 'tacacs' ? permitTacacs(d, db, input, result, matched, profileId, say, words) : permitRadius(db, result, matched, profileId, say)
}

/** `say`: a decision sentence (locales verdict-en.ts) in the caller's language. */
type SayVerdict = (key: string, vars?: Record<string, unknown>) => string

async function permitTacacs(d: EvaluateDeps, db: PolicyData, input: PolicyTestInput, result: PolicyTestResult, rule: PolicyRuleView, profileId: string, say: SayVerdict, words: TraceWords | undefined): Promise<PolicyTestResult> {
  const tacacs = d.tacacs
  const profile = tacacs ? await db.tacacsProfile(profileId) : null
  // The profile's delete clears it from the rules in the same transaction, so this only happens in a
  // race with its deletion (or, without the tacacs plugin, never: the route refuses the protocol).
  if (!tacacs || !profile) return Object.assign(result, { decision: 'deny' as const, reason: say('no_profile', { rule: rule.name, protocol: 'TACACS+' }) })
  result.profile = { type: 'tacacs', id: profile.id, name: profile.name }
  if (input.method === 'enable') {
    const refused = enableRefusal(profile, result.user!, profile.enable_mode === 'login' ? (await db.loginMaterial(result.user!.id)) !== null : undefined, say)
    if (refused) return Object.assign(result, { decision: 'deny' as const, reason: say('enable_refused', { rule: rule.name, profile: profile.name, why: refused }) })
  }
  const service = input.service ?? 'shell'
  // The rendered profile answers service shell (priv-lvl and attributes at the shell's start, then the
  // command sets) and each of its services (their attributes, permit; compared case-sensitively, as
  // tac_plus-ng's `service ==` does); for any other service its script gives no verdict: deny.
  if (service !== 'shell') {
    const svc = profile.services.find((s) => s.service === service)
    if (!svc) {
      const answers = ['shell', ...profile.services.map((s) => s.service)].join(', ')
      return Object.assign(result, { decision: 'deny' as const, reason: say('service_not_answered', { rule: rule.name, profile: profile.name, services: answers, service }) })
    }
    result.attributes = avPairs(svc.attributes)
    return withReply(tacacs, input, result, profile, say('tacacs_permit_service', { rule: rule.name, service, profile: profile.name }), say)
  }
  result.attributes = [{ name: 'priv-lvl', value: String(profile.privilege_level) }, ...avPairs(profile.shell_attributes)]
  if (input.command !== undefined) {
    // The caller's language for the command's reason; English is the tacacs plugin's own default (ENGLISH_TRACE holds this plugin's words only).
    result.command_decision = await db.authorizeCommand(profile, input.command, input.priv_lvl, words && words !== ENGLISH_TRACE ? words.say : undefined)
    // tac_plus-ng answers a shell command from the profile's verdict alone: PASS_ADD without pairs, or FAIL.
    if (input.method !== 'enable') result.authorization_reply = { status: result.command_decision.decision === 'permit' ? 'pass_add' : 'fail', attributes: [] }
    return Object.assign(result, { decision: 'permit' as const, reason: say('tacacs_permit', { rule: rule.name, profile: profile.name }) })
  }
  return withReply(tacacs, input, result, profile, say('tacacs_permit', { rule: rule.name, profile: profile.name }), say)
}

async function permitRadius(db: PolicyData, result: PolicyTestResult, rule: PolicyRuleView, profileId: string, say: SayVerdict): Promise<PolicyTestResult> {
  const profile = await db.radiusProfile(profileId)
  if (!profile) return Object.assign(result, { decision: 'deny' as const, reason: say('no_profile', { rule: rule.name, protocol: 'RADIUS' }) })
  result.profile = { type: 'radius', id: profile.id, name: profile.name }
  result.attributes = profile.attributes.map((a) => ({ name: a.name, value: a.value }))
  return Object.assign(result, { decision: 'permit' as const, reason: say('radius_accept', { rule: rule.name, profile: profile.name }) })
}
