/**
 * Telling a database outage from a bug: an outage answers 503 (the client may
 * retry), a bug answers 500. Codes: node network errors, PostgreSQL class 08
 * (connection exception) and 57P (operator intervention: shutdown, crash),
 * knex's pool timeout.
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
