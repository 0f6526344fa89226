/**
 * Device addresses: an IPv4 or IPv6 address or prefix, parsed strictly and
 * written back in one canonical form, so that `10.0.0.1`, `10.0.0.1/32` and
 * `::ffff:10.0.0.1` are the same device address and two devices can never
 * hold the same prefix under two spellings.
 *
 * Parsing is ours rather than PostgreSQL's because a client deserves a 422
 * naming the field (and, for host bits, the network it probably meant), not a
 * database cast error.
 */

export interface Prefix {
  family: 4 | 6
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint
  /** Prefix length: 0–32 for IPv4, 0–128 for IPv6. */
  length: number
}

export type ParseResult =
  | { ok: true; prefix: Prefix; text: string }
  | { ok: false; reason: 'malformed' }
  /** A prefix with bits set after the mask (`10.1.2.3/16`): `network` is what was probably meant. */
  | { ok: false; reason: 'host_bits'; network: string }

const BITS = { 4: 32, 6: 128 } as const
const DECIMAL_OCTET = /^(0|[1-9][0-9]{0,2})$/
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/
const PREFIX_LENGTH = /^(0|[1-9][0-9]{0,2})$/
/** ::ffff:0:0/96, the IPv4-mapped IPv6 block: the same hosts as IPv4. */
const MAPPED_PREFIX = 0xffffn << 32n

/** Dotted quad, decimal only: a leading zero (`010`) reads as octal on some systems, so it is refused as ambiguous. */
function parseIPv4(s: string): bigint | null {
  const parts = s.split('.')
  if (parts.length !== 4) return null
  let v = 0n
  for (const p of parts) {
    if (!DECIMAL_OCTET.test(p)) return null
    const n = Number(p)
    if (n > 255) return null
    v = (v << 8n) | BigInt(n)
  }
  return v
}

/** RFC 4291 text: hex groups, one `::` at most, an optional dotted-quad tail. No zone (`%eth0`): devices are not link-scoped. */
function parseIPv6(s: string): bigint | null {
  if (s.includes('%')) return null
  const halves = s.split('::')
  if (halves.length > 2) return null
  const groupsOf = (part: string, last: boolean): number[] | null => {
    if (part === '') return []
    const items = part.split(':')
    const out: number[] = []
    for (const [i, item] of items.entries()) {
      if (last && i === items.length - 1 && item.includes('.')) {
        const v4 = parseIPv4(item)
        if (v4 === null) return null
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn))
      } else if (HEX_GROUP.test(item)) out.push(parseInt(item, 16))
      else return null
    }
    return out
  }
  let groups: number[]
  if (halves.length === 2) {
    const head = groupsOf(halves[0], false)
    const tail = groupsOf(halves[1], true)
    if (!head || !tail || head.length + tail.length > 7) return null
    groups = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  } else {
    const all = groupsOf(s, true)
    if (!all || all.length !== 8) return null
    groups = all
  }
  return groups.reduce((v, g) => (v << 16n) | BigInt(g), 0n)
}

const mask = (family: 4 | 6, length: number) => {
  const bits = BigInt(BITS[family])
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(length))) - 1n)
}

function formatIPv4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.')
}

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups (the first on a tie) as `::`. */
function formatIPv6(v: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(112 - 16 * i)) & 0xffffn))
  let best = { start: -1, len: 0 }
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > best.len) best = { start: i, len: j - i }
    i = j
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':')
  if (best.len < 2) return hex(groups)
  return `${hex(groups.slice(0, best.start))}::${hex(groups.slice(best.start + best.len))}`
}

/** The canonical text of a prefix: `10.1.0.0/16`, `10.0.0.1/32`, `2001:db8::/64`. */
export function formatPrefix(p: Prefix): string {
  return `${p.family === 4 ? formatIPv4(p.value) : formatIPv6(p.value)}/${p.length}`
}

/**
 * An IPv4-mapped IPv6 prefix (`::ffff:10.0.0.0/104`) names IPv4 hosts: the
 * daemons see those clients as IPv4, so it is stored and matched as IPv4.
 */
function unmap(p: Prefix): Prefix {
  if (p.family === 6 && p.length >= 96 && p.value >> 32n === MAPPED_PREFIX >> 32n) {
    return { family: 4, value: p.value & 0xffffffffn, length: p.length - 96 }
  }
  return p
}

/**
 * A device address: an address (a single host, /32 or /128) or a prefix in
 * CIDR form. A prefix with host bits set is refused rather than silently
 * widened: `10.1.2.3/16` is far more often a typo for `10.1.2.3/32` than a
 * request for the whole /16.
 */
export function parsePrefix(text: string): ParseResult {
  const slash = text.indexOf('/')
  const addr = slash < 0 ? text : text.slice(0, slash)
  const lenText = slash < 0 ? null : text.slice(slash + 1)
  const family: 4 | 6 | null = addr.includes(':') ? 6 : addr.includes('.') ? 4 : null
  if (family === null) return { ok: false, reason: 'malformed' }
  const value = family === 4 ? parseIPv4(addr) : parseIPv6(addr)
  if (value === null) return { ok: false, reason: 'malformed' }
  let length: number = BITS[family]
  if (lenText !== null) {
    if (!PREFIX_LENGTH.test(lenText)) return { ok: false, reason: 'malformed' }
    length = Number(lenText)
    if (length > BITS[family]) return { ok: false, reason: 'malformed' }
  }
  const network = value & mask(family, length)
  if (network !== value) return { ok: false, reason: 'host_bits', network: formatPrefix(unmap({ family, value: network, length })) }
  const prefix = unmap({ family, value, length })
  return { ok: true, prefix, text: formatPrefix(prefix) }
}

/**
 * A single host address, as a daemon sees a client (the NAS IP). A mapped
 * IPv6 address comes back as its IPv4 address. Null when it is not one
 * address (a prefix, a name, garbage).
 */
export function parseHost(text: string): string | null {
  if (text.includes('/')) return null
  const r = parsePrefix(text)
  if (!r.ok) return null
  return r.prefix.family === 4 ? formatIPv4(r.prefix.value) : formatIPv6(r.prefix.value)
}
