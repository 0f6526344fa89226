/**
 * A minimal RADIUS (RFC 2865) authentication client for `portcullis radius-probe`:
 * PAP (User-Password, RFC 2865 §5.2) or MS-CHAPv2 (RFC 2548 attributes, RFC 2759
 * computation in ./mschapv2.ts), with Message-Authenticator (RFC 3579) on every
 * request, the Response Authenticator verified, and the reply attributes
 * decoded by name.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto'
import dgram from 'node:dgram'
import net from 'node:net'
import { authenticatorResponse, mschap2ResponseValue, ntResponse } from './mschapv2.js'

const md5 = (...b: Buffer[]) => createHash('md5').update(Buffer.concat(b)).digest()

export const CODES: Record<number, string> = { 1: 'Access-Request', 2: 'Access-Accept', 3: 'Access-Reject', 11: 'Access-Challenge' }

type Kind = 'ident-string' | 'string' | 'text' | 'integer' | 'ipaddr' | 'octets' | 'tagged-string' | 'tagged-integer'
const ATTRS: Record<number, [string, Kind]> = {
  1: ['User-Name', 'text'], 4: ['NAS-IP-Address', 'ipaddr'], 5: ['NAS-Port', 'integer'], 6: ['Service-Type', 'integer'], 7: ['Framed-Protocol', 'integer'],
  8: ['Framed-IP-Address', 'ipaddr'], 9: ['Framed-IP-Netmask', 'ipaddr'], 11: ['Filter-Id', 'text'], 12: ['Framed-MTU', 'integer'], 18: ['Reply-Message', 'text'],
  22: ['Framed-Route', 'text'], 24: ['State', 'octets'], 25: ['Class', 'string'], 27: ['Session-Timeout', 'integer'], 28: ['Idle-Timeout', 'integer'],
  29: ['Termination-Action', 'integer'], 32: ['NAS-Identifier', 'text'], 44: ['Acct-Session-Id', 'text'], 64: ['Tunnel-Type', 'tagged-integer'],
  65: ['Tunnel-Medium-Type', 'tagged-integer'], 80: ['Message-Authenticator', 'octets'], 81: ['Tunnel-Private-Group-Id', 'tagged-string'], 85: ['Acct-Interim-Interval', 'integer'],
}
const VENDORS: Record<number, { name: string; attrs: Record<number, [string, Kind]> }> = {
  9: { name: 'Cisco', attrs: { 1: ['Cisco-AVPair', 'text'] } },
  311: { name: 'Microsoft', attrs: { 2: ['MS-CHAP-Error', 'ident-string'], 7: ['MS-MPPE-Encryption-Policy', 'integer'], 8: ['MS-MPPE-Encryption-Types', 'integer'], 16: ['MS-MPPE-Send-Key', 'octets'], 17: ['MS-MPPE-Recv-Key', 'octets'], 26: ['MS-CHAP2-Success', 'ident-string'] } },
  2636: { name: 'Juniper', attrs: { 1: ['Juniper-Local-User-Name', 'text'], 2: ['Juniper-Allow-Commands', 'text'], 3: ['Juniper-Deny-Commands', 'text'] } },
  14988: { name: 'Mikrotik', attrs: { 3: ['Mikrotik-Group', 'text'] } },
  25506: { name: 'H3C', attrs: { 29: ['H3C-Exec-Privilege', 'integer'] } },
  2011: { name: 'Huawei', attrs: { 29: ['Huawei-Exec-Privilege', 'integer'] } },
}

export interface Attribute {
  name: string
  value: string
}

function show(kind: Kind, v: Buffer): string {
  switch (kind) {
    case 'integer':
      return v.length === 4 ? String(v.readUInt32BE(0)) : '0x' + v.toString('hex')
    case 'ipaddr':
      return v.length === 4 ? [...v].join('.') : '0x' + v.toString('hex')
    case 'tagged-integer':
      return v.length === 4 ? `${v.readUInt32BE(0) & 0xffffff}${v[0] ? ` (tag ${v[0]})` : ''}` : '0x' + v.toString('hex')
    case 'tagged-string':
      return v.length && v[0] <= 0x1f ? v.subarray(1).toString('utf8') + (v[0] ? ` (tag ${v[0]})` : '') : v.toString('utf8')
    case 'ident-string':
      // MS-CHAP: one identifier byte, then text (`S=…`, `E=691 R=0 …`).
      return v.length ? v.subarray(1).toString('latin1') : ''
    case 'text':
      return v.toString('utf8')
    case 'string':
      return /^[\x20-\x7e]*$/.test(v.toString('latin1')) ? v.toString('latin1') : '0x' + v.toString('hex')
    default:
      return '0x' + v.toString('hex')
  }
}

export function decodeAttributes(buf: Buffer): Attribute[] {
  const out: Attribute[] = []
  for (let i = 0; i + 2 <= buf.length; ) {
    const type = buf[i]
    const len = buf[i + 1]
    if (len < 2 || i + len > buf.length) break
    const v = buf.subarray(i + 2, i + len)
    if (type === 26 && v.length >= 6) {
      const vendor = v.readUInt32BE(0)
      const vd = VENDORS[vendor]
      for (let j = 4; j + 2 <= v.length; ) {
        const vt = v[j]
        const vl = v[j + 1]
        if (vl < 2 || j + vl > v.length) break
        const [name, kind] = vd?.attrs[vt] ?? [`Vendor-${vendor}-Attr-${vt}`, 'octets']
        out.push({ name, value: show(kind, v.subarray(j + 2, j + vl)) })
        j += vl
      }
    } else {
      const [name, kind] = ATTRS[type] ?? [`Attr-${type}`, 'octets']
      out.push({ name, value: show(kind, v) })
    }
    i += len
  }
  return out
}

const attr = (type: number, v: Buffer) => {
  if (v.length > 253) throw new Error(`attribute ${type} is too long`)
  return Buffer.concat([Buffer.from([type, v.length + 2]), v])
}
const vsa = (vendor: number, type: number, v: Buffer) => {
  const head = Buffer.alloc(4)
  head.writeUInt32BE(vendor)
  return attr(26, Buffer.concat([head, Buffer.from([type, v.length + 2]), v]))
}

/** RFC 2865 §5.2. */
export function encryptPap(password: string, secret: Buffer, authenticator: Buffer): Buffer {
  const p = Buffer.from(password, 'utf8')
  const padded = Buffer.alloc(Math.max(16, Math.ceil(p.length / 16) * 16))
  p.copy(padded)
  const out = Buffer.alloc(padded.length)
  let prev = authenticator
  for (let i = 0; i < padded.length; i += 16) {
    const b = md5(secret, prev)
    for (let j = 0; j < 16; j++) out[i + j] = padded[i + j] ^ b[j]
    prev = out.subarray(i, i + 16)
  }
  return out
}

