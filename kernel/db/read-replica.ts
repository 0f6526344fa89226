/**
 * Reads that may be a little stale (log searches, exports, reports) go to a hot
 * standby (DATABASE_READ_URL) while it is reachable and close enough to the
 * primary; everything else, and those reads whenever the standby is not fit,
 * go to the primary. The state is one of:
 *
 * - `off`: no DATABASE_READ_URL (or the embedded engine): everything reads the primary;
 * - `ok`: the standby answers and is at most DATABASE_READ_MAX_LAG_MS behind;
 * - `lagging`: it answers but is further behind (replay paused or slow, or cut
 *   off from the primary while the primary writes): reads go to the primary;
 * - `unreachable`: it does not answer within a second: reads go to the primary;
 * - `not_standby`: the server accepts writes (not in recovery: promoted, or the
 *   URL names a primary): it is not a copy of our primary, so it is not read.
 *
 * Each change of state is logged once. The state is probed every second, and
 * again before each read while the standby answers, so the lag an answer shows
 * was measured just before its query.
 *
 * How far behind (the lag): `now() - pg_last_xact_replay_timestamp()` alone is
 * wrong when the primary is idle (the last replayed commit may be an hour old
 * while nothing is missing). Two upper bounds are taken instead, and the smaller
 * one reported:
 * 1. the WAL position: each probe first reads the primary's WAL insert position
 *    (every commit visible there lies before it), then the standby's replay
 *    position. Replayed past the position just read: lag 0. Otherwise the
 *    standby holds everything the primary held at the newest earlier probe
 *    whose position it has replayed: lag = the time since that probe. An idle
 *    primary's position does not move, so an idle pair shows 0;
 * 2. the age of the last replayed commit (the standby is a complete copy at
 *    least up to it): under a steady write load this is the tight one
 *    (milliseconds), where the probes' one-second spacing is not.
 * Neither known (a standby that has not reached any position we saw and has
 * replayed no commit): the lag is unknown, and counted as too far behind.
 */
import knexPkg, { type Knex } from 'knex'
import type { DatabaseReader, DatabaseService, Logger } from '../../sdk/index.js'
import { parseDatabaseHosts } from './hosts.js'
import { multiHostClient } from './multi-host-client.js'

export type ReadReplicaState = 'off' | 'ok' | 'lagging' | 'unreachable' | 'not_standby'

export interface ReadReplica {
  state(): ReadReplicaState
  /** The lag the last probe measured (ms; null when unknown or not measured). */
  lagMs(): number | null
  stop(): Promise<void>
}

/** The reads of a node without a replica: the primary, with no lag to show. */
export function primaryReads(knex: Knex): Pick<DatabaseService, 'reader' | 'read'> {
  const r: DatabaseReader = { knex, lagMs: null }
  return { reader: async () => r, read: (fn) => fn(r) }
}

const PROBE_EVERY_MS = 1000
/** A standby that does not answer a probe within this is unreachable. */
const PROBE_TIMEOUT_MS = 1000
/** How long a read on the standby waits for a lock held by replay before the primary answers it. */
const REPLAY_LOCK_WAIT_MS = 1000

/** `16/B374D848` → a number that orders like the position. */
export function parseLsn(text: string | null | undefined): bigint | null {
  const m = text ? /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text) : null
  return m ? (BigInt('0x' + m[1]) << 32n) | BigInt('0x' + m[2]) : null
}

interface Sample {
  at: number
  lsn: bigint
}

/**
 * The lag bound 1 above, from the primary's positions sampled so far (`latest` is this probe's own,
 * null when the primary did not answer), and bound 2, the replayed commit's age; the smaller.
 */
export function lagFrom(samples: readonly Sample[], latest: Sample | null, replay: bigint | null, replayAgeMs: number | null, now: number): number {
  if (replay !== null && latest && replay >= latest.lsn) return 0
  let byPosition = Infinity
  if (replay !== null) {
    let newest = -Infinity
    for (const s of samples) if (s.lsn <= replay && s.at > newest) newest = s.at
    if (newest > -Infinity) byPosition = now - newest
  }
  const byCommit = replayAgeMs === null ? Infinity : Math.max(0, replayAgeMs)
  const lag = Math.min(byPosition, byCommit)
  return Number.isFinite(lag) ? Math.ceil(lag) : Infinity
}

/** Errors of the standby itself, after which the same read is answered from the primary. */
export function isReplicaFailure(e: unknown): boolean {
  const err = e as { code?: unknown; name?: unknown; message?: unknown }
  const code = typeof err?.code === 'string' ? err.code : ''
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND'].includes(code)) return true
  // 08: connection exceptions; 57P01-03: the server shut down or is starting; 40001 on a standby:
  // the query was cancelled because replay needed what it held (a recovery conflict).
  // 55P03: lock_timeout, waiting for a lock that replay holds.
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '40001', '40P01', '55P03'].includes(code)) return true
  if (err?.name === 'KnexTimeoutError') return true
  return typeof err?.message === 'string' && /Connection terminated|conflict with recovery|Unable to acquire a connection/i.test(err.message)
}

const timeout = (ms: number) => new Promise<never>((_, reject) => setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms).unref())

/**
 * Starts watching the standby and makes `db.reader` / `db.read` use it. The
 * standby may be down at boot: the node starts anyway, reading the primary.
 */
