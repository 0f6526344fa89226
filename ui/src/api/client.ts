/**
 * The one way the console talks to the server: /api/v1 of the same origin,
 * typed by the paths of the OpenAPI document (generated/api.d.ts, made at
 * build time). Every failure becomes an ApiError carrying the contract's
 * envelope (`detail`, `code`, `field`) or, for a 429, the seconds to wait.
 */
import type { paths } from '../generated/api'
import { checkBody, loadRules, type FieldProblem } from './rules'

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type Json<X> = X extends { content: { 'application/json': infer J } } ? J : void
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M & keyof paths[P]]>
type Responses<O> = O extends { responses: infer R } ? R : never
/** The body of the lowest 2xx answer, as the server picks it. */
export type Ok<O> = 200 extends keyof Responses<O> ? Json<Responses<O>[200]> : 201 extends keyof Responses<O> ? Json<Responses<O>[201]> : void
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never
type PathOf<O> = O extends { parameters: { path: infer P } } ? P : never
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never }[keyof paths]

export interface CallOptions<O> {
  query?: QueryOf<O>
  params?: PathOf<O>
  body?: BodyOf<O>
  /** A token other than the session (the password-change token, the MFA enrolment token): sent as the bearer token. */
  token?: string
  signal?: AbortSignal
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    /** The offending input (`name`, `address`…): the form highlights it. */
    readonly field: string | null,
    /** Seconds to wait, on a 429. */
    readonly retryAfter: number | null = null,
    /**
     * Every field's problem, when there are several: the server's 422 `errors`, or what the
     * browser found before sending (then `status` is 422 and nothing was sent).
     */
    readonly errors: readonly FieldProblem[] = [],
  ) {
    super(message)
  }
}

/**
 * What the client needs from the app around it: whether a session is on, the language, and what
 * to do when the session ends. The session itself is the server's HttpOnly cookie, which no
 * script here can read (docs/security.md): the browser sends it, to /api/ of this origin only.
 */
export const session = {
  signedIn: false,
  language: 'en',
  onExpired: () => {},
}

/**
 * The headers of every call to the API. `X-Portcullis-Console: 1` asks a sign-in for the session
 * cookie and lets the cookie count on every other call: the server takes the cookie only with it,
 * and a page of another origin cannot send it (the CSRF defence).
 */
export function consoleHeaders(more: Record<string, string> = {}): Record<string, string> {
  return { 'X-Portcullis-Console': '1', 'Accept-Language': session.language, ...more }
}

/** A 401 on a call made with the session: it ended (signed out in another tab, expired, revoked): back to the sign-in. */
function expiredIf(status: number, ownToken?: string) {
  if (status === 401 && !ownToken && session.signedIn) session.onExpired()
}

/** The contract's envelope of a refusal, as an ApiError; a 401 of the session ends it first (expiredIf). */
function failure(res: Response, body: unknown, ownToken?: string): ApiError {
  const b = (body ?? {}) as { detail?: string; code?: string; field?: string | null; retry_after?: number; errors?: FieldProblem[] }
  if (res.status === 429) {
    const wait = b.retry_after ?? Number(res.headers.get('Retry-After') ?? 0)
    return new ApiError(429, b.detail ?? 'Too many requests', 'RATE_LIMITED', null, wait || null)
  }
  // A session the server no longer takes (expired, revoked, signed out): back to the sign-in, not an error on a page.
  expiredIf(res.status, ownToken)
  return new ApiError(res.status, b.detail ?? `${res.status} ${res.statusText}`, b.code ?? 'HTTP_' + res.status, b.field ?? null, b.retry_after ?? null, Array.isArray(b.errors) ? b.errors : [])
}

function url(path: string, params?: object, query?: object): string {
  let p = path
  for (const [k, v] of Object.entries(params ?? {})) p = p.replace(`{${k}}`, encodeURIComponent(String(v)))
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `${p}?${s}` : p
}

async function call<O>(method: string, path: string, o: CallOptions<O> = {}): Promise<Ok<O>> {
  const headers = consoleHeaders({ Accept: 'application/json' })
  if (o.token) headers.Authorization = `Bearer ${o.token}`
  if (o.body !== undefined) headers['Content-Type'] = 'application/json'
  // The body is checked against the operation's schema first (api/rules.ts): every field's
  // problem at once, and no request for what the server would refuse anyway.
  if (o.body !== undefined) {
    // What the server will read: the JSON (a Date becomes its string, undefined disappears, NaN is null).
    const sent: unknown = JSON.parse(JSON.stringify(o.body))
    const problems = checkBody(await loadRules(), `${method} ${path}`, sent, session.language === 'ru' ? 'ru' : 'en')
    if (problems.length) throw new ApiError(422, problems[0].detail, problems[0].code, problems[0].field, null, problems)
  }
  let res: Response
  try {
    res = await fetch(url(path, o.params as object, o.query as object), { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: o.signal })
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e
    throw new ApiError(0, (e as Error).message, 'NETWORK', null)
  }
  if (res.status === 204) return undefined as Ok<O>
  const text = await res.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = null
  }
  if (res.ok) return body as Ok<O>
  throw failure(res, body, o.token)
}

