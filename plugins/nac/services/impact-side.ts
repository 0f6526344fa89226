/**
 * One side of the NAC change impact (the deployed release's inputs, or the database now): the
 * lookups the tree makes, in memory, and the evaluation of a logged request on them with the policy
 * test's own account check (services/account.ts accountRefusal) and the batch form of its evaluator
 * (services/impact-match.ts, proven equal to evaluateNacPolicy). Pure: no database, no clock but the `at` it is given, so the bench and the property tests call it
 * as the route does.
 *
 * What the log does not keep is never guessed: a rule reached that tests a certificate field
 * (EAP-TLS: the log keeps the Common-Name only), or a time window when the request was seen at
 * several times, makes the outcome `unknown` with the reason; the caller counts it unreplayable.
 */
import type { CompiledNacPolicy, ImpactOutcome, NacMethod, NacReplyAttribute, Say } from '../../../sdk/index.js'
import { ENGLISH } from './evaluate.js'
import { accountRefusal, withExpiry, type NacAccount } from './account.js'
import { policyMatcher, type MatchInput, type Unknown } from './impact-match.js'
import { accountOf, refusedAccountOf, type NacInputs } from './impact-inputs.js'

export type { Unknown }

/** What a logged request resolves to on one side. */
export interface Resolved {
  method: NacMethod
  mac: string | null
  /** The user the request names (PEAP inner identity, EAP-TLS certificate CN), as logged. */
  named: string | null
  account: NacAccount | null
  user_group_ids: readonly string[]
  endpoint_group_ids: readonly string[]
  device_type: string | null
  client: NacInputs['clients'][number] | null
  /** The client's device groups, ancestors included (none without a client). */
  device_group_ids: readonly string[]
  nas_port_type: string | null
  /** The request's local time when the log fixes it (seen once), else null. */
  local_time: { day: number; minute: number } | null
}

