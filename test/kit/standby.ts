/**
 * A hot standby of a cluster the kit started: `pg_basebackup -R` (streaming
 * replication through a physical replication slot, so the primary keeps the WAL
 * a paused standby still needs), started on its own loopback port with
 * `hot_standby=on`. The test drives it as an operator would: pause replay (a
 * standby that falls behind), resume, promote, stop, start.
 */
import path from 'node:path'
import { rmSync } from 'node:fs'
import pg from 'pg'
import { freePort, kitServerOptions, makeClusterDir, runPgProgram, type PgCluster } from './postgres.js'

export interface Standby {
  /** Connection URL of the standby's maintenance database. */
  url: string
  port: number
  /** The same database as `databaseUrl` (a URL on the primary), on the standby. */
  urlFor(databaseUrl: string): string
  /** Stop applying WAL (it still arrives): the standby falls behind while the primary writes. Resolves once replay is paused. */
  pauseReplay(): Promise<void>
  resumeReplay(): Promise<void>
  /** Resolves once the standby has replayed everything the primary had written when it was called. */
  waitCaughtUp(timeoutMs?: number): Promise<void>
  /** Make the standby a primary (pg_ctl promote); resolves once it accepts writes. */
  promote(): Promise<void>
  /** Stop the standby's server at once (an unreachable replica). */
  stop(): void
  /** Start it again after stop(); it resumes streaming from its slot. */
  start(): void
  /** Stop it, remove its files and its replication slot on the primary. */
  destroy(): Promise<void>
}

let counter = 0

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query<T>(sql, params)).rows
  } finally {
    await c.end()
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startStandby(primary: PgCluster): Promise<Standby> {
  const server = primary.server
  if (!server) throw new Error('a standby needs a cluster the test kit started (not a TEST_DATABASE_URL server): its files and port')
  const bin = server.binDir
  const dir = makeClusterDir('portcullis-standby-')
  const data = path.join(dir, 'data')
  const slot = `kit_standby_${process.pid}_${counter++}`
  // -R writes primary_conninfo and standby.signal; -C -S makes the slot that holds WAL for us.
  runPgProgram(path.join(bin, 'pg_basebackup'), [
    '-D', data, '-d', `host=127.0.0.1 port=${server.port} user=postgres application_name=${slot}`,
    '-R', '-X', 'stream', '-C', '-S', slot, '--no-sync', '-c', 'fast',
  ])
  const port = await freePort()
  const opts = kitServerOptions(port, dir)
  const pgCtl = path.join(bin, 'pg_ctl')
  const start = () => runPgProgram(pgCtl, ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'])
  const stop = () => runPgProgram(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'])
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let destroyed = false

  const standby: Standby = {
    url,
    port,
    urlFor(databaseUrl) {
      const u = new URL(databaseUrl)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.toString()
    },
    async pauseReplay() {
      await query(url, 'select pg_wal_replay_pause()')
      // A pause is requested, then takes effect at the next record: wait until it has.
      for (let i = 0; i < 200; i++) {
        const [r] = await query<{ s: string }>(url, 'select pg_get_wal_replay_pause_state() as s')
        if (r.s === 'paused') return
        await sleep(50)
      }
      throw new Error('the standby did not pause its replay within 10 s')
    },
    async resumeReplay() {
      await query(url, 'select pg_wal_replay_resume()')
    },
    async waitCaughtUp(timeoutMs = 60_000) {
      // The insert position, not the write position: the kit commits with synchronous_commit=off, so the
      // last commit may still sit in the WAL buffers (the WAL writer sends it within wal_writer_delay).
      const [p] = await query<{ lsn: string }>(primary.url, 'select pg_current_wal_insert_lsn()::text as lsn')
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const [r] = await query<{ done: boolean; at: string | null }>(
          url,
          'select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as done, pg_last_wal_replay_lsn()::text as at',
          [p.lsn],
        )
        if (r.done) return
        if (Date.now() > deadline) throw new Error(`the standby has replayed up to ${r.at}, not ${p.lsn}, after ${timeoutMs} ms (is its replay paused?)`)
        await sleep(50)
      }
    },
    async promote() {
      runPgProgram(pgCtl, ['-D', data, '-w', '-t', '60', 'promote'])
      for (let i = 0; i < 200; i++) {
        const [r] = await query<{ r: boolean }>(url, 'select pg_is_in_recovery() as r')
        if (!r.r) return
        await sleep(50)
      }
      throw new Error('the standby was still in recovery 10 s after pg_ctl promote')
    },
    stop,
    start,
    async destroy() {
      if (destroyed) return
      destroyed = true
      try {
        stop()
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true })
      // A slot left behind makes the primary keep WAL for ever.
      try {
        await query(primary.url, 'select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1', [slot])
      } catch {
        /* the primary is gone already */
      }
    },
  }
  return standby
}