export const api = {
  get: <P extends PathsWith<'get'>>(path: P, o?: CallOptions<Op<P, 'get'>>) => call<Op<P, 'get'>>('GET', path, o),
  post: <P extends PathsWith<'post'>>(path: P, o?: CallOptions<Op<P, 'post'>>) => call<Op<P, 'post'>>('POST', path, o),
  patch: <P extends PathsWith<'patch'>>(path: P, o?: CallOptions<Op<P, 'patch'>>) => call<Op<P, 'patch'>>('PATCH', path, o),
  put: <P extends PathsWith<'put'>>(path: P, o?: CallOptions<Op<P, 'put'>>) => call<Op<P, 'put'>>('PUT', path, o),
  delete: <P extends PathsWith<'delete'>>(path: P, o?: CallOptions<Op<P, 'delete'>>) => call<Op<P, 'delete'>>('DELETE', path, o),
}

/** GET /ready: a degraded node answers 503 with the same report, which the dashboard shows rather than an error. */
export async function readiness(): Promise<import('./types').Readiness> {
  const res = await fetch('/ready', { headers: { Accept: 'application/json' } })
  if (res.status !== 200 && res.status !== 503) throw new ApiError(res.status, res.statusText, 'HTTP_' + res.status, null)
  return (await res.json()) as import('./types').Readiness
}

/** Hands a file the page holds to the browser under `name` (a download, no navigation). */
export function saveBlob(name: string, blob: Blob): void {
  const href = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = href
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

/**
 * A file the API answers (an export): fetched with the console's header (so
 * not a plain link), handed to the browser as a download under the name the
 * server gives in Content-Disposition. Failures are ApiErrors like any call's.
 */
export async function download(path: string, query: Record<string, unknown>): Promise<{ name: string; rows: number | null }> {
  const headers = consoleHeaders()
  const res = await fetch(url(path, undefined, query), { headers })
  if (!res.ok) throw failure(res, await res.json().catch(() => null))
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'export'
  saveBlob(name, await res.blob())
  const rows = res.headers.get('X-Service-Export-Rows')
  return { name, rows: rows === null ? null : Number(rows) }
}

/**
 * A file sent as the body of a POST (an import: `text/csv`), with the
 * session (its cookie); the JSON answer typed by the path like any call's, every
 * failure an ApiError like any call's.
 */
export async function upload<P extends PathsWith<'post'>>(path: P, file: Blob, contentType: string, query?: QueryOf<Op<P, 'post'>>): Promise<Ok<Op<P, 'post'>>> {
  const headers = consoleHeaders({ Accept: 'application/json', 'Content-Type': contentType })
  const res = await fetch(url(path, undefined, query as object), { method: 'POST', headers, body: file })
  const body = (await res.json().catch(() => null)) as unknown
  if (res.ok) return body as Ok<Op<P, 'post'>>
  throw failure(res, body)
}

/** A file sent as the body of a PUT (a portal's logo: image/png…), with the session (its cookie); failures are ApiErrors. */
export async function putFile<P extends PathsWith<'put'>>(path: P, params: PathOf<Op<P, 'put'>>, file: Blob, contentType: string): Promise<void> {
  const headers = consoleHeaders({ Accept: 'application/json', 'Content-Type': contentType })
  const res = await fetch(url(path, params as object), { method: 'PUT', headers, body: file })
  if (res.ok) return
  throw failure(res, await res.json().catch(() => null))
}

/**
 * A page the API answers as HTML or text (a portal's preview, a printable list), fetched with the
 * session (its cookie): the caller shows it in a sandboxed frame, never as the console's own markup.
 */
export async function fetchText(path: string, params: object, query: Record<string, string> = {}, accept = 'text/html'): Promise<string> {
  const headers = consoleHeaders({ Accept: accept })
  const res = await fetch(url(path, params, query), { headers })
  if (res.ok) return res.text()
  throw failure(res, await res.json().catch(() => null))
}
