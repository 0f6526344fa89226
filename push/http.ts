/**
 * The push service's HTTP conventions, kept small: a route table of one schema per route (it
 * validates and it documents), JSON bodies read with a byte cap, every failure in the envelope
 * `{detail, code, field}`, the security headers and X-Push-Service-Version on every answer. The
 * same rules as the core's kernel/http (not imported: this process carries none of the kernel).
 */
import type Koa from 'koa'
import type { ValidateFunction } from 'ajv'
import type { TSchema } from 'typebox'
import { readBodyBytes } from '../sdk/http-input.js'
import { languageOf, PushError, rateLimited, tooLarge } from './errors.js'
import type { IpRateLimit } from './rate-limit.js'
import { compileData, compileParams, toError } from './validation.js'
import { PUSH_SERVICE_VERSION } from './version.js'

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export interface RouteInput {
  params: Record<string, string>
  body: unknown
  /** The body's bytes exactly as sent (device signatures cover them; the relay forwards them). */
  raw: Buffer
  headers: Record<string, string | string[] | undefined>
  /** The path with its query, as received (the signed channel covers it). */
  url: string
  ip: string
}

export interface RouteAnswer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface PushRoute {
  method: Method
  /** `/v1/challenges/{id}/answer` */
  path: string
  operationId: string
  summary: string
  description?: string
  tag: 'mobile' | 'platform' | 'service'
  /** Who may call: the app with its device key (checked by the core), the core over the signed channel, anyone. */
  auth: 'none' | 'enrollment' | 'device' | 'channel'
  params?: TSchema
  headers?: TSchema
  body?: TSchema
  /** Status → body schema (null: no body). Error statuses answer the envelope. */
  responses: Record<number, TSchema | null>
  /** Counted against the per-IP limit of the mobile routes. */
  limited?: boolean
  /** The raw body is read before the schema runs, and the handler checks it first (the signed channel). */
  verifyRaw?: (input: Pick<RouteInput, 'raw' | 'headers' | 'url'>) => void
  handle(input: RouteInput): Promise<RouteAnswer>
}

/** On every answer: JSON runs no script and is never framed; answers hold personal data, so never cached. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
}

/** Reads the body's bytes, stopping at `limit` (sdk/http-input.ts, shared with the core). */
const readBytes = (req: Koa.Context['req'], limit: number) => readBodyBytes(req, limit, { tooLarge: () => tooLarge(limit), incomplete: () => new PushError(400, 'BODY_MALFORMED_JSON') })

async function readRaw(ctx: Koa.Context, limit: number): Promise<Buffer> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  if (!hasBody) return Buffer.alloc(0)
  if (Number(ctx.get('content-length') || 0) > limit) throw tooLarge(limit)
  return readBytes(ctx.req, limit)
}

function parseJson(ctx: Koa.Context, raw: Buffer): unknown {
  if (raw.length === 0) throw new PushError(422, 'BODY_REQUIRED')
  if (!ctx.is('application/json')) throw new PushError(415, 'BODY_UNSUPPORTED_TYPE')
  const charset = ctx.request.charset.toLowerCase()
  const encoding = ctx.get('content-encoding').toLowerCase()
  if ((charset !== '' && charset !== 'utf-8' && charset !== 'utf8') || (encoding !== '' && encoding !== 'identity')) throw new PushError(415, 'BODY_UNSUPPORTED_TYPE')
  const text = raw.toString('utf8')
  if (text.trim() === '') throw new PushError(422, 'BODY_REQUIRED')
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new PushError(422, 'BODY_MALFORMED_JSON')
  }
}

interface Compiled {
  route: PushRoute
  pattern: RegExp
  names: string[]
  params?: ValidateFunction
  headers?: ValidateFunction
  body?: ValidateFunction
}

