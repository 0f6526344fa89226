/**
 * One RADIUS Access-Request (PAP, optional State) from a chosen loopback source address: radclient
 * cannot pick its source, and a FreeRADIUS client is known by it (two NASes on one host are
 * 127.0.0.1 and 127.0.0.2). Message-Authenticator included (the clients require it).
 */
import { createHmac, randomBytes } from 'node:crypto'
import dgram from 'node:dgram'
import { encryptPap } from '../../plugins/radius/client/radius.js'

export interface PapReply {
  /** 2 Access-Accept, 3 Access-Reject, 11 Access-Challenge. */
  code: number
  state: Buffer | null
  replyMessage: string | null
  ms: number
}

export async function papRequest(o: { port: number; secret: string; user: string; password: string; state?: Buffer; from?: string; timeoutMs?: number }): Promise<PapReply> {
  const secret = Buffer.from(o.secret)
  const id = randomBytes(1)[0]
  const auth = randomBytes(16)
  const attr = (type: number, v: Buffer) => Buffer.concat([Buffer.from([type, v.length + 2]), v])
  const body = Buffer.concat([attr(1, Buffer.from(o.user)), attr(2, encryptPap(o.password, secret, auth)), ...(o.state ? [attr(24, o.state)] : []), attr(80, Buffer.alloc(16))])
  const pkt = Buffer.concat([Buffer.from([1, id, 0, 0]), auth, body])
  pkt.writeUInt16BE(pkt.length, 2)
  createHmac('md5', secret).update(pkt).digest().copy(pkt, pkt.length - 16)
  const sock = dgram.createSocket('udp4')
  try {
    if (o.from) await new Promise<void>((r) => sock.bind(0, o.from, r))
    const t0 = performance.now()
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no RADIUS answer within ${o.timeoutMs ?? 5000} ms`)), o.timeoutMs ?? 5000)
      sock.on('message', (m) => {
        if (m[1] === id) {
          clearTimeout(timer)
          resolve(m)
        }
      })
      sock.send(pkt, o.port, '127.0.0.1')
    })
    const ms = performance.now() - t0
    let state: Buffer | null = null
    let replyMessage: string | null = null
    for (let i = 20; i + 2 <= reply.length && reply[i + 1] >= 2; i += reply[i + 1]) {
      const v = reply.subarray(i + 2, i + reply[i + 1])
      if (reply[i] === 24) state = v
      if (reply[i] === 18) replyMessage = (replyMessage ?? '') + v.toString('utf8')
    }
    return { code: reply[0], state, replyMessage, ms }
  } finally {
    sock.close()
  }
}
