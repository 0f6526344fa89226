/**
 * Rules about the request and the response as HTTP messages, before any route
 * runs: the security headers every answer carries, and the Host and Expect
 * headers Node would otherwise refuse with a bare status line (no envelope,
 * no request id). The server is created with `requireHostHeader: false` so
 * that a request without Host reaches these checks instead.
 */
import type Koa from 'koa'
import type { IncomingMessage } from 'node:http'
import { PortcullisError } from '../../sdk/index.js'

/**
 * On every answer, errors, 404s, 429s and the raw answers of `clientError`
 * included. JSON answers run no script and are never framed, so their policy
 * forbids everything; the docs pages replace it with their own (see docs.ts).
 * `no-store` is the default for every answer because the API's answers hold
 * tokens, secrets' metadata and personal data; only the docs' static assets
 * opt back into caching.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Cache-Control': 'no-store',
}

export function securityHeaders(): Koa.Middleware {
  const entries = Object.entries(SECURITY_HEADERS)
  // Straight onto the node response: koa's ctx.set re-checks and copies each value on every request.
  return (ctx, next) => {
    for (const [k, v] of entries) ctx.res.setHeader(k, v)
    return next()
  }
}

/**
 * A DNS name or IPv4 address (letters, digits, `. _ ~ -`) or a bracketed IPv6
 * address (with an optional `%25` zone), then an optional port. Stricter than
 * RFC 3986's reg-name (no sub-delims or percent-escapes): no real client sends
 * those, and the Host may end up in a link that is mailed (the MFA setup link
 * when `identity.public_url` is unset), so `/`, `@`, spaces and quotes must not.
 */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+(?:%25[A-Za-z0-9._~-]+)?\])(?::([0-9]{1,5}))?$/

/** How many Host header lines the request carried (Node keeps only the first in `headers`). */
function hostLines(req: IncomingMessage): number {
  let n = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === 'host') n++
  return n
}

export function hostCheck(): Koa.Middleware {
  return async (ctx, next) => {
    const req = ctx.req
    const host = req.headers.host
    const http11 = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
    // RFC 9112 §3.2: an HTTP/1.1 request without Host, with several, or with an invalid one is a 400.
    // HTTP/1.0 may omit it (old health checkers do).
    if (host === undefined || host === '') {
      if (http11) throw new PortcullisError(400, 'HOST_REQUIRED', 'core:errors.host_required')
    } else {
      const m = HOST.exec(host)
      if (!m || host.length > 255 || (m[1] !== undefined && Number(m[1]) > 65535) || hostLines(req) > 1) {
        throw new PortcullisError(400, 'HOST_INVALID', 'core:errors.host_invalid')
      }
    }
    // Node answers an unknown expectation with a bare 417 unless the server handles
    // `checkExpectation`; app.ts routes those requests here so the 417 is in the envelope.
    const expect = req.headers.expect
    if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
      throw new PortcullisError(417, 'EXPECTATION_FAILED', 'core:errors.expectation_failed')
    }
    await next()
  }
}
