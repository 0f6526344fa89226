/**
 * Turns route definitions into koa handlers: gate → rate limit → body →
 * validation → a request scope → handler → reply. The order matters: an
 * unauthenticated caller learns nothing about validation, and a rate-limited
 * caller costs no parsing.
 */
import type Koa from 'koa'
import type { Router } from '@koa/router'
import type { AwilixContainer } from 'awilix'
import { asValue } from 'awilix'
import type { Knex } from 'knex'
import type { ValidateFunction } from 'ajv'
import { isReply, requestServices, type RouteDefinition, type RouteRequest, type AuditService } from '../../sdk/index.js'
import type { Gate } from '../security/gate.js'
import type { RateLimiter } from './rate-limit.js'
import { blankToNull, type Validation } from './validation.js'
import type { State } from './conventions.js'
import { readJsonBody } from './body.js'
import type { Translator } from '../i18n.js'

export interface MountDeps {
  validation: Validation
  gate: Gate
  rateLimiter: RateLimiter
  container: AwilixContainer
  knex: Knex
  audit: AuditService
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
  const bucket = `${route.method} ${fullPath(route)}`

  const handler: Koa.Middleware = async (ctx) => {
    const state = ctx.state as State
    const actor = await d.gate.check(route, ctx.get('authorization') || undefined)
    if (route.rateLimit) await d.rateLimiter.hit(bucket, ctx.ip, route.rateLimit)

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
      audit: (entry, trx) => d.audit.record(entry, { actor, requestId: state.requestId, trx }),
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
  void owner
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


