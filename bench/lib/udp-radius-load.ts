/**
 * A RADIUS load generator of our own (issue 13): PAP Access-Requests over UDP
 * with a bounded number in flight. radclient is unsuitable for throughput (it
 * spins a core while it waits and slows quadratically with its request file).
 *
 * Every request: a fresh random Request Authenticator, User-Name, the
 * User-Password hidden per RFC 2865 §5.2 with the shared secret
 * (encryptPap from the plugin's own client), NAS-IP-Address, NAS-Port,
 * NAS-Identifier, and Message-Authenticator (RFC 3579, HMAC-MD5 over the
 * packet). Replies are matched by (socket, identifier): one socket holds at
 * most 256 identifiers, so more in flight open more sockets (source ports).
 * The reply's Response Authenticator is checked; a wrong one is counted, not
 * trusted. An identifier whose request timed out is not reused until twice
 * the timeout has passed, so a late reply is never taken for a newer request.
 *
 * The clock: from the first send to the last answer (or time-out). Requests/s
 * counts answered requests (Accept + Reject + Challenge). When `pid` is given,
 * the daemon's CPU (utime + stime, its tree, /proc) is read at the same two
 * instants, so CPU per request is over exactly the round.
 */
import { createHash, createHmac, randomFillSync } from 'node:crypto'
import dgram from 'node:dgram'
import { encryptPap } from '../../plugins/radius/client/radius.js'
import { cpuMs, roundFigures, type RoundFigures } from './proc.js'

export interface RadiusCredential {
  user: string
  password: string
  /** MAB (bench/nac-freeradius.ts): Calling-Station-Id and Service-Type Call-Check are sent too. */
  callingStationId?: string
}

export interface RadiusLoadOptions {
  host: string
  port: number
  secret: string
  /** Taken in turn, round robin. */
  credentials: RadiusCredential[]
  /** Requests in flight at once (default 8). */
  inFlight?: number
  /** Stop sending after this many ms… */
  durationMs?: number
  /** …or after this many requests (whichever comes first; at least one of the two). */
  count?: number
  /** Per request (default 3000 ms); no retransmission: a lost request is a time-out. */
  timeoutMs?: number
  nasIp?: string
  nasIdentifier?: string
  /** The daemon's pid: CPU over the round is measured (its process tree). */
  pid?: number
}

export interface RadiusLoadResult extends RoundFigures {
  sent: number
  accept: number
  reject: number
  challenge: number
  /** Any other code, or a reply that failed its Response Authenticator. */
  bad: number
  timeouts: number
}

const md5 = (...b: Buffer[]) => {
  const h = createHash('md5')
  for (const x of b) h.update(x)
  return h.digest()
}

const attr = (type: number, v: Buffer) => Buffer.concat([Buffer.from([type, v.length + 2]), v])
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}
const ipv4 = (s: string) => Buffer.from(s.split('.').map(Number))

/** One Access-Request: the packet and its Request Authenticator. */
export function accessRequest(id: number, c: RadiusCredential, secret: Buffer, o: { nasIp: string; nasIdentifier: string; nasPort: number }): { packet: Buffer; authenticator: Buffer } {
  const authenticator = randomFillSync(Buffer.alloc(16))
  const body = Buffer.concat([
    attr(1, Buffer.from(c.user, 'utf8')),
    attr(2, encryptPap(c.password, secret, authenticator)),
    attr(4, ipv4(o.nasIp)),
    attr(5, u32(o.nasPort)),
    attr(32, Buffer.from(o.nasIdentifier, 'utf8')),
    ...(c.callingStationId ? [attr(31, Buffer.from(c.callingStationId, 'utf8')), attr(6, u32(10))] : []),
    attr(80, Buffer.alloc(16)),
  ])
  const packet = Buffer.concat([Buffer.from([1, id, 0, 0]), authenticator, body])
  packet.writeUInt16BE(packet.length, 2)
  createHmac('md5', secret).update(packet).digest().copy(packet, packet.length - 16)
  return { packet, authenticator }
}

interface Pending {
  authenticator: Buffer
  t0: number
  timer: NodeJS.Timeout
}

