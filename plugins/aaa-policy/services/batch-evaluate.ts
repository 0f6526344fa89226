/**
 * The policy test's evaluator (services/evaluate.ts `evaluateWith`) over one `PolicyInputs`, in memory
 * and synchronous, for the change-impact replay: a million distinct requests evaluated twice
 * (deployed, pending) cannot each walk 5,000 rules and await a dozen reads.
 *
 * - the rules a user can match (WHO: anyone, the user, a group of theirs) are indexed by user, then
 *   narrowed by device (WHERE), memoized per user and per user+device; only the conditions that
 *   depend on the request (client prefix, time window) are checked per request, in rule order;
 * - the device of an address (most specific enabled prefix, as the inventory's `>>=` / masklen) is
 *   memoized per address;
 * - a command's decision is memoized per profile, line and privilege level.
 *
 * Same answers as `evaluateWith` on the same inputs, reasons included (the trace is left empty):
 * test/batch-evaluate-check.ts (run by impact.test.ts) checks it on random policies and requests. Change both together.
 */
import { isIP } from 'node:net'
import type { Device } from '../../inventory/api.js'
import type { RadiusProfile } from '../../radius/api.js'
import type { CommandDecision, CommandSet, TacacsProfile, TacacsService } from '../../tacacs/api.js'
import type { PolicyRuleView } from '../api.js'
import type { Say } from '../../../sdk/index.js'
import type { METHODS } from '../schemas/test.js'
import { inTimeWindow, parseClientPrefix, prefixContains, sourcePrefix, type Prefix } from './conditions.js'
import type { PolicyInputs } from './deployed-inputs.js'
import type { PolicyTestInput, PolicyTestResult } from './evaluate.js'
import type { LoginMaterial } from './policy-data.js'
import { ENGLISH_TRACE } from './first-match.js'
import { avPairs, enableRefusal, loginRefusal, METHOD_NAME, PROTOCOL, withReply, type SayVerdict } from './verdict-parts.js'


type Method = (typeof METHODS)[number]
type InputUser = PolicyInputs['users'][number]
interface User {
  id: string
  username: string
  enabled: boolean
  network_login: boolean
  expires_at: string | null
}

const BITS = { 4: 32, 6: 128 } as const

