/**
 * Telling a database outage from a bug: an outage answers 503 (the client may
 * retry), a bug answers 500. Codes: node network errors, PostgreSQL class 08
 * (connection exception) and 57P (operator intervention: shutdown, crash),
 * knex's pool timeout. A statement cut by statement_timeout is a 503 too, but
 * not an outage. OutageLog keeps an outage from writing one line per request.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'])

/** A write reached a read-only server (a node pointed at a standby). */
export function isReadOnly(e: unknown): boolean {
  return (e as { code?: unknown })?.code === '25006'
}

export function isDatabaseOutage(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const err = cur as { code?: unknown; name?: unknown; message?: unknown }
    const code = typeof err.code === 'string' ? err.code : ''
    if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true
    if (err.name === 'KnexTimeoutError') return true
    const msg = typeof err.message === 'string' ? err.message : ''
    if (/Connection terminated|terminating connection|connect ECONNREFUSED|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(msg)) return true
  }
  return false
}

/** A statement cut by statement_timeout (SQLSTATE 57014, query_canceled): the query was too slow, the database is up. */
export function isStatementTimeout(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if ((cur as { code?: unknown }).code === '57014') return true
  }
  return false
}

interface OutageLogger {
  error(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

/**
 * An outage is logged once when it starts, then at most one line per
 * `everyMs` with the number of requests it failed since the previous line,
 * and once when the database is reachable again: a hundred clients retrying
 * every second must not turn into a hundred error lines a second.
 */
export class OutageLog {
  private down = false
  private since = 0
  private lastLine = 0
  private failed = 0
  private total = 0

  constructor(
    private readonly log: OutageLogger,
    private readonly everyMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request failed because the database could not be reached. */
  failure(err: unknown): void {
    const t = this.now()
    this.failed++
    this.total++
    const reason = String((err as Error)?.message ?? err).slice(0, 300)
    if (!this.down) {
      this.down = true
      this.since = this.lastLine = t
      this.failed = 0
      this.log.error({ err: reason, summary_every_s: this.everyMs / 1000 }, 'database unreachable: requests that need it answer 503 DATABASE_UNAVAILABLE until it is back')
    } else if (t - this.lastLine >= this.everyMs) {
      this.log.error({ err: reason, failed_requests: this.failed, down_for_s: Math.round((t - this.since) / 1000) }, 'database still unreachable')
      this.lastLine = t
      this.failed = 0
    }
  }

  /** A connection to the database succeeded: ends the outage, if there was one. */
  recovered(): void {
    if (!this.down) return
    this.down = false
    this.log.info({ failed_requests: this.total, down_for_s: Math.round((this.now() - this.since) / 1000) }, 'database reachable again')
    this.failed = this.total = 0
  }
}
