/**
 * The console's session cookie: one sign-in per browser, the token out of
 * scripts' reach. A sign-in that asks for it (header `X-Portcullis-Console: 1`)
 * gets its session token also as an HttpOnly, SameSite=Strict cookie on
 * /api/; the gate then takes that cookie, and only when the request carries
 * the same header and no Authorization. A page of another origin cannot send
 * a custom header without a CORS preflight, which this server never grants
 * (no route answers OPTIONS, no Access-Control-* header is ever sent), so a
 * forged form or a cross-site fetch carries no authority even where the
 * browser would attach the cookie (a sibling origin of the same site).
 *
 * The cookie holds the very session token the JSON answer carries: every
 * check on it (expiry, revocation by logout, password change or an
 * administrator, a disabled, expired or deleted user) applies unchanged.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { RouteDefinition } from '../../sdk/index.js'

export const SESSION_COOKIE = 'portcullis_session'
/** Lower case, as Node names incoming headers. */
export const CONSOLE_HEADER = 'x-portcullis-console'
/** As the console sends it and OpenAPI documents it. */
export const CONSOLE_HEADER_NAME = 'X-Portcullis-Console'
const COOKIE_PATH = '/api/'
/** A JWT's alphabet (base64url and dots): nothing else is ever taken from the Cookie header. */
const TOKEN = /^[A-Za-z0-9._-]{1,8192}$/

/** Routes whose success ends the caller's session (the sign-out): their answer clears the cookie. */
export const endsConsoleSession = new WeakSet<RouteDefinition>()

/** Whether the request says it is the console's (asks for the cookie on sign-in, may use it elsewhere). */
export function fromConsole(headers: IncomingHttpHeaders): boolean {
  return headers[CONSOLE_HEADER] === '1'
}

/** The session cookie's token, when the request is the console's; undefined otherwise (the cookie alone counts for nothing). */
export function consoleCookieToken(headers: IncomingHttpHeaders): string | undefined {
  if (!fromConsole(headers)) return undefined
  const cookie = headers.cookie
  if (!cookie) return undefined
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue
    const value = part.slice(eq + 1).trim()
    return TOKEN.test(value) ? value : undefined
  }
  return undefined
}

/**
 * The token a request authenticated with: the bearer token, else the console's cookie. The same
 * rule as the gate's, for routes that act on their own token (logout revokes it).
 */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const m = /^Bearer +(\S+)$/i.exec(headers.authorization ?? '')
  if (m) return m[1]
  if (headers.authorization) return undefined
  return consoleCookieToken(headers)
}

/** A session answer (POST /auth/login, /mfa/verify, /auth/change-password…): its token and lifetime, or null. */
export function sessionAnswer(body: unknown): { token: string; ttl: number } | null {
  if (typeof body !== 'object' || body === null) return null
  const b = body as { access_token?: unknown; token_type?: unknown; expires_in?: unknown }
  if (typeof b.access_token !== 'string' || b.token_type !== 'bearer' || typeof b.expires_in !== 'number') return null
  return TOKEN.test(b.access_token) ? { token: b.access_token, ttl: Math.max(0, Math.floor(b.expires_in)) } : null
}

const attributes = (secure: boolean) => `; HttpOnly; SameSite=Strict; Path=${COOKIE_PATH}${secure ? '; Secure' : ''}`

export function sessionCookie(token: string, ttl: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Max-Age=${ttl}${attributes(secure)}`
}

/** What a sign-out answers: the browser drops the cookie (the token itself is revoked on the server). */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Max-Age=0${attributes(secure)}`
}

/**
 * Whether the cookie gets `Secure`: the request came over HTTPS (as koa tells it: the socket, or
 * X-Forwarded-Proto from a trusted proxy with TRUST_PROXY), or the public address the operator
 * set (`identity.public_url`) is https, so a proxy that forwards without saying the protocol still
 * gets a cookie the browser never sends over plain HTTP.
 */
export function wantsSecure(requestSecure: boolean, publicUrl: string | null | undefined): boolean {
  return requestSecure || /^https:/i.test(publicUrl ?? '')
}
