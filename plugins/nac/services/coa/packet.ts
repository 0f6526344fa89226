/**
 * RFC 5176 packets: the request we send and the check of the NAS's answer.
 *
 * The npm `radius` package encodes and decodes the attributes, but not the
 * authenticators of a CoA or Disconnect request that carries a
 * Message-Authenticator: it computes the Request Authenticator before the
 * Message-Authenticator, where RFC 5176 (section 3.1, as FreeRADIUS and the
 * switches do) wants the Message-Authenticator over the packet with a zero
 * Request Authenticator, then the Request Authenticator over the packet with
 * the Message-Authenticator in it. So both are computed here, and so is the
 * check of the response (its own `verify_response` re-decodes the request by
 * the same mistaken rule).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import radius from 'radius'
import type { CoaAction } from '../../api.js'

export const CODE = { disconnectRequest: 40, disconnectAck: 41, disconnectNak: 42, coaRequest: 43, coaAck: 44, coaNak: 45 } as const

export type Dialect = 'cisco' | 'rfc5176'

/** What identifies the session at the NAS. */
export interface SessionId {
  mac: string
  nasIp: string
  acctSessionId?: string | null
  nasPortId?: string | null
}

export interface BuiltRequest {
  code: number
  packet: Buffer
  identifier: number
  /** The attributes by name, as sent (for the record and the tests). */
  attributes: [string, string][]
}

const CISCO = 9
const CISCO_AVPAIR = 1
const MA_OFFSET = 20 + 2
type Attr = [string | number, unknown] | [string, number, [number, Buffer][]]

/** Calling-Station-Id as RFC 3580 section 3.21 recommends it and switches send it: `AA-BB-CC-DD-EE-FF`. */
export const callingStationId = (mac: string) => mac.replace(/:/g, '-').toUpperCase()

/**
 * The request for an action in a dialect: Cisco's subscriber commands in a CoA-Request, or the
 * RFC 5176 form (Service-Type Authorize-Only for a reauthentication). A bounce has no RFC form: a
 * Disconnect-Request ends the session, and the supplicant or MAB starts a new one.
 */
export function buildRequest(action: CoaAction, dialect: Dialect, s: SessionId, secret: string, identifier: number): BuiltRequest {
  const shown: [string, string][] = []
  const attrs: Attr[] = [['Message-Authenticator', Buffer.alloc(16)]]
  const add = (name: string, value: string | number | Date) => {
    attrs.push([name, value])
    shown.push([name, value instanceof Date ? String(Math.floor(value.getTime() / 1000)) : String(value)])
  }
  const code = action === 'disconnect' || (action === 'bounce-port' && dialect === 'rfc5176') ? CODE.disconnectRequest : CODE.coaRequest
  if (isIPv4(s.nasIp)) add('NAS-IP-Address', s.nasIp)
  else if (isIPv6(s.nasIp)) {
    attrs.push([95, ipv6Bytes(s.nasIp)])
    shown.push(['NAS-IPv6-Address', s.nasIp])
  }
  add('Calling-Station-Id', callingStationId(s.mac))
  if (s.acctSessionId) add('Acct-Session-Id', fit(s.acctSessionId))
  if (s.nasPortId) add('NAS-Port-Id', fit(s.nasPortId))
  if (code === CODE.coaRequest) {
    if (dialect === 'cisco') {
      const command = action === 'bounce-port' ? 'subscriber:command=bounce-host-port' : 'subscriber:command=reauthenticate'
      // `last`: the method that last succeeded runs again (a MAB endpoint is not made to wait out an 802.1X attempt first).
      const avpairs = [command, ...(action === 'reauthenticate' ? ['subscriber:reauthenticate-type=last'] : [])]
      attrs.push(['Vendor-Specific', CISCO, avpairs.map((v): [number, Buffer] => [CISCO_AVPAIR, Buffer.from(v, 'utf8')])])
      for (const v of avpairs) shown.push(['Cisco-AVPair', v])
    } else add('Service-Type', 'Authorize-Only')
  }
  add('Event-Timestamp', new Date())

  const packet = radius.encode({ code: code === CODE.coaRequest ? 'CoA-Request' : 'Disconnect-Request', secret, identifier, attributes: attrs, add_message_authenticator: false })
  // RFC 5176 3.1: Message-Authenticator over the packet with a zero Request Authenticator, then the Request Authenticator over the whole.
  packet.fill(0, 4, 20)
  packet.fill(0, MA_OFFSET, MA_OFFSET + 16)
  createHmac('md5', secret).update(packet).digest().copy(packet, MA_OFFSET)
  createHash('md5').update(packet).update(secret).digest().copy(packet, 4)
  return { code, packet, identifier, attributes: shown }
}

export type ResponseCheck =
  | { ok: true; code: number; errorCause: number | null }
  /** Not an answer to this request (another identifier, a request code): ignore it and keep waiting. */
  | { ok: false; why: 'unrelated' }
  /** Looks like the answer, but its authenticators do not verify: a wrong secret, or a forgery. */
  | { ok: false; why: 'authenticator' }

/** Checks a datagram against the request: code, identifier, length, Response Authenticator and (when present) Message-Authenticator. */
export function checkResponse(request: BuiltRequest, response: Buffer, secret: string): ResponseCheck {
  if (response.length < 20) return { ok: false, why: 'unrelated' }
  const code = response.readUInt8(0)
  const expected = request.code === CODE.coaRequest ? [CODE.coaAck, CODE.coaNak] : [CODE.disconnectAck, CODE.disconnectNak]
  const length = response.readUInt16BE(2)
  if (!(expected as number[]).includes(code) || response.readUInt8(1) !== request.identifier || length < 20 || length > response.length) return { ok: false, why: 'unrelated' }
  const r = Buffer.from(response.subarray(0, length))
  const got = Buffer.from(r.subarray(4, 20))
  const requestAuth = request.packet.subarray(4, 20)
  requestAuth.copy(r, 4)
  const want = createHash('md5').update(r).update(secret).digest()
  if (!timingSafeEqual(got, want)) return { ok: false, why: 'authenticator' }
  // A Message-Authenticator in the answer must verify too (over the answer with the request's authenticator, itself zeroed).
  let offset = 20
  let errorCause: number | null = null
  while (offset + 2 <= r.length) {
    const type = r.readUInt8(offset)
    const len = r.readUInt8(offset + 1)
    if (len < 2 || offset + len > r.length) return { ok: false, why: 'authenticator' }
    if (type === 101 && len === 6) errorCause = r.readUInt32BE(offset + 2)
    if (type === 80 && len === 18) {
      const ma = Buffer.from(r.subarray(offset + 2, offset + 18))
      r.fill(0, offset + 2, offset + 18)
      const calc = createHmac('md5', secret).update(r).digest()
      if (!timingSafeEqual(ma, calc)) return { ok: false, why: 'authenticator' }
      ma.copy(r, offset + 2)
    }
    offset += len
  }
  return { ok: true, code, errorCause }
}

/** An attribute holds at most 253 octets: a longer text (no NAS sends one) is cut rather than failing the whole request. */
function fit(text: string): string {
  let t = text
  while (Buffer.byteLength(t, 'utf8') > 253) t = t.slice(0, -1)
  return t
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail = ''] = ip.split('::')
  const part = (s: string) => (s ? s.split(':') : [])
  const h = part(head)
  const t = part(tail)
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h
  const b = Buffer.alloc(16)
  groups.forEach((g, i) => b.writeUInt16BE(parseInt(g, 16), i * 2))
  return b
}
