/**
 * Middleware every response passes through, errors and 404s included:
 * X-Request-ID (echoed when sane, generated otherwise), X-API-Version: 1,
 * the negotiated language, an access log line, and the error envelope.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type Koa from 'koa'
import { isPortcullisError, isReferenceViolation, PortcullisError, type Logger } from '../../sdk/index.js'
import { isDatabaseOutage, isReadOnly, isStatementTimeout, type OutageLog } from '../db/outage.js'
import { negotiateLanguage, type Translator } from '../i18n.js'
import { SECURITY_HEADERS } from './transport.js'

export interface State {
  readonly requestId: string
  readonly lang: string
  readonly log: Logger
}

/** Printable ASCII without spaces or quotes, bounded: safe to echo into headers and logs. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/**
 * A request's state. The logger bound to its request id is made on first
 * use: most requests log nothing but the access line, which the root logger
 * writes with the same field, and a pino child per request costs as much as
 * the rest of the conventions together.
 */
class RequestState implements State {
  private child: Logger | null = null
  constructor(
    private readonly root: Logger,
    readonly requestId: string,
    readonly lang: string,
  ) {}

  get log(): Logger {
    return (this.child ??= this.root.child({ request_id: this.requestId }))
  }
}

const infoEnabled = (log: Logger) => (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? true

export function requestContext(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const sent = ctx.req.headers['x-request-id']
    const requestId = typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID()
    ctx.state = new RequestState(log, requestId, negotiateLanguage(ctx.req.headers['accept-language']))
    ctx.res.setHeader('X-Request-ID', requestId)
    ctx.res.setHeader('X-API-Version', '1')
    if (!infoEnabled(log)) return next()
    const started = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      log.info({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100 }, 'request')
    }
  }
}

/** `outage`: where DATABASE_UNAVAILABLE answers are counted, so an outage is not logged once per request. */
export function errorEnvelope(i18n: Translator, outage?: OutageLog): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next()
    } catch (raw) {
      const state = ctx.state as State
      const err = classify(raw)
      if (err.status >= 500 && err.code === 'INTERNAL_ERROR') state.log.error({ err: raw }, 'unhandled error')
      else if (err.code === 'DATABASE_UNAVAILABLE' && outage) outage.failure(raw)
      else if (err.status === 503) state.log.warn({ code: err.code, err: (raw as Error)?.message }, 'unavailable')
      ctx.status = err.status
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v)
      if (err.code === 'RATE_LIMITED') {
        // The contract's exception: 429 answers { detail, retry_after }, not the envelope.
        ctx.body = { detail: i18n.t(state.lang, err.messageKey, err.vars), retry_after: err.vars.retryAfter }
        return
      }
      const detail = (e: PortcullisError) => i18n.t(state.lang, e.messageKey, { requestId: state.requestId, ...e.vars })
      const body: Record<string, unknown> = { detail: detail(err), code: err.code, field: err.field }
      // A body that breaks its schema in several places: every field's problem at once (HTTPValidationError.errors).
      // (`?.`: an error made by an older copy of the SDK a plugin bundles has no list.)
      if (err.errors?.length) body.errors = err.errors.map((e) => ({ field: e.field, code: e.code, detail: detail(e) }))
      ctx.body = body
    }
  }
}

/** Anything thrown becomes a PortcullisError; bugs become a 500 that leaks no stack or SQL. */
export function classify(raw: unknown): PortcullisError {
  if (isPortcullisError(raw)) return raw
  // A delete refused by a foreign key (23503 no action, 23001 restrict): the record is still
  // referenced, by an AAA policy rule for instance.
  if (isReferenceViolation(raw)) return new PortcullisError(409, 'RECORD_IN_USE', 'core:errors.record_in_use')
  if (isReadOnly(raw)) return new PortcullisError(503, 'READ_ONLY_NODE', 'core:errors.read_only_node', { headers: { 'Retry-After': '5' } })
  // A statement cut by DB_STATEMENT_TIMEOUT_MS (57014): the database is up but this query was too slow
  // (or waited on a lock); the client may retry, and the connection goes back to the pool usable.
  if (isStatementTimeout(raw)) return new PortcullisError(503, 'DATABASE_TIMEOUT', 'core:errors.database_timeout', { headers: { 'Retry-After': '5' } })
  if (isDatabaseOutage(raw)) return new PortcullisError(503, 'DATABASE_UNAVAILABLE', 'core:errors.database_unavailable', { headers: { 'Retry-After': '5' } })
  // PostgreSQL cannot store a NUL character (22021 in text, 22P05 in jsonb): the client's input, not a bug.
  const pgCode = (raw as { code?: unknown })?.code
  if (pgCode === '22021' || pgCode === '22P05') return new PortcullisError(422, 'VALIDATION_FAILED', 'core:errors.validation')
  const status = (raw as { status?: number; statusCode?: number })?.status ?? (raw as { statusCode?: number })?.statusCode
  // koa's own http errors (a request that never parsed, a socket error) keep their 4xx status.
  if (typeof status === 'number' && status >= 400 && status < 500) return new PortcullisError(status, 'BAD_REQUEST', 'core:errors.validation')
  return new PortcullisError(500, 'INTERNAL_ERROR', 'core:errors.internal')
}

/**
 * A request Node refuses before koa sees it (request line or headers beyond
 * maxHeaderSize: 431; a malformed request: 400) still answers in the envelope
 * with X-Request-ID, X-API-Version and the security headers, not with Node's
 * bare status line.
 */
export function answerClientError(i18n: Translator): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // As Node does: write only if no response of this connection has started.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
      const body = JSON.stringify({ detail: i18n.t('en', 'core:errors.validation'), code: 'BAD_REQUEST', field: null })
      const security = Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join('')
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-ID: ${randomUUID()}\r\nX-API-Version: 1\r\n${security}Connection: close\r\n\r\n${body}`,
      )
    }
    socket.destroy()
  }
}
