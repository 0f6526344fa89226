/**
 * The per-IP limit of the mobile routes: at most `max` requests in any `windowSeconds` from one
 * address (a sliding window of the times let through; refused hits are not kept, so waiting is
 * enough to get through again). In memory: the push service is one process per deployment, and
 * the core keeps its own limits (per user, per device) where the state is. An app polls its
 * challenges after each notification, not in a loop, so the default leaves room for many phones
 * behind one NAT address.
 */
export interface RateLimitOptions {
  max: number
  windowSeconds: number
}

export const DEFAULT_MOBILE_LIMIT: RateLimitOptions = { max: 120, windowSeconds: 60 }

export class IpRateLimit {
  private readonly hits = new Map<string, number[]>()
  private lastSweep = 0

  constructor(
    readonly limit: RateLimitOptions = DEFAULT_MOBILE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts the hit: null when within the limit, else the seconds until there is room. */
  hit(ip: string): number | null {
    const now = this.now()
    const since = now - this.limit.windowSeconds * 1000
    this.sweep(now, since)
    const recent = (this.hits.get(ip) ?? []).filter((t) => t > since)
    if (recent.length >= this.limit.max) {
      this.hits.set(ip, recent)
      return Math.max(1, Math.ceil((recent[0] + this.limit.windowSeconds * 1000 - now) / 1000))
    }
    recent.push(now)
    this.hits.set(ip, recent)
    return null
  }

  /** Addresses silent for a window are forgotten, at most once a window: the map stays as large as the live clients. */
  private sweep(now: number, since: number): void {
    if (now - this.lastSweep < this.limit.windowSeconds * 1000) return
    this.lastSweep = now
    for (const [ip, times] of this.hits) if (times[times.length - 1] <= since) this.hits.delete(ip)
  }
}