export interface RadiusProbeOptions {
  host: string
  port: number
  secret: string
  user: string
  password: string
  method: 'pap' | 'mschapv2'
  timeoutMs?: number
  retries?: number
  nasIdentifier?: string
}

export interface RadiusProbeResult {
  code: string
  attributes: Attribute[]
  /** The reply's Response Authenticator is right for the shared secret. */
  authenticatorOk: boolean
  /** MS-CHAPv2 on Access-Accept: the server proved it knows the password too (MS-CHAP2-Success). */
  serverProofOk: boolean | null
  rttMs: number
}

export async function radiusProbe(o: RadiusProbeOptions): Promise<RadiusProbeResult> {
  const secret = Buffer.from(o.secret, 'utf8')
  const id = randomBytes(1)[0]
  const reqAuth = randomBytes(16)
  const attrs: Buffer[] = [attr(1, Buffer.from(o.user, 'utf8')), attr(32, Buffer.from(o.nasIdentifier ?? 'portcullis-probe', 'utf8'))]
  let mschap: { auth: Buffer; peer: Buffer; nt: Buffer } | null = null
  if (o.method === 'pap') attrs.push(attr(2, encryptPap(o.password, secret, reqAuth)))
  else {
    const auth = randomBytes(16)
    const peer = randomBytes(16)
    const nt = ntResponse(auth, peer, o.user, o.password)
    mschap = { auth, peer, nt }
    attrs.push(vsa(311, 11, auth), vsa(311, 25, mschap2ResponseValue(id, peer, nt)))
  }
  attrs.push(attr(80, Buffer.alloc(16)))
  const body = Buffer.concat(attrs)
  const pkt = Buffer.concat([Buffer.from([1, id, 0, 0]), reqAuth, body])
  pkt.writeUInt16BE(pkt.length, 2)
  createHmac('md5', secret).update(pkt).digest().copy(pkt, pkt.length - 16)

  const family = net.isIPv6(o.host) ? 'udp6' : 'udp4'
  const sock = dgram.createSocket(family)
  const t0 = performance.now()
  try {
    const reply = await new Promise<Buffer>((resolve, reject) => {
      let tries = 0
      let timer: NodeJS.Timeout
      const send = () => {
        tries++
        sock.send(pkt, o.port, o.host, (e) => e && reject(e))
        timer = setTimeout(() => (tries > (o.retries ?? 2) ? reject(new Error(`no answer from ${o.host}:${o.port} after ${tries} tries (wrong secret, unknown client, or nothing listening)`)) : send()), o.timeoutMs ?? 3000)
      }
      sock.on('message', (m) => {
        if (m.length >= 20 && m[1] === id) {
          clearTimeout(timer)
          resolve(m)
        }
      })
      sock.on('error', (e) => {
        clearTimeout(timer)
        reject(e)
      })
      send()
    })
    const rttMs = Math.round(performance.now() - t0)
    const len = reply.readUInt16BE(2)
    const respAttrs = reply.subarray(20, len)
    const expected = md5(reply.subarray(0, 4), reqAuth, respAttrs, secret)
    const attributes = decodeAttributes(respAttrs)
    const code = CODES[reply[0]] ?? `Code-${reply[0]}`
    let serverProofOk: boolean | null = null
    if (mschap && reply[0] === 2) {
      const success = attributes.find((a) => a.name === 'MS-CHAP2-Success')?.value ?? ''
      const want = authenticatorResponse(o.password, mschap.nt, mschap.peer, mschap.auth, o.user)
      serverProofOk = success.toUpperCase().startsWith(want)
    }
    return { code, attributes: attributes.filter((a) => a.name !== 'Message-Authenticator'), authenticatorOk: expected.equals(reply.subarray(4, 20)), serverProofOk, rttMs }
  } finally {
    sock.close()
  }
}
