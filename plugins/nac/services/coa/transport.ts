/**
 * One CoA exchange over UDP: the same datagram (same Identifier and
 * authenticator, as RFC 5176 and RFC 5080 want a retransmission) sent up to
 * 1 + retries times, each time waiting `timeoutMs` for the answer. Datagrams
 * from another address or port, or with another identifier, are ignored; an
 * answer whose authenticator fails is ignored too (RFC 5176: silently
 * discarded), but remembered, so that the record says the NAS did answer with
 * the wrong secret rather than not at all.
 */
import { createSocket } from 'node:dgram'
import { isIPv6 } from 'node:net'
import { checkResponse, type BuiltRequest } from './packet.js'

export type Exchange =
  | { outcome: 'answer'; code: number; errorCause: number | null; attempts: number }
  | { outcome: 'timeout' | 'bad_response'; attempts: number }
  | { outcome: 'error'; detail: string; attempts: number }

export function exchange(req: BuiltRequest, to: { ip: string; port: number }, secret: string, o: { timeoutMs: number; retries: number }): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = createSocket(isIPv6(to.ip) ? 'udp6' : 'udp4')
    let attempts = 0
    let forged = false
    let timer: NodeJS.Timeout | undefined
    let done = false
    const finish = (x: Exchange) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.close()
      resolve(x)
    }
    const send = () => {
      if (attempts > o.retries) return finish({ outcome: forged ? 'bad_response' : 'timeout', attempts })
      attempts++
      socket.send(req.packet, to.port, to.ip, (err) => {
        if (err) finish({ outcome: 'error', detail: err.message, attempts })
      })
      timer = setTimeout(send, o.timeoutMs)
    }
    socket.on('error', (err) => finish({ outcome: 'error', detail: err.message, attempts }))
    socket.on('message', (msg, rinfo) => {
      if (rinfo.port !== to.port || !sameAddress(rinfo.address, to.ip)) return
      const r = checkResponse(req, msg, secret)
      if (r.ok) finish({ outcome: 'answer', code: r.code, errorCause: r.errorCause, attempts })
      else if (r.why === 'authenticator') forged = true
    })
    socket.bind(0, send)
  })
}

const sameAddress = (a: string, b: string) => a.replace(/^::ffff:/i, '').toLowerCase() === b.replace(/^::ffff:/i, '').toLowerCase()
