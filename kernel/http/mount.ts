/**
 * Turns route definitions into koa handlers: gate → rate limits → body →
 * validation → a request scope → handler → reply. The order matters: an
 * unauthenticated caller learns nothing about validation, and a rate-limited
 * caller costs no parsing. Limits keyed by a value the handler names are
 * charged by the handler, through `req.rateLimit`.
 */
import type Koa from 'koa'
import type { Router } from '@koa/router'
import type { AwilixContainer } from 'awilix'
import { asValue } from 'awilix'
import type { Knex } from 'knex'
import type { ValidateFunction } from 'ajv'
import { isReply, requestServices, type Actor, type RateLimit, type RouteDefinition, type RouteRequest } from '../../sdk/index.js'
import type { Gate } from '../security/gate.js'
import { limitsOf, rateLimited, type RateLimiter } from './rate-limit.js'
import { blankToNull, type Validation } from './validation.js'
import type { State } from './conventions.js'
import { readJsonBody } from './body.js'
import type { Translator } from '../i18n.js'
import type { AuditTrail, ClientInfo } from '../audit/trail.js'

export interface MountDeps {
  validation: Validation
  gate: Gate
  rateLimiter: RateLimiter
  container: AwilixContainer
  knex: Knex
  audit: AuditTrail
  i18n: Translator
  bodyLimit: number
  validateResponses: boolean
}

/** `/rules/{rule_id}` → `/rules/:rule_id`. */
export const toKoaPath = (p: string) => p.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1')

export const fullPath = (r: RouteDefinition) => (r.root ? r.path : `/api/v1${r.path === '/' ? '' : r.path}`)

export function successStatus(r: RouteDefinition): number {
  const codes = Object.keys(r.schema.response).map(Number).filter((c) => c >= 200 && c < 300).sort()
  return codes[0] ?? 200
}

export function mountRoute(router: Router, route: RouteDefinition, owner: string, d: MountDeps): void {
  const v = {
    params: route.schema.params ? d.validation.compileParams(route.schema.params) : null,
    query: route.schema.query ? d.validation.compileParams(route.schema.query) : null,
    body: route.schema.body ? d.validation.compileBody(route.schema.body) : null,
  }
  const okStatus = successStatus(route)
  const responseSchema = route.schema.response[okStatus]
  const checkResponse = d.validateResponses && responseSchema && responseSchema !== 'file' ? d.validation.compileBody(responseSchema) : null
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

  const handler: Koa.Middleware = async (ctx) => {
    const state = ctx.state as State
    const actor = await d.gate.check(route, ctx.get('authorization') || undefined)
    const client: ClientInfo = { ip: ctx.ip, userAgent: ctx.get('user-agent') || null }
    for (const l of declared) {
      // A user's budget on a route anyone may call falls back to the address: there is no user yet.
      const byUser = l.by === 'user' && actor !== null
      await charge(`${routeBucket} ${l.by ?? 'ip'} ${l.max}/${l.windowSeconds}`, byUser ? actor.id : ctx.ip, l, { actor, requestId: state.requestId, client })
    }

    const params = check(v.params, { ...(ctx as unknown as { params: Record<string, string> }).params }, d.validation)
    const query = check(v.query, { ...ctx.query }, d.validation)
    let body: unknown
    if (v.body) {
      body = await readJsonBody(ctx, d.bodyLimit)
      body = check(v.body, blankToNull(route.schema.body, body), d.validation)
    }

    // The request's Awilix scope (actor, request id) is made on first use: most requests resolve
    // nothing from it, and making and disposing one costs more than the rest of the gate.
    let scope: AwilixContainer | null = null
    let current: Knex.Transaction | null = null
    const req: RouteRequest<unknown, unknown, unknown> = {
      params,
      query,
      body,
      actor,
      requestId: state.requestId,
      lang: state.lang,
      ip: ctx.ip,
      headers: ctx.headers,
      log: state.log,
      t: (key, vars) => d.i18n.t(state.lang, key, vars),
      async transaction(fn) {
        if (current) return fn(current) // nested: share the request's transaction
        return d.knex.transaction(async (trx) => {
          current = trx
          try {
            return await fn(trx)
          } finally {
            current = null
          }
        })
      },
      audit: (entry, trx) => d.audit.record(entry, { actor, requestId: state.requestId, trx, client }),
      auditNow: (event) => d.audit.event(event, { actor, requestId: state.requestId, client }),
      async rateLimit(name, key, user) {
        const l = keyed.get(name)
        if (!l) throw new Error(`${routeBucket} declares no rate limit named "${name}"`)
        // Routes of one plugin that declare the same name share the budget.
        await charge(`${owner}:${name}`, key, l, { actor, requestId: state.requestId, client, user })
      },
      resolve(ref) {
        if (!scope) {
          scope = d.container.createScope()
          scope.register({ [requestServices.actor.id]: asValue(actor), [requestServices.requestId.id]: asValue(state.requestId) })
        }
        return scope.resolve(ref.id)
      },
    }
    try {
      const out = await route.handler(req as never)
      send(ctx, out, okStatus, checkResponse, d.validation)
    } finally {
      if (scope) await (scope as AwilixContainer).dispose()
    }
  }
  ;(router as unknown as Record<string, (p: string, m: Koa.Middleware) => void>)[route.method.toLowerCase()](toKoaPath(fullPath(route)), handler)
}

function check(fn: ValidateFunction | null, value: unknown, validation: Validation): never | unknown {
  if (!fn) return undefined
  if (!fn(value)) throw validation.toError(fn.errors)
  return value
}

function send(ctx: Koa.Context, out: unknown, okStatus: number, checkResponse: ValidateFunction | null, validation: Validation) {
  if (isReply(out)) {
    ctx.status = out.status ?? okStatus
    for (const [k, v] of Object.entries(out.headers ?? {})) ctx.set(k, v)
    if (out.contentType) ctx.type = out.contentType
    if (out.stream) ctx.body = out.stream
    else if (out.body !== undefined) ctx.body = out.body
    return
  }
  if (checkResponse && !checkResponse(out)) {
    // A handler answered outside its documented schema: a bug, reported as one.
    throw new Error(`response does not match its schema: ${validation.describe(checkResponse.errors)}`)
  }
  ctx.status = okStatus
  if (okStatus !== 204 && out !== undefined) ctx.body = out
}


