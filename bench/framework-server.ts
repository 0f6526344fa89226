/**
 * A server under load for bench/framework.ts, run in its own process so that
 * autocannon (in the parent) does not share its CPU time:
 *
 *   bare  — node:http answering fixed bytes (status, headers and body taken
 *           from a real response of the app, given in BENCH_BARE_RESPONSE);
 *   koa   — a minimal Koa app (one @koa/router route) answering the same JSON
 *           with the same headers: the floor of the framework the kernel uses;
 *   app   — the real application (startApp) on the configuration in the
 *           environment, its logger chosen by BENCH_LOG: `silent` (a pino
 *           logger at level silent) or `info` (the production logger, whose
 *           stdout the parent sends to /dev/null).
 *
 * Reports { url } to the parent over IPC, and its CPU time when asked
 * (message `cpu`); stops on SIGTERM.
 */
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import Koa from 'koa'
import { Router } from '@koa/router'
import { startApp } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { createLogger } from '../kernel/logger.js'
import type { Logger } from '../sdk/index.js'

export interface BareResponse {
  status: number
  headers: [string, string][]
  body: string
}

export interface ServerReady {
  url: string
}

const send = (m: ServerReady) => process.send!(m)

/** CPU time this process has used (user + system, µs), asked by the parent around each measured run. */
export interface CpuReport {
  cpuUs: number
}
process.on('message', (m) => {
  if (m !== 'cpu') return
  const u = process.cpuUsage()
  process.send!({ cpuUs: u.user + u.system } satisfies CpuReport)
})

async function bare() {
  const r = JSON.parse(process.env.BENCH_BARE_RESPONSE ?? '') as BareResponse
  const body = Buffer.from(r.body)
  // Date, Connection and Keep-Alive are added by node:http itself, as for the app.
  const headers = r.headers.filter(([k]) => !/^(date|connection|keep-alive|transfer-encoding)$/i.test(k))
  const flat = headers.flat()
  const server = http.createServer((req, res) => {
    req.resume()
    res.writeHead(r.status, flat)
    res.end(body)
  })
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  send({ url: `http://127.0.0.1:${port}` })
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}

async function koa() {
  const r = JSON.parse(process.env.BENCH_BARE_RESPONSE ?? '') as BareResponse
  const body = JSON.parse(r.body) as unknown
  // The app's own headers (security headers, version), less what Koa and node:http add themselves.
  const fixed = r.headers.filter(([k]) => !/^(date|connection|keep-alive|transfer-encoding|content-type|content-length|x-request-id)$/i.test(k))
  const app = new Koa()
  const router = new Router()
  router.get('/api/v1/greetings/hello', (ctx) => {
    for (const [k, v] of fixed) ctx.set(k, v)
    ctx.set('X-Request-ID', randomUUID())
    ctx.body = body
  })
  app.use(router.routes())
  const server = http.createServer(app.callback())
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  send({ url: `http://127.0.0.1:${port}` })
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}

async function app() {
  const mode = process.env.BENCH_LOG ?? 'silent'
  const log: Logger = mode === 'info' ? createLogger('info') : (pino({ level: 'silent' }) as unknown as Logger)
  const a = await startApp(loadConfig(process.env), { log })
  send({ url: a.url })
  process.once('SIGTERM', () => {
    a.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}

const which = process.argv[2]
if (which === 'bare') await bare()
else if (which === 'koa') await koa()
else if (which === 'app') await app()
else throw new Error(`usage: framework-server.ts bare|koa|app (got ${which})`)
