/**
 * A rule's optional conditions beyond WHO and WHERE, checked by the API, handed to the renderers
 * in the rule view (sdk/policy.ts) and evaluated by the policy test (first-match.ts):
 *
 * - a time window: days of the week and a start and end time of day, to the minute, in the local
 *   time of the host the daemons run on (both take the time from localtime(3): TZ, else
 *   /etc/localtime). `start` is inclusive, `end` exclusive: 08:00-18:00 holds from 08:00:00 to
 *   17:59:59; `end` 24:00 is the end of the day. A window whose end is not after its start crosses
 *   midnight: `days` are the days it starts on, and it runs on into the next day's early hours
 *   (Fri 22:00-06:00 holds Friday 22:00 to Saturday 05:59). Start equal to end is refused: it would
 *   be either nothing or the whole day, and both have a clearer spelling;
 * - client prefixes: the request's source (the NAS's) address must be inside one of them; IPv4 or
 *   IPv6 CIDR, a single address without a length. Host bits set after the length are refused, as for
 *   device addresses (`10.1.2.3/16` is far more often a typo than the /16).
 */
import net from 'node:net'
import { phrase, type Phrase } from '../../../sdk/index.js'

// The time window's rules moved to the SDK (sdk/time-window.ts) when the NAC policy needed them too.
export { DAYS, inTimeWindow, timeWindowProblem, toPolicyWindow, type Day, type StoredTimeWindow } from '../../../sdk/index.js'

export const MAX_CLIENT_PREFIXES = 32

export interface Prefix {
  family: 4 | 6
  value: bigint
  length: number
}

const BITS = { 4: 32, 6: 128 } as const
const mask = (family: 4 | 6, length: number) => {
  const bits = BigInt(BITS[family])
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(length))) - 1n)
}

function addressValue(addr: string, family: 4 | 6): bigint {
  if (family === 4) return addr.split('.').reduce((v, o) => (v << 8n) | BigInt(Number(o)), 0n)
  // net.isIPv6 has accepted it: expand `::` and a dotted-quad tail.
  let text = addr
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (quad) {
    const v = addressValue(quad[1], 4)
    text = text.slice(0, -quad[1].length) + `${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null]
  const h = head ? head.split(':') : []
  const t = tail === null ? [] : tail ? tail.split(':') : []
  const groups = tail === null ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t]
  return groups.reduce((v, g) => (v << 16n) | BigInt(parseInt(g, 16)), 0n)
}

function formatAddress(p: Prefix): string {
  if (p.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((p.value >> s) & 0xffn)).join('.')
  const hex = p.value.toString(16).padStart(32, '0').replace(/(.{4})(?!$)/g, '$1:')
  // inet_ntop's form (RFC 5952: lower case, the longest zero run as ::).
  return new net.SocketAddress({ address: hex, family: 'ipv6' }).address
}

export const formatPrefix = (p: Prefix) => `${formatAddress(p)}/${p.length}`

/** `reason`: a phrase of the plugin's catalogue (`condition_reason`), rendered in the caller's language with the error. */
export type PrefixParse = { ok: true; prefix: Prefix; text: string } | { ok: false; reason: Phrase }

const why = (key: string, vars: Record<string, unknown>) => phrase(`aaa-policy:condition_reason.${key}`, vars)

/** A client prefix as the API takes it: canonical text, or why not. */
export function parseClientPrefix(text: string): PrefixParse {
  const slash = text.indexOf('/')
  const addr = slash < 0 ? text : text.slice(0, slash)
  const family = net.isIPv4(addr) ? 4 : net.isIPv6(addr) && !addr.includes('%') ? 6 : null
  if (family === null) return { ok: false, reason: why('not_prefix', { text: JSON.stringify(text) }) }
  const lenText = slash < 0 ? String(BITS[family]) : text.slice(slash + 1)
  if (!/^(0|[1-9][0-9]{0,2})$/.test(lenText) || Number(lenText) > BITS[family]) {
    return { ok: false, reason: why('prefix_length', { text: JSON.stringify(text), bits: BITS[family] }) }
  }
  const value = addressValue(addr, family)
  const length = Number(lenText)
  if (family === 6 && value >> 32n === 0xffffn) return { ok: false, reason: why('mapped', { text: JSON.stringify(text) }) }
  const network = value & mask(family, length)
  if (network !== value) {
    return { ok: false, reason: why('host_bits', { text: JSON.stringify(text), length, network: formatPrefix({ family, value: network, length }), bits: BITS[family] }) }
  }
  const prefix = { family, value, length } as Prefix
  return { ok: true, prefix, text: formatPrefix(prefix) }
}

/**
 * A source address or a device's prefix (`10.1.2.3`, `10.1.2.0/24`) as a prefix; an IPv4-mapped
 * IPv6 address is its IPv4 address (the daemons see such a client as IPv4). Null if unreadable.
 */
export function sourcePrefix(text: string): Prefix | null {
  const slash = text.indexOf('/')
  const addr = slash < 0 ? text : text.slice(0, slash)
  const family = net.isIPv4(addr) ? 4 : net.isIPv6(addr) ? 6 : null
  if (family === null) return null
  let p: Prefix = { family, value: addressValue(addr, family), length: slash < 0 ? BITS[family] : Number(text.slice(slash + 1)) }
  if (p.family === 6 && p.length >= 96 && p.value >> 32n === 0xffffn) p = { family: 4, value: p.value & 0xffffffffn, length: p.length - 96 }
  return p
}

/** Whether every address of `inner` is inside `outer`. */
export const prefixContains = (outer: Prefix, inner: Prefix) =>
  outer.family === inner.family && inner.length >= outer.length && (inner.value & mask(outer.family, outer.length)) === outer.value
