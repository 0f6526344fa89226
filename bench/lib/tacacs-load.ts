/**
 * TACACS+ load with a bounded number in flight, through the plugin's own
 * client (plugins/tacacs/client): each request is one session on its own TCP
 * connection (as IOS does without single-connection), either a PAP
 * authentication or a shell authorization (`service=shell`, `cmd*`: the exec
 * start a device asks after a login). `inFlight` workers loop until the
 * duration has passed. Daemon CPU (its process tree, /proc) is read at the
 * first send and after the last answer.
 */
import { TacacsClient, TacacsTimeoutError } from '../../plugins/tacacs/client/index.js'
import { cpuMs, roundFigures, type RoundFigures } from './proc.js'

export type TacacsKind = 'pap' | 'author'

export interface TacacsLoadOptions {
  host: string
  port: number
  key: string
  kind: TacacsKind
  users: string[]
  password: string
  inFlight?: number
  durationMs: number
  timeoutMs?: number
  pid?: number
}

/** The round's counts; `rps` counts the answered requests (pass + fail). */
export interface TacacsLoadResult extends RoundFigures {
  sent: number
  /** PAP pass, or authorization PASS_ADD/PASS_REPL. */
  pass: number
  /** PAP fail, or authorization FAIL. */
  fail: number
  /** Errors, protocol errors and time-outs. */
  errors: number
}

export async function tacacsLoad(o: TacacsLoadOptions): Promise<TacacsLoadResult> {
  const client = new TacacsClient({ host: o.host, port: o.port, key: o.key, timeoutMs: o.timeoutMs ?? 5000 })
  const r: TacacsLoadResult = { sent: 0, pass: 0, fail: 0, errors: 0, elapsedMs: 0, rps: 0, p50Ms: NaN, p99Ms: NaN, cpuMs: null, cpuPerRequestMs: null }
  const rtts: number[] = []
  let next = 0
  let firstError: unknown = null
  const one = async (user: string): Promise<boolean> => {
    if (o.kind === 'pap') return (await client.authenticatePap(user, o.password, { remAddr: '192.0.2.10', port: 'vty0' })).pass
    return (await client.authorize(user, { service: 'shell', cmd: '', remAddr: '192.0.2.10', port: 'vty0' })).permitted
  }
  const cpu0 = o.pid ? cpuMs(o.pid) : 0
  const t0 = performance.now()
  const deadline = t0 + o.durationMs
  let tEnd = t0
  const worker = async () => {
    while (performance.now() < deadline) {
      const user = o.users[next++ % o.users.length]
      r.sent++
      const s = performance.now()
      try {
        if (await one(user)) r.pass++
        else r.fail++
        rtts.push(performance.now() - s)
      } catch (e) {
        r.errors++
        firstError ??= e
        if (!(e instanceof TacacsTimeoutError)) await new Promise((res) => setTimeout(res, 10)) // a refused connection: do not spin
      }
      tEnd = performance.now()
    }
  }
  await Promise.all(Array.from({ length: o.inFlight ?? 8 }, worker))
  const cpu1 = o.pid ? cpuMs(o.pid) : 0
  const answered = r.pass + r.fail
  Object.assign(r, roundFigures(answered, tEnd - t0, rtts, o.pid ? { start: cpu0, end: cpu1 } : null))
  if (r.errors && !answered) throw new Error(`no TACACS+ answer: ${String(firstError)}`)
  return r
}