/** A prefix of a client address as two bigints (network, mask), IPv4 mapped into IPv6 space. */
interface Prefix {
  net: bigint
  mask: bigint
  len: number
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/
const FULL = (1n << 128n) - 1n

function v4(s: string): bigint | null {
  const m = V4.exec(s)
  if (!m) return null
  const b = m.slice(1).map(Number)
  if (b.some((x) => x > 255)) return null
  return (0xffffn << 32n) | BigInt(((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0)
}

function v6(s: string): bigint | null {
  const [head, tail, more] = s.split('::')
  if (more !== undefined) return null
  const part = (x: string | undefined) => (x ? x.split(':') : [])
  let h = part(head)
  let t = tail === undefined ? [] : part(tail)
  // A dotted IPv4 tail (::ffff:10.0.0.1).
  const last = (tail === undefined ? h : t).at(-1)
  if (last && last.includes('.')) {
    const x = v4(last)
    if (x === null) return null
    const lo = x & 0xffffffffn
    const words = [((lo >> 16n) & 0xffffn).toString(16), (lo & 0xffffn).toString(16)]
    if (tail === undefined) h = [...h.slice(0, -1), ...words]
    else t = [...t.slice(0, -1), ...words]
  }
  const fill = tail === undefined ? 0 : 8 - h.length - t.length
  if (fill < 0 || (tail === undefined && h.length !== 8)) return null
  const words = [...h, ...Array(fill).fill('0'), ...t]
  let n = 0n
  for (const w of words) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null
    n = (n << 16n) | BigInt(parseInt(w, 16))
  }
  return n
}

/** An address as a 128-bit number (IPv4 as ::ffff:a.b.c.d, as FreeRADIUS and PostgreSQL compare a mapped address), or null. */
export function addressBits(s: string): bigint | null {
  return s.includes(':') ? v6(s) : v4(s)
}

function prefixOf(address: string): Prefix | null {
  const [a, l] = address.split('/')
  const bits = addressBits(a)
  if (bits === null) return null
  const v4len = !a.includes(':')
  const len = l === undefined ? 128 : Number(l) + (v4len ? 96 : 0)
  if (!Number.isInteger(len) || len < 0 || len > 128) return null
  const mask = len === 0 ? 0n : (FULL << BigInt(128 - len)) & FULL
  return { net: bits & mask, mask, len }
}

/** FreeRADIUS's client match: the most specific client prefix holding the packet's source address. */
export function clientMatcher(clients: NacInputs['clients']): (ip: string) => NacInputs['clients'][number] | null {
  const byLen = new Map<number, { mask: bigint; nets: Map<bigint, NacInputs['clients'][number]> }>()
  for (const c of clients) {
    const p = prefixOf(c.address)
    if (!p) continue
    let e = byLen.get(p.len)
    if (!e) byLen.set(p.len, (e = { mask: p.mask, nets: new Map() }))
    // The first by name wins a tie, as the sorted clients.conf is read.
    if (!e.nets.has(p.net)) e.nets.set(p.net, c)
  }
  const lens = [...byLen.keys()].sort((a, b) => b - a)
  const memo = new Map<string, NacInputs['clients'][number] | null>()
  return (ip) => {
    const hit = memo.get(ip)
    if (hit !== undefined) return hit
    const bits = addressBits(ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1'))
    let found: NacInputs['clients'][number] | null = null
    if (bits !== null)
      for (const len of lens) {
        const e = byLen.get(len)!
        const c = e.nets.get(bits & e.mask)
        if (c) {
          found = c
          break
        }
      }
    memo.set(ip, found)
    return found
  }
}

/** The tree's Calling-Station-Id rewrite (renderers/nac-site.ts): six hex pairs, each optionally separated by `-`, `:` or `.`, lower-cased. */
const MAC_RE = /^([0-9a-f]{2})[-:.]?([0-9a-f]{2})[-:.]?([0-9a-f]{2})[-:.]?([0-9a-f]{2})[-:.]?([0-9a-f]{2})[-:.]?([0-9a-f]{2})$/i
export function treeMac(callingStationId: string | null): string | null {
  const m = callingStationId === null ? null : MAC_RE.exec(callingStationId)
  return m ? m.slice(1, 7).join(':').toLowerCase() : null
}

/** Inputs with nothing in them (no release deployed). */
export const NO_INPUTS: NacInputs = {
  format: 1,
  policy: { rules: [], default: { id: '', name: '', authorization: { profile_id: '', profile_name: '', deny: true, reply: [] } } },
  endpoints: [],
  users: [],
  refused: [],
  clients: [],
}

const NONE: readonly string[] = Object.freeze([])
const deny = (reason: string): ImpactOutcome => ({ decision: 'deny', rule: null, profile: null, attributes: [], command_line: null, reason })

/** One side's lookups, built once per replay. */
export class ImpactSide {
  readonly policy: CompiledNacPolicy
  readonly clientFor: (ip: string) => NacInputs['clients'][number] | null
  private readonly endpoints: Map<string, NacInputs['endpoints'][number]>
  private readonly exact = new Map<string, NacAccount & { group_ids: readonly string[] }>()
  private readonly caseless = new Map<string, NacAccount & { group_ids: readonly string[] }>()
  private readonly first: (r: MatchInput) => number | Unknown
  private readonly outcomes = new Map<number | string, ImpactOutcome>()

  /**
   * `nothingDeployed`: no release of FreeRADIUS is active, every request is compared against a refusal.
   * `say`: the words of the reasons, English by default; the route passes PHRASE_SAY (sdk/phrase-text.ts)
   * and the report says them in the reader's language when it answers.
   */
  constructor(
    readonly inputs: NacInputs,
    private readonly nothingDeployed = false,
    private readonly say: Say = ENGLISH,
  ) {
    this.policy = inputs.policy
    this.clientFor = clientMatcher(inputs.clients)
    this.endpoints = new Map(inputs.endpoints.map((e) => [e.mac, e]))
    // nac-users: the network users first, then the refused ones; one entry per lower-cased name.
    for (const u of inputs.users) this.put({ ...accountOf(u), group_ids: u.group_ids })
    for (const r of inputs.refused) this.put({ ...refusedAccountOf(r), group_ids: [] })
    this.first = policyMatcher(this.policy)
  }

  private put(a: NacAccount & { group_ids: readonly string[] }) {
    if (!this.exact.has(a.username)) this.exact.set(a.username, a)
    const k = a.username.toLowerCase()
    if (!this.caseless.has(k)) this.caseless.set(k, a)
  }

  /** The request as this side's tree sees it. `named`: the logged NAC user; `mac` already in the tree's form. */
  resolve(method: NacMethod, named: string | null, mac: string | null, nasIp: string | null, nasPortType: string | null, localTime: Resolved['local_time']): Resolved {
    // PEAP: the inner identity exactly (the inner tunnel's lookup); EAP-TLS: the CN in any case (nac-users by lower-cased name).
    const found = named === null || method === 'mab' ? null : method === 'peap' ? (this.exact.get(named) ?? null) : (this.caseless.get(named.toLowerCase()) ?? null)
    const e = mac === null ? undefined : this.endpoints.get(mac)
    const client = nasIp === null ? null : this.clientFor(nasIp)
    return {
      method,
      mac,
      named,
      account: found,
      user_group_ids: found?.group_ids ?? NONE,
      endpoint_group_ids: e?.endpoint_group_ids ?? NONE,
      device_type: e?.device_type ?? null,
      client,
      device_group_ids: client?.device_group_ids ?? NONE,
      nas_port_type: nasPortType,
      local_time: localTime,
    }
  }

  /**
   * The outcome, as the tree would answer (deny for a packet no client takes, or an account refused
   * before the policy), or what the log does not tell. The policy's part is the batch matcher
   * (services/impact-match.ts); the outcome of each rule is built once (per account expiry).
   */
  outcome(r: Resolved, at: Date): ImpactOutcome | Unknown {
    if (this.nothingDeployed) return deny(this.say('nac:impact_reason.nothing_deployed'))
    if (!r.client) return deny(this.say('nac:impact_reason.no_client'))
    const refused = accountRefusal(r.method, r.named, r.account, at, this.say)
    if (refused) return deny(this.say('nac:impact_reason.refused', { reason: refused.reason, detail: refused.detail }))
    const i = this.first(r)
    if (typeof i === 'string') return i
    const expiry = r.account?.expires_at ?? null
    const key = expiry === null ? i : `${i}\u0000${expiry}`
    let o = this.outcomes.get(key)
    if (!o) this.outcomes.set(key, (o = this.ruleOutcome(i, r.account, at)))
    return o
  }

  private ruleOutcome(i: number, account: NacAccount | null, at: Date): ImpactOutcome {
    const rule = i < 0 ? null : this.policy.rules[i]
    const a = rule ? rule.authorization : this.policy.default.authorization
    const position = rule ? rule.position : this.policy.rules.length + 1
    const d = rule ?? this.policy.default
    const reply: NacReplyAttribute[] = a.deny ? [] : withExpiry(a.reply, account, at)
    return {
      decision: a.deny ? 'deny' : 'permit',
      rule: { id: d.id, name: d.name, position },
      profile: { id: a.profile_id, name: a.profile_name },
      attributes: reply.map((x) => ({ name: x.attribute, value: x.value })),
      command_line: null,
      reason: rule ? this.say('nac:impact_reason.rule_holds', { position, name: JSON.stringify(rule.name) }) : this.say('nac:impact_reason.default_rule'),
    }
  }
}
