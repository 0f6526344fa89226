/**
 * Per-client-IP rate limit as a route option. Counters are fixed windows kept
 * in PostgreSQL, so a limit holds across every node of a cluster: a client
 * cannot multiply its budget by spreading requests over nodes.
 */
import type { Knex } from 'knex'
import { PortcullisError, type RateLimit } from '../../sdk/index.js'

export class RateLimiter {
  private lastSweep = 0

  constructor(private readonly knex: Knex) {}

  /** Counts the hit; throws 429 with Retry-After when the client is over the limit. */
  async hit(bucket: string, client: string, limit: RateLimit): Promise<void> {
    const nowMs = Date.now()
    const windowMs = limit.windowSeconds * 1000
    const windowStart = Math.floor(nowMs / windowMs) * windowMs
    const row = (await this.knex.raw(
      `INSERT INTO rate_limit_hits (bucket, client, window_start, hits) VALUES (?, ?, ?, 1)
       ON CONFLICT (bucket, client, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
       RETURNING hits`,
      [bucket.slice(0, 128), client.slice(0, 64), windowStart],
    )) as { rows: { hits: number }[] }
    void this.sweep(nowMs)
    if (row.rows[0].hits > limit.max) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000))
      throw new PortcullisError(429, 'RATE_LIMITED', 'core:errors.rate_limited', { vars: { retryAfter }, headers: { 'Retry-After': String(retryAfter) } })
    }
  }

  /** Old windows are deleted at most once a minute, off the request's path. */
  private async sweep(nowMs: number) {
    if (nowMs - this.lastSweep < 60_000) return
    this.lastSweep = nowMs
    // A day covers any window a route declares; older counters can no longer count.
    await this.knex('rate_limit_hits').where('window_start', '<', nowMs - 86_400_000).delete().catch(() => undefined)
  }
}