/** A mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 one, as the inventory reads it (deployed-inputs.ts). */
const host = (ip: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip

/** An address or prefix as PostgreSQL's inet reads it (no IPv4-mapped folding beyond `host`). */
function inetOf(text: string): Prefix | null {
  const p = sourcePrefix(text)
  if (!p) return null
  if (p.family === 4 && text.includes(':')) return { family: 6, value: (0xffffn << 32n) | p.value, length: p.length + 96 }
  return p
}

interface PreparedRule {
  index: number
  rule: PolicyRuleView
  prefixes: Prefix[] | null
}

/** What the evaluators of one report share (the command decisions of profiles alike on both sides). */
export interface BatchShared {
  commands: Map<string, CommandDecision>
  fingerprints: Map<string, number>
}
export const batchShared = (): BatchShared => ({ commands: new Map(), fingerprints: new Map() })

export interface BatchEvaluator {
  evaluate(input: PolicyTestInput): PolicyTestResult
  /** The user's login material in these inputs (a directory user: `directory`). */
  loginOf(username: string): LoginMaterial | null
  /**
   * The devices an address is answered as (memoized): the most specific enabled device, and the most
   * specific enabled one with a RADIUS secret (FreeRADIUS's wider client); ids, null for none.
   */
  devicesAt(address: string): [string | null, string | null]
}

/**
 * `refusedIds`: the account id now of each refused user (lower-case name), as `snapshotPolicyData`
 * reads it from the database at each request; absent: the account is gone (unknown user).
 */
export function batchEvaluator(inputs: PolicyInputs, d: { tacacs: TacacsService | undefined }, refusedIds: ReadonlyMap<string, string>, shared?: BatchShared, words: Say = ENGLISH_TRACE.say): BatchEvaluator {
  // The reasons: the policy test's catalogue, in English by default; the impact report passes
  // PHRASE_SAY (sdk/phrase-text.ts) and says them in the reader's language when it answers.
  // A command's reason: the tacacs plugin's own English unless other words are given (as evaluate.ts).
  const say: SayVerdict = (key, vars) => words(`aaa-policy:verdict.${key}`, vars)
  const commandWords = words === ENGLISH_TRACE.say ? undefined : words
  const devices = new Map(inputs.devices.map((x): [string, Device] => [x.id, { ...x, vendor: null, model: null, description: null, created_at: '', updated_at: '' }]))
  const deviceList = [...devices.values()].map((x) => ({ device: x, inet: inetOf(x.address) }))
  const parent = new Map(inputs.device_groups.map((g) => [g.id, g.parent_id]))
  const users = new Map(inputs.users.map((u) => [u.username.toLowerCase(), u]))
  const byId = new Map<string, InputUser>(inputs.users.map((u) => [u.id, u]))
  const refused = new Map(inputs.refused.map((r) => [r.username.toLowerCase(), r]))
  const tacacsProfiles = new Map(inputs.tacacs_profiles.map((p) => [p.id, { ...p, created_at: '', updated_at: '' } as TacacsProfile]))
  const sets = new Map(inputs.command_sets.map((s) => [s.id, { ...s, created_at: '', updated_at: '' } as CommandSet]))
  const radiusProfiles = new Map(inputs.radius_profiles.map((p) => [p.id, { ...p, created_at: '', updated_at: '' } as RadiusProfile]))
  const rules = inputs.rules as PolicyRuleView[]

  // WHO index: the enabled rules for anyone, per user, per group (rule order kept by index).
  const prepared: PreparedRule[] = rules.map((rule, index) => ({
    index,
    rule,
    prefixes: rule.client_prefixes?.length ? rule.client_prefixes.flatMap((t) => (p => (p.ok ? [p.prefix] : []))(parseClientPrefix(t))) : null,
  }))
  const anyone: PreparedRule[] = []
  const byUser = new Map<string, PreparedRule[]>()
  const byGroup = new Map<string, PreparedRule[]>()
  const push = <K>(m: Map<K, PreparedRule[]>, k: K, p: PreparedRule) => (m.get(k) ?? m.set(k, []).get(k)!).push(p)
  for (const p of prepared) {
    if (!p.rule.enabled) continue
    if (p.rule.who.type === 'any') anyone.push(p)
    else if (p.rule.who.type === 'user') push(byUser, p.rule.who.user_id, p)
    else push(byGroup, p.rule.who.group_id, p)
  }
  const forUser = new Map<string, PreparedRule[]>()
  const candidatesOfUser = (userId: string): PreparedRule[] => {
    let out = forUser.get(userId)
    if (!out) {
      out = [...anyone, ...(byUser.get(userId) ?? [])]
      for (const g of new Set(byId.get(userId)?.group_ids ?? [])) out.push(...(byGroup.get(g) ?? []))
      out.sort((a, b) => a.index - b.index)
      forUser.set(userId, out)
    }
    return out
  }
  const deviceGroupsOf = (deviceId: string): string[] => {
    const out: string[] = []
    for (let g = devices.get(deviceId)?.device_group_id ?? null; g && parent.has(g) && !out.includes(g); g = parent.get(g) ?? null) out.push(g)
    return out
  }
  const forPair = new Map<string, PreparedRule[]>()
  const candidates = (userId: string, device: Device): PreparedRule[] => {
    const key = `${userId}\u0000${device.id}`
    let out = forPair.get(key)
    if (!out) {
      const groups = new Set(deviceGroupsOf(device.id))
      out = candidatesOfUser(userId).filter(({ rule: { where } }) => where.type === 'any' || (where.type === 'device' ? where.device_id === device.id : groups.has(where.device_group_id)))
      if (forPair.size > 500_000) forPair.clear()
      forPair.set(key, out)
    }
    return out
  }

  // Devices by family, prefix length and network (the first in list order wins a tie), longest first:
  // a lookup tries each length present once instead of walking every device.
  const prefixIndex = (radiusOnly: boolean) => {
    const byLength = new Map<string, Map<bigint, Device>>()
    for (const x of deviceList) {
      if (!x.device.enabled || (radiusOnly && !x.device.has_radius_secret) || !x.inet) continue
      const key = `${x.inet.family}/${x.inet.length}`
      const shift = BigInt(BITS[x.inet.family] - x.inet.length)
      let m = byLength.get(key)
      if (!m) byLength.set(key, (m = new Map()))
      const net = x.inet.value >> shift
      if (!m.has(net)) m.set(net, x.device)
    }
    return [...byLength.entries()].map(([k, m]) => ({ family: Number(k.split('/')[0]) as 4 | 6, length: Number(k.split('/')[1]), m })).sort((a, b) => b.length - a.length)
  }
  const indexes: (ReturnType<typeof prefixIndex> | null)[] = [null, null]
  const lookups = [new Map<string, Device | null>(), new Map<string, Device | null>()]
  const longestPrefix = (address: string, radiusOnly: boolean): Device | null => {
    const memo = lookups[radiusOnly ? 1 : 0]
    const hit = memo.get(address)
    if (hit !== undefined) return hit
    let found: Device | null = null
    const a = host(address)
    const target = isIP(a.split('/')[0]) ? inetOf(a) : null
    if (target) {
      const index = (indexes[radiusOnly ? 1 : 0] ??= prefixIndex(radiusOnly))
      for (const level of index) {
        if (level.family !== target.family || level.length > target.length) continue
        const d = level.m.get(target.value >> BigInt(BITS[level.family] - level.length))
        if (d) {
          found = d
          break
        }
      }
    }
    if (memo.size > 100_000) memo.clear()
    memo.set(address, found)
    return found
  }

  const findUser = (username: string): User | null => {
    const u = users.get(username.toLowerCase())
    if (u) return { id: u.id, username: u.username, enabled: true, network_login: true, expires_at: u.expires_at ?? null }
    const r = refused.get(username.toLowerCase())
    const id = r ? refusedIds.get(r.username.toLowerCase()) : undefined
    return r && id ? { id, username: r.username, enabled: r.reason !== 'disabled', network_login: r.reason !== 'network_login_off', expires_at: null } : null
  }
  const loginMaterial = (userId: string): LoginMaterial | null => byId.get(userId)?.login ?? null

  // A profile's decisions depend on its level, default and sets only: keyed by their content, so the
  // deployed and the pending side share them while the profile is unchanged (most of a policy).
  const commandMemo = shared?.commands ?? new Map<string, CommandDecision>()
  const fingerprints = shared?.fingerprints ?? new Map<string, number>()
  const profileKeys = new Map<string, number>()
  const profileKey = (profile: TacacsProfile): number => {
    let k = profileKeys.get(profile.id)
    if (k === undefined) {
      const text = JSON.stringify([profile.privilege_level, profile.default_action, profile.command_set_ids.map((id) => sets.get(id) ?? null)])
      k = fingerprints.get(text)
      if (k === undefined) fingerprints.set(text, (k = fingerprints.size))
      profileKeys.set(profile.id, k)
    }
    return k
  }
  const authorizeCommand = (profile: TacacsProfile, line: string, privLvl: number | undefined): CommandDecision => {
    const key = `${profileKey(profile)}\u0000${privLvl ?? ''}\u0000${line}`
    let out = commandMemo.get(key)
    if (!out) {
      const list = profile.command_set_ids.map((id) => sets.get(id)).filter((s): s is CommandSet => s !== undefined)
      out = d.tacacs!.decideCommand(profile, list, line, privLvl, commandWords)
      if (commandMemo.size > 1_000_000) commandMemo.clear()
      commandMemo.set(key, out)
    }
    return out
  }

  function evaluateRules(input: PolicyTestInput): PolicyTestResult {
    const protocol = input.protocol
    const method: Method | null = input.method ?? (protocol === 'radius' ? 'pap' : null)
    const result: PolicyTestResult = { decision: 'deny', reason: '', user: null, device: null, matched_rule: null, profile: null, attributes: [], method, command_decision: null, authorization_reply: null, rules_tried: 0, trace: [] }
    const deny = (reason: string): PolicyTestResult => Object.assign(result, { decision: 'deny' as const, reason })
    const user = findUser(input.username)
    if (!user) return deny(say('unknown_user', { username: input.username }))
    if (user.username !== input.username) return deny(say('unknown_case', { username: input.username, account: user.username }))
    result.user = { id: user.id, username: user.username }
    if (!user.enabled) return deny(say('user_disabled', { username: user.username }))
    if (!user.network_login) return deny(say('network_login_off', { username: user.username }))

    let device = input.device_id ? (devices.get(input.device_id) ?? null) : longestPrefix(input.nas_ip!, false)
    const source = input.nas_ip ?? device?.address ?? ''
    let via = ''
    if (device && protocol === 'radius' && (!device.enabled || !device.has_radius_secret)) {
      const client = longestPrefix(input.nas_ip ?? device.address, true)
      if (client) {
        via = ` (${say(device.enabled ? 'wider_client_no_secret' : 'wider_client_disabled', { device: device.name, address: input.nas_ip ?? say('its_address'), client: client.name })})`
        device = client
      }
    }
    if (!device) return deny(input.device_id ? say('no_device_id', { id: input.device_id }) : say('no_device_address', { address: input.nas_ip }))
    result.device = { id: device.id, name: device.name, address: device.address }
    if (!device.enabled) return deny(say('device_disabled', { device: device.name }))
    if (protocol === 'tacacs' && !device.has_tacacs_key) return deny(say('no_tacacs_key', { device: device.name }))
    if (protocol === 'radius' && !device.has_radius_secret) return deny(say('no_radius_secret', { device: device.name }))
    const expiresAt = user.expires_at ? new Date(user.expires_at) : null
    const at = input.at === undefined ? new Date() : new Date(input.at)
    const expired = expiresAt !== null && expiresAt.getTime() <= at.getTime()
    if (expired && (method || protocol === 'radius')) {
      return deny(say(protocol === 'radius' ? 'expired_radius' : 'expired_tacacs', { username: user.username, at: expiresAt.toISOString() }) + via)
    }
    if (loginMaterial(user.id)?.no_directory) {
      return deny(protocol === 'radius' ? say('no_directory_radius', { username: user.username }) + via : say('no_directory_tacacs', { username: user.username }))
    }
    if (method) {
      const refusedWhy = loginRefusal(protocol, method, user, loginMaterial(user.id), say)
      if (refusedWhy) return deny(say('login_refused', { method: METHOD_NAME[method], why: refusedWhy }) + via)
    }
    const decided = decide(input, result, user, device, source, at)
    decided.reason += via
    if (expired) decided.reason += ` (${say('expired_session', { username: user.username, at: expiresAt.toISOString() })})`
    if (expiresAt && protocol === 'radius' && decided.decision === 'permit') {
      decided.attributes.unshift({ name: 'Session-Timeout', value: String(Math.floor(expiresAt.getTime() / 1000) - Math.floor(at.getTime() / 1000)) })
    }
    return decided
  }

  function decide(input: PolicyTestInput, result: PolicyTestResult, user: User, device: Device, source: string, at: Date): PolicyTestResult {
    const protocol = input.protocol
    const deny = (reason: string): PolicyTestResult => Object.assign(result, { decision: 'deny' as const, reason })
    // Parsed only when a candidate rule has client prefixes (few do).
    let from: Prefix | null | undefined
    let matched: PolicyRuleView | null = null
    for (const p of candidates(user.id, device)) {
      if (p.prefixes !== null) {
        if (from === undefined) from = sourcePrefix(source)
        const f = from
        if (!(f && p.prefixes.some((q) => prefixContains(q, f)))) continue
      }
      if (p.rule.time_window && !inTimeWindow(p.rule.time_window, at)) continue
      matched = p.rule
      result.rules_tried = p.index + 1
      break
    }
    if (!matched) {
      result.rules_tried = rules.length
      return deny(say('no_rule'))
    }
    result.matched_rule = { id: matched.id, name: matched.name, position: matched.position }
    const profileId = protocol === 'tacacs' ? matched.tacacs_profile_id : matched.radius_profile_id
    if (!profileId) return deny(say('no_profile', { rule: matched.name, protocol: PROTOCOL[protocol] }))
    return protocol === 'tacacs' ? permitTacacs(input, result, matched, profileId) : permitRadius(result, matched, profileId)
  }

  function permitTacacs(input: PolicyTestInput, result: PolicyTestResult, rule: PolicyRuleView, profileId: string): PolicyTestResult {
    const tacacs = d.tacacs
    const profile = tacacs ? (tacacsProfiles.get(profileId) ?? null) : null
    if (!tacacs || !profile) return Object.assign(result, { decision: 'deny' as const, reason: say('no_profile', { rule: rule.name, protocol: 'TACACS+' }) })
    result.profile = { type: 'tacacs', id: profile.id, name: profile.name }
    if (input.method === 'enable') {
      const refusedWhy = enableRefusal(profile, result.user!, profile.enable_mode === 'login' ? loginMaterial(result.user!.id) !== null : undefined, say)
      if (refusedWhy) return Object.assign(result, { decision: 'deny' as const, reason: say('enable_refused', { rule: rule.name, profile: profile.name, why: refusedWhy }) })
    }
    const service = input.service ?? 'shell'
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
      result.command_decision = authorizeCommand(profile, input.command, input.priv_lvl)
      if (input.method !== 'enable') result.authorization_reply = { status: result.command_decision.decision === 'permit' ? 'pass_add' : 'fail', attributes: [] }
      return Object.assign(result, { decision: 'permit' as const, reason: say('tacacs_permit', { rule: rule.name, profile: profile.name }) })
    }
    return withReply(tacacs, input, result, profile, say('tacacs_permit', { rule: rule.name, profile: profile.name }), say)
  }

  function permitRadius(result: PolicyTestResult, rule: PolicyRuleView, profileId: string): PolicyTestResult {
    const profile = radiusProfiles.get(profileId)
    if (!profile) return Object.assign(result, { decision: 'deny' as const, reason: say('no_profile', { rule: rule.name, protocol: 'RADIUS' }) })
    result.profile = { type: 'radius', id: profile.id, name: profile.name }
    result.attributes = profile.attributes.map((a) => ({ name: a.name, value: a.value }))
    return Object.assign(result, { decision: 'permit' as const, reason: say('radius_accept', { rule: rule.name, profile: profile.name }) })
  }

  return {
    evaluate(input) {
      const result = evaluateRules(input)
      if (result.user && result.rules_tried > 0 && loginMaterial(result.user.id)?.directory) {
        result.reason += `; ${say('directory_user', { username: result.user.username })}`
      }
      return result
    },
    loginOf(username) {
      const u = users.get(username.toLowerCase())
      return u ? u.login : null
    },
    devicesAt(address) {
      return [longestPrefix(address, false)?.id ?? null, longestPrefix(address, true)?.id ?? null]
    },
  }
}
