/**
 * A loopback NAS for the CoA tests, written with the npm `radius` package:
 * a UDP listener on 127.0.0.x, a random port, that checks every request by
 * RFC 5176 (its own code, not the plugin's: Request Authenticator and
 * Message-Authenticator with the shared secret) and answers as told (ACK,
 * NAK with an Error-Cause, nothing, or an answer signed with another secret).
 * Each request keeps the moment it arrived (`at`, performance.now()), so a test or
 * a benchmark in the same process measures how long a CoA took to leave.
 */
import { createHash, createHmac } from 'node:crypto'
import { createSocket, type Socket } from 'node:dgram'
import radius from 'radius'

export interface Received {
  code: number
  identifier: number
  /** Signed with the NAS's secret, by RFC 5176 (Request Authenticator and Message-Authenticator). */
  signed: boolean
  hasMessageAuthenticator: boolean
  /** Attributes by name (the radius package's dictionary), Cisco-AVPairs apart. */
  attributes: Record<string, unknown>
  ciscoAvPairs: string[]
  /** Every attribute as [type, value bytes]. */
  raw_attributes: [number, Buffer][]
  raw: Buffer
  /** When it arrived: performance.now() of this process. */
  at: number
}

export type Answer = { kind: 'ack' } | { kind: 'nak'; errorCause: number } | { kind: 'silent' } | { kind: 'wrong-secret' }

export class LoopbackNas {
  readonly received: Received[] = []
  answer: Answer = { kind: 'ack' }
  private constructor(
    private readonly socket: Socket,
    readonly address: string,
    readonly port: number,
    readonly secret: string,
  ) {}

  static async start(address: string, secret: string): Promise<LoopbackNas> {
    const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4')
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject)
      socket.bind(0, address, () => resolve())
    })
    const nas = new LoopbackNas(socket, address, socket.address().port, secret)
    socket.on('message', (msg, rinfo) => nas.onMessage(msg, rinfo.address, rinfo.port))
    return nas
  }

  /** Resolves once `n` requests arrived (or rejects after `ms`). */
  async waitFor(n: number, ms = 5000): Promise<Received[]> {
    const end = Date.now() + ms
    while (this.received.length < n) {
      if (Date.now() > end) throw new Error(`the NAS got ${this.received.length} requests, not ${n}, in ${ms} ms`)
      await new Promise((r) => setTimeout(r, 20))
    }
    return this.received
  }

  /** The first request (after the first `from` ones) whose Calling-Station-Id is `mac` (any notation), waiting up to `ms`. */
  async waitForMac(mac: string, o: { from?: number; ms?: number } = {}): Promise<Received> {
    const want = mac.replace(/[^0-9a-f]/gi, '').toLowerCase()
    const end = Date.now() + (o.ms ?? 5000)
    for (;;) {
      const r = this.received.slice(o.from ?? 0).find((x) => String(x.attributes['Calling-Station-Id'] ?? '').replace(/[^0-9a-f]/gi, '').toLowerCase() === want)
      if (r) return r
      if (Date.now() > end) throw new Error(`no CoA for ${mac} within ${o.ms ?? 5000} ms (${this.received.length} requests in all)`)
      await new Promise((res) => setTimeout(res, 10))
    }
  }

  close(): void {
    this.socket.close()
  }

  private onMessage(msg: Buffer, address: string, port: number): void {
    const at = performance.now()
    const packet = radius.decode_without_secret({ packet: Buffer.from(msg) })
    const raw = packet.raw_attributes as [number, Buffer][]
    const ciscoAvPairs = raw
      .filter(([t, v]) => t === 26 && v.readUInt32BE(0) === 9 && v.readUInt8(4) === 1)
      .map(([, v]) => v.subarray(6, 4 + v.readUInt8(5)).toString('utf8'))
    const code = msg.readUInt8(0)
    const hasMa = raw.some(([t]) => t === 80)
    this.received.push({ code, identifier: msg.readUInt8(1), signed: verifyRequest(msg, this.secret), hasMessageAuthenticator: hasMa, attributes: packet.attributes as Record<string, unknown>, ciscoAvPairs, raw_attributes: raw, raw: Buffer.from(msg), at })
    const a = this.answer
    if (a.kind === 'silent') return
    const ok = a.kind !== 'nak'
    const reply = radius.encode_response({
      packet,
      code: code === 43 ? (ok ? 'CoA-ACK' : 'CoA-NAK') : ok ? 'Disconnect-ACK' : 'Disconnect-NAK',
      secret: a.kind === 'wrong-secret' ? `${this.secret}-not` : this.secret,
      attributes: a.kind === 'nak' ? [['Error-Cause', a.errorCause]] : [],
    })
    this.socket.send(reply, port, address)
  }
}

/** RFC 5176 3.1 (and FreeRADIUS): the Message-Authenticator over the packet with a zero Request Authenticator, the Request Authenticator over the packet with it. */
function verifyRequest(msg: Buffer, secret: string): boolean {
  const p = Buffer.from(msg)
  const auth = Buffer.from(p.subarray(4, 20))
  p.fill(0, 4, 20)
  if (!createHash('md5').update(p).update(secret).digest().equals(auth)) return false
  for (let o = 20; o + 2 <= p.length; o += p.readUInt8(o + 1)) {
    if (p.readUInt8(o) !== 80) continue
    const ma = Buffer.from(p.subarray(o + 2, o + 18))
    p.fill(0, o + 2, o + 18)
    return createHmac('md5', secret).update(p).digest().equals(ma)
  }
  return false
}
