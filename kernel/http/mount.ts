/**
 * Turns route definitions into koa handlers: gate → rate limits → body →
 * validation → a request scope → handler → reply. The order matters: an
 * unauthenticated caller learns nothing about validation, and a rate-limited
 * caller costs no parsing. Limits keyed by a value the handler names are
 * charged by the handler, through `req.rateLimit`.
 */
import type Koa from 'koa'
import type { Knex } from 'knex'
import type { ValidateFunction } from 'ajv'
import { isReply, type Actor, type RateLimit, type RouteDefinition } from '../../sdk/index.js'
import type { Gate } from '../security/gate.js'
import type { ServiceRegistry } from '../container.js'
import { limitsOf, rateLimited, type RateLimiter } from './rate-limit.js'
import { blankToNull, type Validation } from './validation.js'
import type { State } from './conventions.js'
import { readJsonBody, readRawBody } from './body.js'
import { ResponseWriter } from './serialize.js'
import { HandlerRequest, type RouteShared } from './request.js'
import type { Translator } from '../i18n.js'
import type { AuditTrail, ClientInfo } from '../audit/trail.js'
import { clearedSessionCookie, consoleCookieToken, endsConsoleSession, fromConsole, sessionAnswer, sessionCookie, wantsSecure } from '../security/session-cookie.js'

export interface MountDeps {
  validation: Validation
  gate: Gate
  rateLimiter: RateLimiter
  services: ServiceRegistry
  knex: Knex
  audit: AuditTrail
  i18n: Translator
  bodyLimit: number
  validateResponses: boolean
  /** `identity.public_url`: an https one makes the console's session cookie Secure whatever the request's protocol. */
  publicUrl?: () => Promise<string | null>
}

export const fullPath = (r: RouteDefinition) => (r.root ? r.path : `/api/v1${r.path === '/' ? '' : r.path}`)

export function successStatus(r: RouteDefinition): number {
  const codes = Object.keys(r.schema.response).map(Number).filter((c) => c >= 200 && c < 300).sort()
  return codes[0] ?? 200
}

/** A mounted route: answers one matched request (params already taken from the path). */
export type RouteHandler = (ctx: Koa.Context, params: Record<string, string>) => Promise<void>

/**
 * The query as koa parses it (URLSearchParams; a repeated name gives an
 * array), without koa's per-request cache object: only routes that declare a
 * query read it. `__proto__` is kept as a plain own property.
 */
export function parseQuery(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  if (qs === '') return out
  for (const [k, v] of new URLSearchParams(qs)) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined
    if (prev === undefined) Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true })
    else if (Array.isArray(prev)) prev.push(v)
    else out[k] = [prev, v]
  }
  return out
}