function compile(route: PushRoute): Compiled {
  const names: string[] = []
  // Paths are literal but for `{name}` segments (no regex characters in them: checked by the tests' route list).
  const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  return {
    route,
    pattern: new RegExp(`^${source}$`),
    names,
    params: route.params && compileParams(route.params),
    headers: route.headers && compileData(route.headers),
    body: route.body && compileData(route.body),
  }
}

export interface ServeOptions {
  routes: PushRoute[]
  bodyLimitBytes: number
  limiter: IpRateLimit
  onError: (err: unknown) => void
}

/** The one middleware: conventions, routing, validation, the handler, the envelope. */
export function serve(o: ServeOptions): Koa.Middleware {
  const table = o.routes.map(compile)
  const headerEntries = Object.entries({ ...SECURITY_HEADERS, 'X-Push-Service-Version': PUSH_SERVICE_VERSION })
  return async (ctx) => {
    for (const [k, v] of headerEntries) ctx.set(k, v)
    try {
      await dispatch(ctx)
    } catch (raw) {
      const err = raw instanceof PushError ? raw : new PushError(500, 'INTERNAL_ERROR')
      if (!(raw instanceof PushError)) o.onError(raw)
      for (const [k, v] of headerEntries) ctx.set(k, v)
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v)
      ctx.status = err.status
      // The rest of an oversized body is never read: the connection closes after the answer.
      if (err.status === 413) ctx.set('Connection', 'close')
      const detail = err.detail(languageOf(ctx.get('accept-language')))
      // 429 answers `{detail, retry_after}`, as the platform's contract has it (not the envelope).
      ctx.body = err.status === 429 ? { detail, retry_after: Number(err.vars.retryAfter) } : { detail, code: err.code, field: err.field }
    }
  }

  async function dispatch(ctx: Koa.Context): Promise<void> {
    const path = ctx.path
    let found: { c: Compiled; m: RegExpExecArray } | null = null
    const allowed: string[] = []
    for (const c of table) {
      const m = c.pattern.exec(path)
      if (!m) continue
      allowed.push(c.route.method)
      if (c.route.method === ctx.method || (ctx.method === 'HEAD' && c.route.method === 'GET')) found = { c, m }
    }
    if (!found) {
      if (allowed.length) throw new PushError(405, 'METHOD_NOT_ALLOWED', { method: ctx.method, allow: allowed.join(', ') }, null, { Allow: allowed.join(', ') })
      throw new PushError(404, 'ROUTE_NOT_FOUND', { method: ctx.method, path: path.slice(0, 200) })
    }
    const { c, m } = found
    const route = c.route
    if (route.limited) {
      const wait = o.limiter.hit(ctx.ip)
      if (wait !== null) throw rateLimited(wait)
    }
    const params: Record<string, string> = {}
    c.names.forEach((n, i) => {
      try {
        params[n] = decodeURIComponent(m[i + 1])
      } catch {
        params[n] = m[i + 1]
      }
    })
    if (c.params && !c.params(params)) throw toError(c.params.errors)
    const raw = route.body || route.verifyRaw ? await readRaw(ctx, o.bodyLimitBytes) : Buffer.alloc(0)
    const input: RouteInput = { params, body: undefined, raw, headers: ctx.headers, url: ctx.url, ip: ctx.ip }
    route.verifyRaw?.(input)
    if (c.headers) {
      const declared = Object.fromEntries(Object.keys((route.headers as { properties: object }).properties).filter((h) => ctx.headers[h] !== undefined).map((h) => [h, ctx.headers[h]]))
      if (!c.headers(declared)) throw toError(c.headers.errors)
    }
    if (c.body) {
      input.body = parseJson(ctx, raw)
      if (!c.body(input.body)) throw toError(c.body.errors)
    }
    const answer = await route.handle(input)
    for (const [k, v] of Object.entries(answer.headers ?? {})) ctx.set(k, v)
    ctx.status = answer.status
    if (answer.body !== undefined && answer.body !== null && answer.status !== 204) ctx.body = answer.body
  }
}