export async function startReadReplica(db: DatabaseService, o: { url: string; maxLagMs: number; statementTimeoutMs?: number; log: Logger }): Promise<ReadReplica> {
  const log = o.log.child({ component: 'read-replica' })
  const primary = db.knex
  // Several hosts (the members of a Patroni cluster, `target_session_attrs=prefer-standby`): each new
  // connection goes to a member that fits, as for DATABASE_URL (hosts.ts).
  const hosts = parseDatabaseHosts(o.url, 'DATABASE_READ_URL')
  const connect = () => knexPkg.knex({
    client: hosts.probed ? (multiHostClient(hosts) as unknown as typeof knexPkg.Client) : 'pg',
    connection: {
      connectionString: o.url,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      application_name: 'portcullis-reader',
      // A second guard besides the standby itself: nothing written through this pool, whatever the server.
      // lock_timeout: on a standby only replay holds locks that block a read (the ACCESS EXCLUSIVE of a
      // DDL or a vacuum truncation replayed from the primary, held until its commit is replayed: long
      // when replay is slow or paused); the primary answers such a read instead of it hanging.
      options: `-c default_transaction_read_only=on -c lock_timeout=${REPLAY_LOCK_WAIT_MS}`,
      ...(o.statementTimeoutMs ? { statement_timeout: o.statementTimeoutMs } : {}),
    },
    acquireConnectionTimeout: PROBE_TIMEOUT_MS + 500,
    pool: { min: 0, max: 10, idleTimeoutMillis: 10_000 },
    // knex's own connection messages would come once per failed attempt: the state change says it once.
    log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined },
  })
  let replica = connect()
  const fromPrimary: DatabaseReader = { knex: primary, lagMs: null }
  let samples: Sample[] = []
  let state: ReadReplicaState = 'unreachable'
  let lag: number | null = null
  let announced: ReadReplicaState | null = null
  let stopped = false

  const setState = (next: ReadReplicaState, detail: Record<string, unknown> = {}) => {
    state = next
    if (next === announced) return
    const first = announced === null
    announced = next
    const ctx = { state: next, max_lag_ms: o.maxLagMs, ...detail }
    if (next === 'ok') log.info(ctx, first ? 'read replica in use: log searches and exports read the standby' : 'read replica back in use: log searches and exports read the standby again')
    else if (next === 'lagging') log.warn(ctx, 'read replica too far behind the primary: log searches and exports read the primary until it catches up')
    else if (next === 'not_standby') log.warn(ctx, 'DATABASE_READ_URL names a server that accepts writes (not a standby, or promoted): log searches and exports read the primary')
    else log.warn(ctx, 'read replica unreachable: log searches and exports read the primary until it answers again')
  }

  async function probe(): Promise<void> {
    let latest: Sample | null = null
    try {
      const r = (await primary.raw('select pg_current_wal_insert_lsn()::text as lsn')) as { rows: { lsn: string }[] }
      const lsn = parseLsn(r.rows[0]?.lsn)
      if (lsn !== null) latest = { at: Date.now(), lsn }
    } catch {
      /* the primary's own outage is reported by the requests and /ready; bound 2 still holds */
    }
    let row: { recovery: boolean; replay: string | null; replay_age_ms: number | null }
    try {
      const r = (await Promise.race([
        replica.raw(
          `select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as replay,
             (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 as replay_age_ms`,
        ),
        timeout(PROBE_TIMEOUT_MS),
      ])) as { rows: (typeof row)[] }
      row = r.rows[0]
    } catch (e) {
      lag = null
      setState('unreachable', { err: (e as Error).message })
      return
    }
    if (latest) {
      samples.push(latest)
      // Positions older than the bound cannot decide anything more: past it the standby is too far behind anyway.
      const keepFrom = Date.now() - o.maxLagMs - 10_000
      if (samples.length > 64 && samples[0].at < keepFrom) samples = samples.filter((s) => s.at >= keepFrom)
      if (samples.length > 4096) samples = samples.slice(-2048)
    }
    if (!row.recovery) {
      lag = null
      setState('not_standby')
      // Its pooled connections would keep it (a member promoted by a failover): the next probe connects
      // anew, so a multi-host URL reaches a standby again once there is one.
      const old = replica
      replica = connect()
      void old.destroy().catch(() => undefined)
      return
    }
    const measured = lagFrom(samples, latest, parseLsn(row.replay), row.replay_age_ms, Date.now())
    lag = Number.isFinite(measured) ? measured : null
    setState(measured <= o.maxLagMs ? 'ok' : 'lagging', { lag_ms: lag })
  }

  // One probe at a time; a read that arrives during one waits for the next, so its lag is measured after it arrived.
  let running: Promise<void> | null = null
  let queued: Promise<void> | null = null
  const probeNow = (): Promise<void> => {
    if (!running) {
      running = probe().finally(() => (running = null))
      return running
    }
    queued ??= running.then(() => {
      queued = null
      return probeNow()
    })
    return queued
  }

  await probeNow()
  const timer = setInterval(() => void probeNow(), PROBE_EVERY_MS)
  timer.unref()

  const reader = async (): Promise<DatabaseReader> => {
    // Down or not a standby: the next background probe says when that ends; no read waits on it.
    if (stopped || state === 'unreachable' || state === 'not_standby') return fromPrimary
    await probeNow()
    return state === 'ok' ? { knex: replica, lagMs: lag } : fromPrimary
  }

  db.reader = reader
  db.read = async (fn) => {
    const r = await reader()
    if (r.lagMs === null) return fn(r)
    try {
      return await fn(r)
    } catch (e) {
      if (!isReplicaFailure(e)) throw e
      log.warn({ err: (e as Error).message }, 'a read on the read replica failed: answered from the primary')
      void probeNow()
      return fn(fromPrimary)
    }
  }

  return {
    state: () => state,
    lagMs: () => lag,
    async stop() {
      stopped = true
      clearInterval(timer)
      await running?.catch(() => undefined)
      await replica.destroy().catch(() => undefined)
    },
  }
}
