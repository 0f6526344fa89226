/**
 * Will a profile's reply fit in one RADIUS packet? FreeRADIUS 3.2 encodes the
 * reply attributes in list order and stops at the first one that no longer
 * fits in 4096 bytes: the rest (a privilege level, Message-Authenticator when
 * it came last) are dropped without a word in the log. So the API refuses a
 * profile whose attributes cannot fit beside what every reply carries anyway.
 *
 * The budget (checked against the daemon's "Sent Access-Accept … length N" in
 * test/e2e-freeradius.test.ts):
 *
 *   4096  the largest RADIUS packet (RFC 2865 §3)
 *   − 20  the header (code, identifier, length, authenticator)
 *   − 18  Message-Authenticator, which the site adds to every reply (RFC 3579 §3.2)
 *   − 51  MS-CHAP2-Success on an MS-CHAPv2 accept (vendor header 8, identifier 1, "S=" and 40 hex digits);
 *         PAP, CHAP and MS-CHAPv1 accepts add nothing (the mschap module sends no MPPE keys)
 *   −255  Proxy-State, which FreeRADIUS copies from the request into the reply (RFC 2865 §5.33):
 *         room for one of the largest (2 + 253), or the smaller ones of a chain of proxies
 *   ────
 *   3752  bytes for the profile's own attributes, each with its header: 2 bytes for a standard
 *         attribute, 8 for a vendor-specific one (type 26, length, Vendor-Id, vendor type, vendor length)
 */
import type { RadiusAttribute } from '../api.js'
import type { DictionaryEntry } from './dictionary.js'

export const MAX_PACKET_OCTETS = 4096
export const REPLY_OVERHEAD = {
  header: 20,
  messageAuthenticator: 18,
  msChap2Success: 51,
  proxyState: 255,
} as const
/** What a profile's attributes may take, headers included: 3752 bytes. */
export const PROFILE_REPLY_BUDGET = MAX_PACKET_OCTETS - Object.values(REPLY_OVERHEAD).reduce((a, b) => a + b, 0)

/** The octets of a value FreeRADIUS sends: integers, enums and IPv4 addresses 4, IPv6 16, text its UTF-8, hex its bytes. */
export function valueOctets(e: DictionaryEntry, value: string): number {
  switch (e.type) {
    case 'integer':
    case 'enum':
    case 'ipaddr':
      return 4
    case 'ipv6addr':
      return 16
    case 'octets':
      return /^0[xX]/.test(value) ? (value.length - 2) / 2 : Buffer.byteLength(value, 'utf8')
    case 'string':
      // An untagged value of a tagged string (Tunnel-Private-Group-Id written without `:N:`) carries no tag byte.
      return Buffer.byteLength(value, 'utf8')
  }
}

/** The attribute as encoded in the packet: its header and its value. */
export const attributeOctets = (e: DictionaryEntry, value: string): number => (e.vendor ? 8 : 2) + valueOctets(e, value)

/** The size of an encoded list and the index of the first attribute past the budget (null when all fit). */
export function replyOctets(list: readonly RadiusAttribute[], entry: (name: string) => DictionaryEntry): { size: number; firstOver: number | null } {
  let size = 0
  let firstOver: number | null = null
  for (const [i, a] of list.entries()) {
    size += attributeOctets(entry(a.name), a.value)
    if (firstOver === null && size > PROFILE_REPLY_BUDGET) firstOver = i
  }
  return { size, firstOver }
}