export function mountRoute(route: RouteDefinition, owner: string, d: MountDeps): RouteHandler {
  const v = {
    params: route.schema.params ? d.validation.compileParams(route.schema.params) : null,
    query: route.schema.query ? d.validation.compileParams(route.schema.query) : null,
    body: route.schema.body ? d.validation.compileBody(route.schema.body) : null,
  }
  const writer = new ResponseWriter(route, successStatus(route), d.validateResponses ? d.validation : null)
  const limits = limitsOf(route.rateLimit)
  const declared = limits.filter((l) => l.by !== 'key')
  const keyed = new Map(limits.flatMap((l) => (l.by === 'key' ? [[l.name, l] as const] : [])))
  const routeBucket = `${route.method} ${fullPath(route)}`

  /** Charges one budget; on refusal, audits the first one of the window (when the route checks a credential) and throws 429. */
  async function charge(bucket: string, key: string, limit: RateLimit, who: { actor: Actor | null; requestId: string; client: ClientInfo; user?: { id?: string | null; username?: string | null } }) {
    const c = await d.rateLimiter.charge(bucket, key, limit)
    if (c.ok) return
    // Once per window and budget: the refusals that follow cannot fill the trail.
    if (c.first && route.auditAs) {
      const event = {
        action: route.auditAs,
        outcome: 'failure' as const,
        reason: 'locked',
        userId: who.user?.id ?? who.actor?.id ?? null,
        username: who.user?.username ?? null,
        after: { limit: { max: limit.max, window_seconds: limit.windowSeconds, by: limit.by ?? 'ip' } },
      }
      await d.audit.event(event, { actor: who.actor, requestId: who.requestId, client: who.client })
    }
    throw rateLimited(c.retryAfter)
  }

  const shared: RouteShared = {
    owner,
    knex: d.knex,
    audit: d.audit,
    i18n: d.i18n,
    services: d.services,
    checkBody: (schema, value) => check(d.validation.compileBodyOnce(schema), blankToNull(schema, value), d.validation),
    async chargeKeyed(name, key, who) {
      const l = keyed.get(name)
      if (!l) throw new Error(`${routeBucket} declares no rate limit named "${name}"`)
      // Routes of one plugin that declare the same name share the budget.
      await charge(`${owner}:${name}`, key, l, who)
    },
  }

  return async (ctx, pathParams) => {
    const state = ctx.state as State
    const headers = ctx.req.headers
    const actor = await d.gate.check(route, headers.authorization || undefined, consoleCookieToken(headers))
    const client: ClientInfo = { ip: ctx.ip, userAgent: headers['user-agent'] || null }
    for (const l of declared) {
      // A user's budget on a route anyone may call falls back to the address: there is no user yet.
      const byUser = l.by === 'user' && actor !== null
      await charge(`${routeBucket} ${l.by ?? 'ip'} ${l.max}/${l.windowSeconds}`, byUser ? actor.id : client.ip, l, { actor, requestId: state.requestId, client })
    }

    const params = v.params ? check(v.params, pathParams, d.validation) : undefined
    const query = v.query ? check(v.query, parseQuery(ctx.querystring), d.validation) : undefined
    let body: unknown
    if (v.body) {
      body = await readJsonBody(ctx, d.bodyLimit)
      const schema = route.schema.body
      body = blankToNull(schema, body)
      if (!v.body(body)) throw d.validation.bodyError(schema!, body, v.body.errors)
    }
    const rawBody = route.rawBody ? await readRawBody(ctx, route.rawBody) : null

    const req = new HandlerRequest(shared, state, client, headers, actor, params, query, body, rawBody, ctx.method, ctx.path, ctx.querystring, ctx.req.socket)
    try {
      const out = await route.handler(req as never)
      writer.send(ctx, out)
      await consoleCookie(d, ctx, route, headers, out)
    } finally {
      const disposed = req.dispose()
      if (disposed) await disposed
    }
  }
}

/**
 * The console's session cookie (session-cookie.ts): set on a session answer to a request that
 * asked for it, whichever route gave the session (a sign-in, a second factor, a password
 * change: any answer of SessionTokenResponse's shape holding a session token); cleared by a
 * sign-out. After the answer is written, so an answer that fails sets nothing.
 */
async function consoleCookie(d: MountDeps, ctx: Koa.Context, route: RouteDefinition, headers: Koa.Request['headers'], out: unknown) {
  if (ctx.status >= 300) return
  const secure = async () => wantsSecure(ctx.secure, (await d.publicUrl?.()) ?? null)
  if (endsConsoleSession.has(route)) {
    ctx.append('Set-Cookie', clearedSessionCookie(await secure()))
    return
  }
  if (!fromConsole(headers)) return
  const s = sessionAnswer(isReply(out) ? out.body : out)
  // Only a session token goes into the cookie: the password_change and mfa tokens never do.
  if (s && (await d.gate.isSession(s.token))) ctx.append('Set-Cookie', sessionCookie(s.token, s.ttl, await secure()))
}

function check(fn: ValidateFunction, value: unknown, validation: Validation): unknown {
  if (!fn(value)) throw validation.toError(fn.errors)
  return value
}
