/**
 * createPushService: the push service as one object, for push/main.ts and for the tests
 * (test/kit/push.ts). A Koa server on one port: the mobile contract (relayed to the core), the
 * core's notify call (handed to the sender), /healthz and /openapi.json. Stateless but for the
 * sender's queue and the window of channel nonces: everything it knows lives in the core.
 */
import { createServer, type Server } from 'node:http'
import Koa from 'koa'
import { pino, type Logger } from 'pino'
import { NonceWindow } from '../sdk/signed-request.js'
import { serve, type PushRoute } from './http.js'
import { buildOpenApi } from './openapi.js'
import { DEFAULT_MOBILE_LIMIT, IpRateLimit, type RateLimitOptions } from './rate-limit.js'
import { CoreRelay } from './relay.js'
import { mobileRoutes } from './routes/mobile.js'
import { platformRoutes } from './routes/platform.js'
import { Health, OpenApiDocument } from './schemas.js'
import type { PushSender } from './senders/sender.js'
import { WebPushSender } from './senders/web-push.js'
import { PUSH_SERVICE_VERSION } from './version.js'

/** The shared key's least length (the core's server option mfa.push_service_key asks the same). */
export const MIN_KEY_LENGTH = 32

export interface PushServiceOptions<S extends PushSender = PushSender> {
  /** Where the core listens: scheme://host:port (PUSH_CORE_URL). */
  coreUrl: string
  /** The key shared with the core (PUSH_SHARED_KEY), at least 32 characters. */
  key: string
  sender: S
  host?: string
  /** 0: a free port (the tests). */
  port?: number
  /** Request bodies larger are refused with 413 (the largest legitimate one, an enrollment, is under 2 KiB). */
  bodyLimitBytes?: number
  rateLimit?: RateLimitOptions
  /** How long a relayed request may take at the core before the app is answered 503. */
  coreTimeoutMs?: number
  /** Behind a reverse proxy: the app's address is the first of X-Forwarded-For (PUSH_TRUST_PROXY). */
  trustProxy?: boolean
  log?: Logger
}

export interface PushService<S extends PushSender = PushSender> {
  url: string
  port: number
  sender: S
  /** Stops listening; requests in flight get `graceMs` (3 s) to finish. */
  close(graceMs?: number): Promise<void>
}

export async function createPushService<S extends PushSender>(o: PushServiceOptions<S>): Promise<PushService<S>> {
  if (o.key.length < MIN_KEY_LENGTH) throw new Error(`the shared key must be at least ${MIN_KEY_LENGTH} characters`)
  const coreUrl = new URL(o.coreUrl)
  if (coreUrl.protocol !== 'http:' && coreUrl.protocol !== 'https:') throw new Error(`the core's URL must be http: or https:, not ${coreUrl.protocol}`)
  const log = o.log ?? pino({ level: 'info', base: { service: 'portcullis-push' }, timestamp: pino.stdTimeFunctions.isoTime })
  const warn = (msg: string, err?: unknown) => log.warn(err === undefined ? {} : { err }, msg)
  const limit = o.rateLimit ?? DEFAULT_MOBILE_LIMIT
  const relay = new CoreRelay({ coreUrl: o.coreUrl, key: o.key, timeoutMs: o.coreTimeoutMs ?? 10_000, nonces: new NonceWindow(), log: warn })
  const routes: PushRoute[] = [
    ...mobileRoutes({ relay, delivery: o.sender.kind, vapidPublicKey: o.sender instanceof WebPushSender ? o.sender.vapidPublicKey : null, addressRefusal: (a) => o.sender.refusal?.(a) ?? null }),
    ...platformRoutes({ key: o.key, nonces: new NonceWindow(), sender: o.sender, log: warn }),
  ]
  let doc: object = {}
  routes.push(
    {
      method: 'GET',
      path: '/healthz',
      operationId: 'health',
      tag: 'service',
      auth: 'none',
      summary: 'Liveness, and the contract version',
      responses: { 200: Health },
      handle: async () => ({ status: 200, body: { status: 'ok', version: PUSH_SERVICE_VERSION } }),
    },
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'openapi',
      tag: 'service',
      auth: 'none',
      summary: 'This document (OpenAPI 3.1)',
      responses: { 200: OpenApiDocument },
      handle: async () => ({ status: 200, body: doc }),
    },
  )
  // Built once at start: a schema the generator refuses fails the start, not the first reader.
  doc = buildOpenApi(routes, limit)

  const app = new Koa({ proxy: o.trustProxy ?? false, maxIpsCount: 1 })
  app.silent = true
  app.use(serve({ routes, bodyLimitBytes: o.bodyLimitBytes ?? 16 * 1024, limiter: new IpRateLimit(limit), onError: (err) => log.error({ err }, 'unhandled error') }))
  const server: Server = createServer(app.callback())
  // Phones on mobile networks are slow, but not this slow: a stalled client does not hold a socket for long.
  server.headersTimeout = 20_000
  server.requestTimeout = 30_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as { address: string; port: number }
  const host = address.address.includes(':') ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    sender: o.sender,
    async close(graceMs = 3000) {
      // Requests in flight get `graceMs` to finish (a relay waits on the core); idle keep-alive sockets go at once.
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
        setTimeout(() => server.closeAllConnections(), graceMs).unref()
      })
      await o.sender.close?.()
    },
  }
}

