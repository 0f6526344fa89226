/**
 * Schema-first routes. The same TypeBox schemas validate the request, shape
 * the handler's types and document the operation in OpenAPI.
 */
import type { Knex } from 'knex'
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { Static, TSchema } from './schema.js'
import type { Actor, AuditEntry, Logger } from './services.js'
import type { ServiceRef } from './service-ref.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A route anyone may call (health, public downloads). Listed in the public allow-list. */
export const PUBLIC = Symbol.for('portcullis.public')
/** Any signed-in caller, whatever their permissions (sign-out, own profile, password change). */
export const AUTHENTICATED = Symbol.for('portcullis.authenticated')
export type Permission = string | typeof PUBLIC | typeof AUTHENTICATED

/**
 * A budget of requests in fixed windows, counted in PostgreSQL so that it
 * holds across every node of a cluster. Whose budget it is:
 * - `ip` (the default): the client's address;
 * - `user`: the signed-in caller (a stolen session or password_change token
 *   guesses no faster from many addresses); on a PUBLIC route, the address;
 * - `key`: a value the handler names once it knows it (a user named in the
 *   body), by calling `req.rateLimit(name, key)`. Routes of one plugin that
 *   declare the same `name` share one budget per key.
 */
export type RateLimit =
  | { max: number; windowSeconds: number; by?: 'ip' | 'user' }
  | {
      max: number
      windowSeconds: number
      by: 'key'
      /** What the handler passes to `req.rateLimit`; unique within the plugin. */
      name: string
      /** Whom a key stands for, in the OpenAPI description ("user named in the body"). */
      per: string
    }

/** Why a credential check failed or what it did, for the audit trail. Never the password or code itself. */
export interface AuthEvent {
  /** `auth.login`, `auth.mfa_verify`, … */
  action: string
  outcome: 'success' | 'failure'
  /** For a failure: `unknown_user`, `bad_password`, `disabled`, `locked`, `mfa_bad_code`, … */
  reason?: string | null
  /** The account concerned, when it exists. */
  userId?: string | null
  /** The user name that was attempted, when nobody is signed in (truncated to 64 characters). */
  username?: string | null
  after?: unknown
}

/** The media types and headers of a download, as the OpenAPI document declares them. */
export interface DownloadDeclaration {
  mediaTypes: readonly string[]
  headers?: Readonly<Record<string, { description: string; schema: TSchema; required?: boolean }>>
}

export interface RouteSchema {
  params?: TSchema
  query?: TSchema
  body?: TSchema
  /** Status → body schema. `null` for a response without a body (204), `'file'` for a download. */
  response: Record<number, TSchema | null | 'file'>
}

type S<T> = T extends TSchema ? Static<T> : undefined

export interface RouteRequest<P, Q, B> {
  params: P
  query: Q
  body: B
  /** Null only on PUBLIC routes. */
  actor: Actor | null
  requestId: string
  /** The negotiated language (`en`, `ru`). */
  lang: string
  ip: string
  headers: IncomingHttpHeaders
  log: Logger
  /** Translate a key for this request's language. */
  t(key: string, vars?: Record<string, unknown>): string
  /** The request's transaction: opened on first use, shared by nested calls, committed when `fn` resolves. */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>
  /** Record a change in the audit trail, in the given transaction (with the client's IP and user agent). */
  audit(entry: AuditEntry, trx: Knex.Transaction): Promise<void>
  /**
   * Record an authentication event at once, outside the request's
   * transaction: a refused attempt rolls the request back, its row stays.
   * Call it only where a rate limit bounds how often it can run.
   */
  auditNow(event: AuthEvent): Promise<void>
  /**
   * Charge the route's `by: 'key'` limit `name` for `key` (a user id, say);
   * throws 429 when that budget is spent. The first refusal of a window is
   * audited under the route's `auditAs`, for the `user` given.
   */
  rateLimit(name: string, key: string, user?: { id?: string | null; username?: string | null }): Promise<void>
  /** A service from the request's scope (made on first use, disposed when the request ends). */
  resolve<T>(ref: ServiceRef<T>): T
  /**
   * Checks a value as a JSON body of `schema` is checked (blank optional text made null first), throwing
   * the same 422 a request would get: an import checks each row with the single-record route's schema.
   */
  checkBody<T extends TSchema>(schema: T, value: unknown): Static<T>
  /** The request's bytes as sent, on a route that declares `rawBody` (null on any other). */
  rawBody: Buffer | null
  /** The method, the path as sent (`/api/v1/...`, not decoded) and the query string as sent, without `?` (`''` when none): what a request signature covers. */
  target: { method: string; path: string; query: string }
  /** The client closed the connection: nobody will read the answer (a long poll stops waiting). */
  readonly aborted: boolean
}