export async function radiusLoad(o: RadiusLoadOptions): Promise<RadiusLoadResult> {
  if (o.durationMs === undefined && o.count === undefined) throw new Error('radiusLoad: give durationMs or count')
  if (!o.credentials.length) throw new Error('radiusLoad: no credentials')
  const inFlight = o.inFlight ?? 8
  const timeoutMs = o.timeoutMs ?? 3000
  const secret = Buffer.from(o.secret, 'utf8')
  const nas = { nasIp: o.nasIp ?? '127.0.0.1', nasIdentifier: o.nasIdentifier ?? 'bench-load' }
  const nSockets = Math.ceil(inFlight / 256)
  const sockets = await Promise.all(
    Array.from({ length: nSockets }, async () => {
      const s = dgram.createSocket('udp4')
      await new Promise<void>((r) => s.bind(0, r))
      return s
    }),
  )
  // Free identifiers per socket; ids that timed out come back after 2× the timeout.
  const free = sockets.map(() => Array.from({ length: 256 }, (_, i) => i))
  const pending = sockets.map(() => new Map<number, Pending>())
  const r: RadiusLoadResult = { sent: 0, accept: 0, reject: 0, challenge: 0, bad: 0, timeouts: 0, elapsedMs: 0, rps: 0, p50Ms: NaN, p99Ms: NaN, cpuMs: null, cpuPerRequestMs: null }
  const rtts: number[] = []
  let next = 0
  let outstanding = 0
  let t0 = 0
  let deadline = Infinity
  let finish: () => void = () => {}
  const done = new Promise<void>((resolve) => (finish = resolve))
  let stopped = false

  const more = () => !stopped && (o.count === undefined || r.sent < o.count) && performance.now() < deadline

  const launch = () => {
    while (outstanding < inFlight && more()) {
      const k = sockets.findIndex((_, i) => free[i].length > 0)
      if (k < 0) break
      const id = free[k].shift()!
      const c = o.credentials[next++ % o.credentials.length]
      const { packet, authenticator } = accessRequest(id, c, secret, { ...nas, nasPort: next })
      const p: Pending = {
        authenticator,
        t0: performance.now(),
        timer: setTimeout(() => {
          pending[k].delete(id)
          r.timeouts++
          outstanding--
          setTimeout(() => free[k].push(id), 2 * timeoutMs).unref()
          settle()
        }, timeoutMs),
      }
      pending[k].set(id, p)
      outstanding++
      r.sent++
      sockets[k].send(packet, o.port, o.host)
    }
  }

  let tEnd = 0
  const settle = () => {
    tEnd = performance.now()
    launch()
    if (outstanding === 0 && !more()) {
      stopped = true
      finish()
    }
  }

  sockets.forEach((s, k) =>
    s.on('message', (m: Buffer) => {
      if (m.length < 20) return
      const id = m[1]
      const p = pending[k].get(id)
      if (!p) return // late or stray
      clearTimeout(p.timer)
      pending[k].delete(id)
      free[k].push(id)
      outstanding--
      rtts.push(performance.now() - p.t0)
      const len = Math.min(m.readUInt16BE(2), m.length)
      const ok = md5(m.subarray(0, 4), p.authenticator, m.subarray(20, len), secret).equals(m.subarray(4, 20))
      if (!ok) r.bad++
      else if (m[0] === 2) r.accept++
      else if (m[0] === 3) r.reject++
      else if (m[0] === 11) r.challenge++
      else r.bad++
      settle()
    }),
  )

  const cpu0 = o.pid ? cpuMs(o.pid) : 0
  t0 = performance.now()
  if (o.durationMs !== undefined) deadline = t0 + o.durationMs
  launch()
  if (outstanding === 0) finish()
  await done
  const cpu1 = o.pid ? cpuMs(o.pid) : 0
  for (const s of sockets) s.close()
  const answered = r.accept + r.reject + r.challenge
  Object.assign(r, roundFigures(answered, tEnd - t0, rtts, o.pid ? { start: cpu0, end: cpu1 } : null))
  return r
}

/**
 * Spawn-to-answer: send one Access-Request every `everyMs` until any answer comes
 * (Accept or Reject), and resolve with the ms since `spawnedAt` (performance.now()).
 */
export async function firstAnswerMs(o: { host: string; port: number; secret: string; credential: RadiusCredential; spawnedAt: number; timeoutMs?: number; everyMs?: number; alive?: () => boolean }): Promise<number> {
  const deadline = o.spawnedAt + (o.timeoutMs ?? 120_000)
  for (;;) {
    if (o.alive && !o.alive()) throw new Error('the daemon exited before it answered')
    const r = await radiusLoad({ host: o.host, port: o.port, secret: o.secret, credentials: [o.credential], count: 1, inFlight: 1, timeoutMs: o.everyMs ?? 50 })
    if (r.accept + r.reject + r.challenge > 0) return performance.now() - o.spawnedAt
    if (performance.now() > deadline) throw new Error(`no answer within ${o.timeoutMs ?? 120_000} ms of the start`)
  }
}
