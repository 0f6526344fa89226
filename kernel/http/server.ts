/**
 * The Koa application: conventions first (security headers, request id,
 * version header, envelope, Host check), then docs, then the route table
 * (router.ts: by specificity, not registration order); anything unmatched is
 * a 404 (or a 405 with Allow) in the envelope.
 */
import Koa from 'koa'
import { PortcullisError, type Logger } from '../../sdk/index.js'
import type { Translator } from '../i18n.js'
import type { OwnedRoute } from '../plugins/registry.js'
import { errorEnvelope, requestContext } from './conventions.js'
import { docsMiddleware } from './docs.js'
import { hostCheck, securityHeaders } from './transport.js'
import { OutageLog } from '../db/outage.js'
import { fullPath, mountRoute, type MountDeps, type RouteHandler } from './mount.js'
import { RouteTable } from './router.js'
import { apiRoots, serveWeb } from './web.js'
import type { WebAssets } from '../../sdk/index.js'

export interface HttpOptions {
  log: Logger
  i18n: Translator
  routes: OwnedRoute[]
  mount: MountDeps
  docs: (() => object) | null
  trustProxy: boolean
  /** Plugins' browser files, for what no route answers (web.ts). */
  web?: readonly { owner: string; web: WebAssets }[]
}

export function createHttpApp(o: HttpOptions): Koa {
  // Behind the bundled front end only its own hop is trusted: the rightmost X-Forwarded-For address,
  // so a client cannot choose its IP (and escape a rate limit) by sending the header itself.
  const app = new Koa({ proxy: o.trustProxy, maxIpsCount: 1 })
  // Errors are answered by the envelope middleware; koa's default handler would print stacks.
  app.silent = true
  app.on('error', (err: Error) => o.log.debug({ err: err.message }, 'socket or stream error'))

  const table = new RouteTable<RouteHandler>()
  for (const { owner, route } of o.routes) table.add(route.method, fullPath(route), mountRoute(route, owner, o.mount))
  const roots = apiRoots(o.routes.filter((r) => r.route.root).map((r) => r.route.path))

  app.use(securityHeaders())
  app.use(requestContext(o.log))
  // The database outage log: one line when it starts, a summary every 30 s, one when a connection succeeds again.
  const outage = new OutageLog(o.log)
  const pool = (o.mount.knex.client as { pool?: { on(event: 'createSuccess', fn: () => void): void } }).pool
  pool?.on('createSuccess', () => outage.recovered())
  app.use(errorEnvelope(o.i18n, outage))
  app.use(hostCheck())
  if (o.docs) app.use(docsMiddleware(o.docs))
  app.use(async (ctx) => {
    const path = ctx.path
    const match = table.find(ctx.method, path)
    if (match) return match.value(ctx, match.params)
    const allowed = table.allowed(path)
    // A route's path asked with another method is the route's 405, never the console's page
    // (GET /.well-known/est/simpleenroll must not answer 200 with index.html).
    if (!allowed.length && o.web && (await serveWeb(ctx, o.web, roots))) return
    if (allowed.length) {
      throw new PortcullisError(405, 'METHOD_NOT_ALLOWED', 'core:errors.method_not_allowed', {
        vars: { method: ctx.method, allowed: allowed.join(', ') },
        headers: { Allow: allowed.join(', ') },
      })
    }
    throw new PortcullisError(404, 'ROUTE_NOT_FOUND', 'core:errors.route_not_found', { vars: { method: ctx.method, path: path.slice(0, 200) } })
  })
  return app
}