/**
 * A body that is not JSON (an OCSP request, a PKCS#10 for EST), or JSON whose
 * exact bytes the handler needs (a signature covers them): the kernel reads at most `maxBytes` of one of `mediaTypes` (else 413 / 415 in the
 * envelope) and hands the bytes to the handler as `req.rawBody`.
 */
export interface RawBodyDeclaration {
  mediaTypes: readonly string[]
  maxBytes: number
  description: string
  /**
   * For JSON read as bytes (a body whose exact bytes are signed, like the push service's relayed
   * app requests): the shape the document declares. The handler still checks it itself.
   */
  jsonSchema?: TSchema
}

/** A reply with a chosen status, headers, or a streamed body. */
export interface Reply {
  readonly __reply: true
  status?: number
  body?: unknown
  headers?: Record<string, string>
  stream?: Readable
  contentType?: string
}

export const reply = (r: Omit<Reply, '__reply'>): Reply => ({ __reply: true, ...r })
export const isReply = (x: unknown): x is Reply => typeof x === 'object' && x !== null && (x as Reply).__reply === true

export interface RouteDefinition<Sc extends RouteSchema = RouteSchema> {
  method: HttpMethod
  /** OpenAPI-style path under /api/v1 (or absolute with `root: true`), e.g. `/tacacs/command-sets/{command_set_id}`. */
  path: string
  /** Mount outside /api/v1 (root routes such as /.well-known/est/…). */
  root?: boolean
  permission: Permission
  /** Bearer token purposes accepted; default `['session']`. Widen for `password_change`, `mfa_enrollment`. */
  acceptTokenPurposes?: ('session' | 'password_change' | 'mfa_enrollment')[]
  /** One limit or several; a request must fit every one. */
  rateLimit?: RateLimit | readonly RateLimit[]
  /**
   * The route checks a credential: the audit action its attempts are written
   * under. A rate-limit refusal is then written too (reason `locked`), once per
   * window and budget, so refusals cannot fill the trail.
   */
  auditAs?: string
  summary: string
  description?: string
  tags?: string[]
  /**
   * What a `'file'` response carries, for the OpenAPI document: its media
   * types and the headers it sends. Exports answer EXPORT_DOWNLOAD
   * (export.ts); without it, application/octet-stream with Content-Disposition.
   */
  download?: DownloadDeclaration
  /** The route reads a body of its own media type (never with `schema.body`). */
  rawBody?: RawBodyDeclaration
  schema: Sc
  handler: (req: RouteRequest<S<Sc['params']>, S<Sc['query']>, S<Sc['body']>>) => Promise<unknown>
}

/** The schema of the success answer: the lowest 2xx status, as the kernel picks it (`successStatus`). */
type SuccessSchema<R> = 200 extends keyof R ? R[200] : 201 extends keyof R ? R[201] : 202 extends keyof R ? R[202] : 204 extends keyof R ? R[204] : null

/**
 * What a handler of schema Sc may answer: the success body's static type, or
 * a Reply (custom status, headers, a stream; a download must use one). A
 * bodyless success (204) answers nothing.
 */
export type Answer<Sc extends RouteSchema> =
  SuccessSchema<Sc['response']> extends infer X ? (X extends TSchema ? Static<X> | Reply : X extends 'file' ? Reply : void | Reply) : never

type Primitive = string | number | boolean | bigint | symbol | null | undefined
type Members<A, K extends PropertyKey> = A extends unknown ? (K extends keyof A ? A[K] : never) : never
type ElementOf<A> = A extends readonly (infer E)[] ? E : never

/**
 * R with every key the schema type A lacks turned into `never`, through
 * nested objects and arrays: TypeScript does not check excess properties of
 * an object a contextually typed function returns, so a handler could answer
 * a field no schema declares (a hash, a sealed column) and still compile.
 * Where A admits anything (`Type.Unknown()`), R is left as it is.
 */
export type NoExtraKeys<R, A> = unknown extends A
  ? R
  : R extends Primitive | Date | Reply
    ? R
    : R extends readonly unknown[]
      ? { [I in keyof R]: NoExtraKeys<R[I], ElementOf<A>> }
      : R extends object
        ? { [K in keyof R]: K extends (A extends unknown ? keyof A : never) ? NoExtraKeys<R[K], Members<A, K>> : never }
        : R

/**
 * Identity function that infers the handler's types from the schemas and
 * checks its answer against the success response: a field the schema lacks
 * or a value of the wrong type does not compile.
 */
export const defineRoute = <Sc extends RouteSchema, R extends Answer<Sc>>(
  r: Omit<RouteDefinition<Sc>, 'handler'> & {
    handler: (req: RouteRequest<S<Sc['params']>, S<Sc['query']>, S<Sc['body']>>) => Promise<R & NoInfer<NoExtraKeys<R, Answer<Sc>>>>
  },
): RouteDefinition<Sc> => r
