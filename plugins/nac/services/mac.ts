/**
 * MAC addresses (IEEE 802 EUI-48) in every notation switches, controllers and
 * spreadsheets write them, turned into the one form the plugin stores,
 * compares and returns: lower-case hex pairs separated by colons
 * (`aa:bb:cc:dd:ee:ff`, what FreeRADIUS's Calling-Station-Id rewrite makes
 * too). Accepted:
 *
 * - six groups of one or two hex digits, all separated by `:` or all by `-`
 *   (`AA-BB-CC-DD-EE-FF`, `aa:bb:cc:dd:ee:ff`, macOS's `0:1b:63:84:45:e6`);
 * - three groups of four separated by `.` or `-` (Cisco `aabb.ccdd.eeff`,
 *   HP/H3C `aabb-ccdd-eeff`);
 * - two groups of six separated by `:` or `-` (`aabbcc:ddeeff`, `aabbcc-ddeeff`);
 * - twelve bare hex digits (`aabbccddeeff`).
 *
 * Spaces at either end are dropped (a CSV cell); anything else (mixed
 * separators, other characters, a wrong count) is not a MAC. Refused even when
 * well formed: a group address (the I/G bit of the first octet set: multicast,
 * and the broadcast ff:ff:ff:ff:ff:ff), which no endpoint sends from, and the
 * all-zero address, which a broken NAS reports when it has none.
 */
export type MacParse =
  | { ok: true; mac: string; hex: string; locallyAdministered: boolean }
  | { ok: false; reason: 'invalid' | 'group' | 'zero' }

const H = '[0-9A-Fa-f]'
const NOTATIONS: RegExp[] = [
  new RegExp(`^(${H}{1,2})([:-])(${H}{1,2})\\2(${H}{1,2})\\2(${H}{1,2})\\2(${H}{1,2})\\2(${H}{1,2})$`),
  new RegExp(`^(${H}{4})([.-])(${H}{4})\\2(${H}{4})$`),
  new RegExp(`^(${H}{6})([:-])(${H}{6})$`),
  new RegExp(`^(${H}{12})()$`),
]

/** Longest accepted input (a few spaces around `aa:bb:cc:dd:ee:ff`); longer is refused before any regex runs. */
export const MAC_INPUT_MAX = 64

export function parseMac(input: string): MacParse {
  if (typeof input !== 'string' || input.length > MAC_INPUT_MAX) return { ok: false, reason: 'invalid' }
  const text = input.replace(/^ +| +$/g, '')
  for (const re of NOTATIONS) {
    const m = re.exec(text)
    if (!m) continue
    // Groups 1 and 3.. hold digits; group 2 the separator. Six one-or-two-digit groups pad to pairs.
    const groups = m.slice(1).filter((_g, i) => i !== 1)
    const hex = (groups.length === 6 ? groups.map((g) => g.padStart(2, '0')) : groups).join('').toLowerCase()
    const first = parseInt(hex.slice(0, 2), 16)
    if (/^0{12}$/.test(hex)) return { ok: false, reason: 'zero' }
    if (first & 0x01) return { ok: false, reason: 'group' }
    return { ok: true, hex, mac: hex.match(/../g)!.join(':'), locallyAdministered: (first & 0x02) !== 0 }
  }
  return { ok: false, reason: 'invalid' }
}

/** The canonical form, or null when `input` is not an endpoint's MAC. */
export const normalizeMac = (input: string): string | null => {
  const r = parseMac(input)
  return r.ok ? r.mac : null
}

/** Locally administered (the U/L bit set): a randomized "private" Wi-Fi address, a VM's, a container's. No IEEE OUI applies. */
export const isLocallyAdministered = (mac: string): boolean => (parseInt(mac.slice(0, 2), 16) & 0x02) !== 0

/**
 * A search term that looks like a piece of a MAC written with separators
 * (`00-1B-63`, `1b:63:84`, `001b.6384`): its bare lower-case hex, which the
 * search matches against the MAC without colons. Null for anything else.
 */
export function macFragment(term: string): string | null {
  if (!/^[0-9A-Fa-f]{1,4}([-:.][0-9A-Fa-f]{1,4})+$/.test(term)) return null
  return term.replace(/[-:.]/g, '').toLowerCase()
}
