/**
 * Rate limits as a route option: per client IP, per signed-in user, or per a
 * key the handler names. Counters are fixed windows kept in PostgreSQL, so a
 * limit holds across every node of a cluster: a client cannot multiply its
 * budget by spreading requests over nodes.
 */
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import { PortcullisError, type RateLimit } from '../../sdk/index.js'

/** The columns' bounds (migrations/0001_kernel.ts). */
const BUCKET_MAX = 128
const CLIENT_MAX = 64

export type Charge = { ok: true } | { ok: false; retryAfter: number; /** The first refusal of this window and client: the one worth auditing. */ first: boolean }

export const rateLimited = (retryAfter: number) =>
  new PortcullisError(429, 'RATE_LIMITED', 'core:errors.rate_limited', { vars: { retryAfter }, headers: { 'Retry-After': String(retryAfter) } })

/** A key longer than the column is hashed, not cut: two long keys sharing a prefix must not share a budget. */
const fit = (s: string, max: number) => (s.length <= max ? s : createHash('sha256').update(s).digest('base64url'))

/** The list of limits a route declares, whichever form it used. */
export const limitsOf = (r: RateLimit | readonly RateLimit[] | undefined): readonly RateLimit[] => (r === undefined ? [] : Array.isArray(r) ? r : [r as RateLimit])

/** How a limit reads in OpenAPI: "10 per 60 s per client IP". */
export function describeLimit(l: RateLimit): string {
  const per = l.by === 'key' ? l.per : l.by === 'user' ? 'signed-in user' : 'client IP'
  return `${l.max} per ${l.windowSeconds} s per ${per}`
}

export class RateLimiter {
  private lastSweep = 0

  constructor(private readonly knex: Knex) {}

  /** Counts the hit and says whether the client is within the limit. */
  async charge(bucket: string, client: string, limit: Pick<RateLimit, 'max' | 'windowSeconds'>): Promise<Charge> {
    const nowMs = Date.now()
    const windowMs = limit.windowSeconds * 1000
    const windowStart = Math.floor(nowMs / windowMs) * windowMs
    const row = (await this.knex.raw(
      `INSERT INTO rate_limit_hits (bucket, client, window_start, hits) VALUES (?, ?, ?, 1)
       ON CONFLICT (bucket, client, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
       RETURNING hits`,
      [fit(bucket, BUCKET_MAX), fit(client, CLIENT_MAX), windowStart],
    )) as { rows: { hits: number }[] }
    void this.sweep(nowMs)
    const hits = row.rows[0].hits
    if (hits <= limit.max) return { ok: true }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000)), first: hits === limit.max + 1 }
  }

  /** Counts the hit; throws 429 with Retry-After when the client is over the limit. */
  async hit(bucket: string, client: string, limit: Pick<RateLimit, 'max' | 'windowSeconds'>): Promise<void> {
    const c = await this.charge(bucket, client, limit)
    if (!c.ok) throw rateLimited(c.retryAfter)
  }

  /** Old windows are deleted at most once a minute, off the request's path. */
  private async sweep(nowMs: number) {
    if (nowMs - this.lastSweep < 60_000) return
    this.lastSweep = nowMs
    // A day covers any window a route declares; older counters can no longer count.
    await this.knex('rate_limit_hits').where('window_start', '<', nowMs - 86_400_000).delete().catch(() => undefined)
  }
}
