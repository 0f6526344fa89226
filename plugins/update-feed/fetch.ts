/**
 * The one request the update check makes: a GET of the feed, pull-only, with a deadline over the
 * whole exchange, a bounded read, and at most MAX_REDIRECTS redirects, each to the feed's own host
 * or one named in `update_feed.redirect_hosts`. node:http/https (not fetch): a redirect is decided
 * here, hop by hop, and the read stops at the bound instead of buffering what the server sends.
 */
import http from 'node:http'
import https from 'node:https'
import type { PlatformInfo } from '../../sdk/index.js'
import { feedUrlAllowed, MAX_ANSWER_BYTES, MAX_REDIRECTS } from './settings.js'

export type FetchOutcome =
  | { ok: true; body: Buffer }
  /** Nothing usable arrived: a status, not an error. */
  | { ok: false; status: 'unreachable'; reason: 'network_error' | 'timeout' | 'http_error'; httpStatus?: number }
  /** An answer arrived that is refused before it is read as a manifest. */
  | { ok: false; status: 'rejected'; reason: 'too_large' | 'redirect_refused' | 'too_many_redirects' }

export interface FetchOptions {
  timeoutMs: number
  redirectHosts: readonly string[]
  maxBytes?: number
}

/** The address asked: the setting's, with what the contract says the request carries. */
export function feedRequestUrl(base: string, platform: Pick<PlatformInfo, 'edition' | 'version' | 'installationId'>): URL {
  const u = new URL(base)
  u.searchParams.set('edition', platform.edition.id)
  u.searchParams.set('version', platform.version)
  // The installation id identifies a Pro installation (its subscription); a Community one sends none.
  if (platform.edition.id === 'pro' && platform.installationId) u.searchParams.set('iid', platform.installationId)
  else u.searchParams.delete('iid')
  return u
}

class Stop extends Error {
  constructor(readonly outcome: Exclude<FetchOutcome, { ok: true }>) {
    super(outcome.reason)
  }
}

type Hop = { kind: 'body'; body: Buffer } | { kind: 'redirect'; location: string }

function get(url: URL, headers: Record<string, string>, maxBytes: number, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http
    const req = lib.request(url, { method: 'GET', headers, signal, agent: false }, (res) => {
      const status = res.statusCode ?? 0
      if ([301, 302, 303, 307, 308].includes(status)) {
        res.resume()
        const location = res.headers.location
        if (!location) return reject(new Stop({ ok: false, status: 'unreachable', reason: 'http_error', httpStatus: status }))
        return resolve({ kind: 'redirect', location })
      }
      if (status !== 200) {
        res.resume()
        return reject(new Stop({ ok: false, status: 'unreachable', reason: 'http_error', httpStatus: status }))
      }
      const declared = Number(res.headers['content-length'])
      if (Number.isFinite(declared) && declared > maxBytes) {
        reject(new Stop({ ok: false, status: 'rejected', reason: 'too_large' }))
        return res.destroy()
      }
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > maxBytes) {
          // Stop reading at the bound: a feed that sends without end costs at most this much.
          reject(new Stop({ ok: false, status: 'rejected', reason: 'too_large' }))
          res.destroy()
          return
        }
        chunks.push(c)
      })
      res.on('end', () => resolve({ kind: 'body', body: Buffer.concat(chunks) }))
      res.on('error', reject)
      res.on('aborted', () => reject(new Error('answer cut short')))
    })
    req.on('error', reject)
    req.end()
  })
}

/** GET the feed; never throws: every failure is an outcome. */
export async function fetchFeed(url: URL, userAgent: string, o: FetchOptions): Promise<FetchOutcome> {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, o.timeoutMs)
  const home = url.hostname.toLowerCase()
  const allowedHosts = new Set([home, ...o.redirectHosts.map((h) => h.toLowerCase())])
  try {
    let current = url
    for (let hop = 0; ; hop++) {
      const r = await get(current, { 'User-Agent': userAgent, Accept: 'application/json' }, o.maxBytes ?? MAX_ANSWER_BYTES, controller.signal)
      if (r.kind === 'body') return { ok: true, body: r.body }
      if (hop >= MAX_REDIRECTS) return { ok: false, status: 'rejected', reason: 'too_many_redirects' }
      let next: URL
      try {
        next = new URL(r.location, current)
      } catch {
        return { ok: false, status: 'rejected', reason: 'redirect_refused' }
      }
      // The same rule as the setting (https, or http to this machine), never https → http, and a listed host.
      const downgrade = current.protocol === 'https:' && next.protocol !== 'https:'
      if (downgrade || !feedUrlAllowed(next.href) || !allowedHosts.has(next.hostname.toLowerCase())) return { ok: false, status: 'rejected', reason: 'redirect_refused' }
      current = next
    }
  } catch (e) {
    if (e instanceof Stop) return e.outcome
    if (timedOut) return { ok: false, status: 'unreachable', reason: 'timeout' }
    return { ok: false, status: 'unreachable', reason: 'network_error' }
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
}
