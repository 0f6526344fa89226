/**
 * A throwaway PostgreSQL cluster from the server binaries on this machine
 * (initdb + pg_ctl, run as the `postgres` user when we are root), on a random
 * loopback port with fsync off; or the server named by TEST_DATABASE_URL.
 * Each test app gets a fresh database in it.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { scratchRoot } from './scratch.js'

export interface PgCluster {
  /** Connection URL of the maintenance database. */
  url: string
  /** A new empty database; returns its URL. */
  /** A new database; `template`: a copy of that database (which nobody may be connected to). */
  createDatabase(prefix?: string, o?: { template?: string }): Promise<string>
  /** Stop the server (simulates an outage when the cluster is ours). */
  stopServer(): void
  startServer(): void
  destroy(): void
  owned: boolean
  /** Where the cluster lives, for tools that work on its files (a standby by pg_basebackup): only when the cluster is ours. */
  server?: PgServer
}

/** The files and port of a cluster the kit started (absent for a TEST_DATABASE_URL server). */
export interface PgServer {
  /** The PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup). */
  binDir: string
  /** The cluster's data directory (PGDATA). */
  dataDir: string
  /** The folder holding the data directory, the log and the unix socket (owned by `postgres` when we are root). */
  baseDir: string
  port: number
}

export function findPgBin(): string | null {
  const env = process.env.PG_BIN
  if (env && existsSync(path.join(env, 'pg_ctl'))) return env
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return null
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a))
  return versions.length ? path.join(base, versions[0], 'bin') : null
}

/** A free TCP port (test/kit/ports.ts: outside the range listen(0) is given from). */
import { freePort } from './ports.js'
export { freePort }

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

/** Run a PostgreSQL program, as the `postgres` user when we are root (the server refuses to run as root). */
export function runPgProgram(bin: string, args: string[]): void {
  run(bin, args)
}

/** A new folder for a cluster's files, owned by `postgres` when we are root. */
export function makeClusterDir(prefix = 'portcullis-pg-'): string {
  const dir = mkdtempSync(path.join(scratchRoot(), prefix))
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()
    chownSync(dir, Number(ids), Number(gid))
  }
  return dir
}

/**
 * The server options the kit starts a cluster with (fast, unsafe for production: fsync off). WAL
 * stays at `replica` level with senders free, so a standby can stream from the cluster.
 */
export function kitServerOptions(port: number, dir: string): string {
  return `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c wal_level=replica -c max_wal_senders=10 -c max_replication_slots=10 -c hot_standby=on`
}

function run(bin: string, args: string[]) {
  const cmd = asRoot ? 'runuser' : bin
  const argv = asRoot ? ['-u', 'postgres', '--', bin, ...args] : args
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: os.tmpdir() })
  if (r.status !== 0) throw new Error(`${path.basename(bin)} failed (${r.status}): ${r.stderr || r.stdout}`)
}

let counter = 0

export async function startPostgres(): Promise<PgCluster> {
  const external = process.env.TEST_DATABASE_URL
  const createDatabase = (adminUrl: string) => async (prefix = 't', o: { template?: string } = {}) => {
    const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`
    const c = new pg.Client({ connectionString: adminUrl })
    await c.connect()
    try {
      await c.query(`CREATE DATABASE "${name}"${o.template ? ` TEMPLATE "${o.template}"` : ''}`)
    } finally {
      await c.end()
    }
    const u = new URL(adminUrl)
    u.pathname = `/${name}`
    return u.toString()
  }
  if (external) {
    return { url: external, createDatabase: createDatabase(external), stopServer: () => { throw new Error('cannot stop an external server') }, startServer: () => undefined, destroy: () => undefined, owned: false }
  }
  const bin = findPgBin()
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin and no TEST_DATABASE_URL: install the Debian package postgresql')
  const dir = makeClusterDir()
  const data = path.join(dir, 'data')
  run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'])
  const port = await freePort()
  const opts = kitServerOptions(port, dir)
  const start = () => run(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '30', 'start'])
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let destroyed = false
  return {
    url,
    owned: true,
    server: { binDir: bin, dataDir: data, baseDir: dir, port },
    createDatabase: createDatabase(url),
    stopServer: () => run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']),
    startServer: start,
    destroy: () => {
      if (destroyed) return
      destroyed = true
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
