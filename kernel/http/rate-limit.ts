/**
 * Rate limits as a route option: per client IP, per signed-in user, or per a
 * key the handler names. "N per W seconds" means at most N hits let through in
 * any W seconds (a sliding window: the times of the hits let through are kept,
 * at most N of them). Kept in PostgreSQL, so a limit holds across every node of
 * a cluster: a client cannot multiply its budget by spreading requests over
 * nodes. Refused hits are not kept: they do not lengthen the wait.
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

  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts the hit and says whether the client is within the limit: at most `max` hits let through in
   * any `windowSeconds`, however they fall (a sliding window, not fixed windows: a burst straddling a
   * window's end used to get twice the limit). One statement per hit: the row's lock orders
   * concurrent hits from every node, each sees the hits let through before it.
   */
  async charge(bucket: string, client: string, limit: Pick<RateLimit, 'max' | 'windowSeconds'>): Promise<Charge> {
    const nowMs = this.now()
    const windowMs = limit.windowSeconds * 1000
    const since = nowMs - windowMs
    // The hits still inside the last window, oldest first; the new one joins them if there is room.
    const recent = 'ARRAY(SELECT h FROM unnest(r.hits) AS h WHERE h > ? ORDER BY h)'
    const room = `cardinality(${recent}) < ?`
    const row = (await this.knex.raw(
      `INSERT INTO rate_limit_hits AS r (bucket, client, hits, refused, last_at) VALUES (?, ?, ARRAY[?]::bigint[], 0, ?)
       ON CONFLICT (bucket, client) DO UPDATE SET
         hits = CASE WHEN ${room} THEN ${recent} || ?::bigint ELSE ${recent} END,
         refused = CASE WHEN ${room} THEN 0 ELSE r.refused + 1 END,
         last_at = ?
       RETURNING hits, refused`,
      [fit(bucket, BUCKET_MAX), fit(client, CLIENT_MAX), nowMs, nowMs, since, limit.max, since, nowMs, since, since, limit.max, nowMs],
    )) as { rows: { hits: (string | number)[]; refused: number }[] }
    void this.sweep(nowMs)
    const { hits, refused } = row.rows[0]
    if (refused === 0) return { ok: true }
    // Room again when the oldest hit let through leaves the window.
    const oldest = Number(hits[0])
    return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000)), first: refused === 1 }
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
    // A day covers any window a route declares; a client silent that long has nothing left to count.
    await this.knex('rate_limit_hits').where('last_at', '<', nowMs - 86_400_000).delete().catch(() => undefined)
  }
}
