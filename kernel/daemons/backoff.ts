/** The delays between restarts of a daemon that keeps exiting. */

export interface BackoffOptions {
  /** The first delay (ms). */
  baseMs: number
  /** The longest delay (ms). */
  maxMs: number
  /** A run at least this long (ms) counts as healthy: the next exit starts again at `baseMs`. */
  resetAfterMs: number
}

/** 1 s, 2 s, 4 s … 60 s; reset after a minute of running. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 60_000, resetAfterMs: 60_000 }

export class Backoff {
  private step = 0

  constructor(private readonly o: BackoffOptions = DEFAULT_BACKOFF) {}

  /** The delay before the next start, after a run of `ranMs`; each call is one step. */
  next(ranMs: number): number {
    if (ranMs >= this.o.resetAfterMs) this.step = 0
    const delay = Math.min(this.o.maxMs, this.o.baseMs * 2 ** Math.min(this.step, 30))
    this.step++
    return delay
  }

  /** A new release is a fresh start: its first failure waits `baseMs` again. */
  reset(): void {
    this.step = 0
  }
}
