/**
 * A real PostgreSQL cluster under Patroni for the high-availability tests and the failover bench:
 * one etcd and two or three PostgreSQL 15 members, each with its own Patroni, all on loopback ports.
 *
 * Every member runs from examples/patroni/patroni.yml, the file docs/cluster.md gives a site, with a
 * small file laid over it (Patroni reads a folder of YAML files in name order and merges them): the
 * member's name, its loopback ports and folders, the test's passwords, fsync off, and the options a
 * test chooses (synchronous mode, other dynamic settings). Patroni and PostgreSQL run as the
 * `postgres` user when we are root (PostgreSQL refuses to run as root); etcd runs as we do.
 *
 * `killMember` is the loss of a server: kill -9 of the member's Patroni and of its PostgreSQL (the
 * postmaster and every backend). `killMember(name, { postgresOnly: true })` kills PostgreSQL alone,
 * which Patroni notices and restarts in place (the member stays leader): the tests use the former.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { findPgBin, freePort } from './postgres.js'

export const PATRONI_BIN = process.env.PATRONI_BIN || '/usr/bin/patroni'
export const ETCD_BIN = process.env.ETCD_BIN || '/usr/bin/etcd'
/** The configuration a site uses (docs/cluster.md); every test member starts from it. */
export const PATRONI_EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/patroni/patroni.yml')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

/** Why the cluster cannot start here (a program missing), or null. */
export function patroniMissing(): string | null {
  if (!existsSync(PATRONI_BIN)) return `no Patroni (${PATRONI_BIN}): install the Debian package patroni`
  if (!existsSync(ETCD_BIN)) return `no etcd (${ETCD_BIN}): install the Debian package etcd-server`
  if (!findPgBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: install the Debian package postgresql'
  return null
}

export interface PatroniMember {
  name: string
  pgPort: number
  /** Patroni's REST API, e.g. http://127.0.0.1:8008 */
  restUrl: string
  dataDir: string
  /** Patroni's own process id while it runs (null once killed). */
  patroniPid(): number | null
  /** The postmaster's process id, from its postmaster.pid (null when PostgreSQL is not running). */
  postgresPid(): number | null
}

/** One member as Patroni's GET /cluster lists it. */
export interface ClusterMember {
  name: string
  role: 'leader' | 'sync_standby' | 'replica' | string
  state: string
  port: number
  timeline?: number
  lag?: number | string
}

export interface PatroniOptions {
  /** 2 or 3 (default 3). */
  members?: number
  /** Patroni's synchronous_mode (default: true, as the example). */
  synchronous?: boolean
  /** Other dynamic settings laid over the example's bootstrap.dcs (ttl, maximum_lag_on_failover, …). */
  dcs?: Record<string, unknown>
}

export interface PatroniCluster {
  members: PatroniMember[]
  /** The superuser's password (the same on every member). */
  password: string
  /** The libpq multi-host URL of a database: every member, writes only where it is the primary. */
  url(database: string, targetSessionAttrs?: 'read-write' | 'any'): string
  /** A single member's URL (to look at one server directly). */
  memberUrl(name: string, database?: string): string
  /** A new database (created on the leader, replicated); returns its multi-host URL. */
  createDatabase(prefix?: string): Promise<string>
  /** Patroni's view (GET /cluster from the first member that answers). */
  clusterState(): Promise<ClusterMember[] | null>
  /** The member Patroni calls leader (running), or null. */
  leader(): Promise<string | null>
  /** Until a leader other than `except` runs and its PostgreSQL accepts writes; returns its name. */
  waitForLeader(o?: { except?: string; timeoutMs?: number }): Promise<string>
  /** Until every running member streams from the leader (and one is synchronous in synchronous mode). */
  waitHealthy(timeoutMs?: number): Promise<ClusterMember[]>
  /** Members whose PostgreSQL answers and is not in recovery (the truth about who takes writes). */
  primaries(): Promise<string[]>
  /** Whether the member's PostgreSQL answers, and whether it is in recovery. */
  inRecovery(name: string): Promise<boolean | null>
  killMember(name: string, o?: { postgresOnly?: boolean }): Promise<void>
  /** Starts a killed member's Patroni again on its data and waits until it has rejoined. */
  restartMember(name: string, timeoutMs?: number): Promise<void>
  stopEtcd(): Promise<void>
  startEtcd(): Promise<void>
  /** PATCH /config on the leader: change a dynamic setting for the whole cluster. */
  patchConfig(patch: Record<string, unknown>): Promise<void>
  /** The member's Patroni log so far. */
  log(name: string): string
  destroy(): void
}

/** Every process below `pid` (children, their children, …), from /proc. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>()
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      // The command name may hold spaces and parentheses: the parent pid follows the last ')'.
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8')
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = []
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p) (out.push(c), walk(c))
  }
  walk(pid)
  return out
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')
  } catch {
    return false
  }
}
const kill9 = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    /* gone */
  }
}

async function untilTrue(what: string, ok: () => Promise<boolean> | boolean, timeoutMs: number, detail = () => ''): Promise<void> {
  const end = Date.now() + timeoutMs
  for (;;) {
    if (await ok()) return
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail()}`)
    await sleep(250)
  }
}

async function getJson<T>(url: string, timeoutMs = 2000): Promise<{ status: number; body: T } | null> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    return { status: r.status, body: (await r.json()) as T }
  } catch {
    return null
  }
}

interface MemberState extends PatroniMember {
  dir: string
  confDir: string
  logFile: string
  restPort: number
  child: ChildProcess | null
}

export async function startPatroni(o: PatroniOptions = {}): Promise<PatroniCluster> {
  const why = patroniMissing()
  if (why) throw new Error(why)
  const pgBin = findPgBin()!
  const n = o.members ?? 3
  const root = mkdtempSync(path.join(os.tmpdir(), 'portcullis-patroni-'))
  const ids = asRoot ? { uid: Number(readId('-u')), gid: Number(readId('-g')) } : null
  const password = randomBytes(12).toString('hex')
  const own = (p: string) => ids && chownSync(p, ids.uid, ids.gid)
  own(root)

  // ---- etcd: one member, loopback only ----
  const etcdClient = await freePort()
  const etcdPeer = await freePort()
  const etcdDir = path.join(root, 'etcd')
  let etcd: ChildProcess | null = null
  const etcdLog = path.join(root, 'etcd.log')
  const startEtcd = async () => {
    const fd = openSync(etcdLog, 'a')
    etcd = spawn(ETCD_BIN, [
      '--name', 'etcd1', '--data-dir', etcdDir,
      '--listen-client-urls', `http://127.0.0.1:${etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`,
      '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster', `etcd1=http://127.0.0.1:${etcdPeer}`, '--initial-cluster-state', 'new', '--initial-cluster-token', path.basename(root),
    ], { stdio: ['ignore', fd, fd], cwd: root })
    closeSync(fd)
    await untilTrue('etcd', async () => (await getJson<{ health: string }>(`http://127.0.0.1:${etcdClient}/health`))?.body.health === 'true', 30_000, () => `\n${tail(etcdLog)}`)
  }

  // ---- members ----
  const members: MemberState[] = []
  for (let i = 1; i <= n; i++) {
    const name = `pg${i}`
    const dir = path.join(root, name)
    const confDir = path.join(dir, 'patroni.d')
    mkdirSync(confDir, { recursive: true })
    const pgPort = await freePort()
    const restPort = await freePort()
    const dataDir = path.join(dir, 'data')
    copyFileSync(PATRONI_EXAMPLE, path.join(confDir, '00-site.yml'))
    // JSON is YAML: this file is laid over the site's (lists and values replace, maps merge).
    const local = {
      name,
      restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
      etcd3: { hosts: `127.0.0.1:${etcdClient}` },
      bootstrap: { dcs: { synchronous_mode: o.synchronous ?? true, ...(o.dcs ?? {}) } },
      postgresql: {
        listen: `127.0.0.1:${pgPort}`,
        connect_address: `127.0.0.1:${pgPort}`,
        data_dir: dataDir,
        bin_dir: pgBin,
        pgpass: path.join(dir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres', password },
          replication: { username: 'replicator', password },
          rewind: { username: 'rewinder', password },
        },
        // Tests only: no fsync (a process kill loses nothing the OS has), sockets in our folder.
        parameters: { fsync: 'off', unix_socket_directories: dir },
      },
    }
    writeFileSync(path.join(confDir, '10-local.yml'), JSON.stringify(local, null, 2) + '\n')
    for (const p of [dir, confDir, ...readdirSync(confDir).map((f) => path.join(confDir, f))]) own(p)
    const m: MemberState = {
      name,
      pgPort,
      restPort,
      restUrl: `http://127.0.0.1:${restPort}`,
      dataDir,
      dir,
      confDir,
      logFile: path.join(dir, 'patroni.log'),
      child: null,
      patroniPid: () => (m.child && m.child.exitCode === null && m.child.signalCode === null ? m.child.pid ?? null : null),
      postgresPid: () => {
        try {
          const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
          return pid && alive(pid) ? pid : null
        } catch {
          return null
        }
      },
    }
    members.push(m)
  }
  const byName = (name: string) => {
    const m = members.find((x) => x.name === name)
    if (!m) throw new Error(`no member ${name}`)
    return m
  }
  const startMember = (m: MemberState) => {
    const fd = openSync(m.logFile, 'a')
    // Spawned as `postgres` directly (not through runuser), so that the pid we hold is Patroni's own.
    m.child = spawn(PATRONI_BIN, [m.confDir], {
      stdio: ['ignore', fd, fd],
      cwd: m.dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: m.dir, LANG: 'C.UTF-8' },
      ...(ids ?? {}),
    })
    closeSync(fd)
  }

  const memberUrl = (name: string, database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${byName(name).pgPort}/${database}`
  const url = (database: string, tsa: 'read-write' | 'any' = 'read-write') =>
    `postgres://postgres:${password}@${members.map((m) => `127.0.0.1:${m.pgPort}`).join(',')}/${database}?target_session_attrs=${tsa}`

  const inRecovery = async (name: string): Promise<boolean | null> => {
    const c = new pg.Client({ connectionString: memberUrl(name), connectionTimeoutMillis: 2000, query_timeout: 2000 })
    c.on('error', () => undefined)
    try {
      await c.connect()
      return (await c.query('SELECT pg_is_in_recovery() AS r')).rows[0].r as boolean
    } catch {
      return null
    } finally {
      await c.end().catch(() => undefined)
    }
  }
  const primaries = async () => {
    const r = await Promise.all(members.map(async (m) => ((await inRecovery(m.name)) === false ? m.name : null)))
    return r.filter((x): x is string => x !== null)
  }
  const clusterState = async (): Promise<ClusterMember[] | null> => {
    for (const m of members) {
      if (!m.patroniPid()) continue
      const r = await getJson<{ members: ClusterMember[] }>(`${m.restUrl}/cluster`)
      if (r?.status === 200 && Array.isArray(r.body.members)) return r.body.members
    }
    return null
  }
  const leader = async () => (await clusterState())?.find((x) => x.role === 'leader' && x.state === 'running')?.name ?? null
  /** The cluster's synchronous_mode now (a test may have changed it with patchConfig). */
  const synchronousMode = async (leaderName: string) =>
    (await getJson<{ synchronous_mode?: boolean }>(`${byName(leaderName).restUrl}/config`))?.body.synchronous_mode === true
  const logs = () => members.map((m) => `\n--- ${m.name} ---\n${tail(m.logFile)}`).join('')

  const waitForLeader: PatroniCluster['waitForLeader'] = async (w = {}) => {
    let found = ''
    await untilTrue(`a leader${w.except ? ` other than ${w.except}` : ''}`, async () => {
      const l = await leader()
      if (!l || l === w.except) return false
      found = l
      return (await inRecovery(l)) === false
    }, w.timeoutMs ?? 120_000, logs)
    return found
  }
  const waitHealthy = async (timeoutMs = 120_000) => {
    let state: ClusterMember[] = []
    await untilTrue('every member streaming', async () => {
      state = (await clusterState()) ?? []
      const running = members.filter((m) => m.patroniPid())
      const l = state.filter((x) => x.role === 'leader' && x.state === 'running')
      const standbys = state.filter((x) => x.role !== 'leader')
      return l.length === 1 && state.length === running.length &&
        standbys.every((x) => (x.state === 'running' || x.state === 'streaming') && typeof x.lag === 'number') &&
        (standbys.length === 0 || !(await synchronousMode(l[0].name)) || standbys.some((x) => x.role === 'sync_standby'))
    }, timeoutMs, () => `\n${JSON.stringify(state)}${logs()}`)
    return state
  }

  let destroyed = false
  const killAll = () => {
    for (const m of members) {
      const p = m.patroniPid()
      if (p) kill9(p)
      const pm = m.postgresPid()
      if (pm) for (const x of [pm, ...descendants(pm)]) kill9(x)
    }
    const e = etcd as ChildProcess | null
    if (e?.pid) kill9(e.pid)
  }
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    killAll()
    rmSync(root, { recursive: true, force: true })
  }
  process.once('exit', destroy)

  const cluster: PatroniCluster = {
    members,
    password,
    url,
    memberUrl,
    clusterState,
    leader,
    waitForLeader,
    waitHealthy,
    primaries,
    inRecovery,
    async createDatabase(prefix = 'ha') {
      const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`
      const c = new pg.Client({ connectionString: memberUrl(await waitForLeader()) })
      await c.connect()
      try {
        await c.query(`CREATE DATABASE "${name}"`)
      } finally {
        await c.end()
      }
      return url(name)
    },
    async killMember(name, k = {}) {
      const m = byName(name)
      // Patroni first, so that it does not see its PostgreSQL die and start it again.
      const pat = k.postgresOnly ? null : m.patroniPid()
      if (pat) kill9(pat)
      const pm = m.postgresPid()
      const tree = pm ? [pm, ...descendants(pm)] : []
      for (const p of tree) kill9(p)
      await untilTrue(`${name} to die`, () => (pat === null || !alive(pat)) && tree.every((p) => !alive(p)), 10_000)
    },
    async restartMember(name, timeoutMs = 120_000) {
      const m = byName(name)
      if (m.patroniPid()) throw new Error(`${name}'s Patroni is running`)
      startMember(m)
      await untilTrue(`${name} to rejoin`, async () => {
        const s = (await clusterState())?.find((x) => x.name === name)
        return !!s && (s.state === 'running' || s.state === 'streaming')
      }, timeoutMs, () => `\n${tail(m.logFile)}`)
    },
    async stopEtcd() {
      const e = etcd as ChildProcess | null
      if (!e?.pid) return
      kill9(e.pid)
      await untilTrue('etcd to stop', () => e.exitCode !== null || e.signalCode !== null, 10_000)
      etcd = null
    },
    startEtcd,
    async patchConfig(patch) {
      const l = await waitForLeader()
      const r = await fetch(`${byName(l).restUrl}/config`, { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } })
      if (r.status !== 200) throw new Error(`PATCH /config: ${r.status} ${await r.text()}`)
    },
    log: (name) => {
      try {
        return readFileSync(byName(name).logFile, 'utf8')
      } catch {
        return ''
      }
    },
    destroy,
  }

  try {
    await startEtcd()
    // The first member bootstraps (initdb) alone; the others then clone it, so that which one leads is known.
    startMember(members[0])
    await waitForLeader({ timeoutMs: 120_000 })
    for (const m of members.slice(1)) startMember(m)
    await waitHealthy(180_000)
  } catch (e) {
    // The error already carries the members' last log lines.
    destroy()
    throw e
  }
  return cluster
}

function readId(flag: '-u' | '-g'): string {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('no postgres user: install the Debian package postgresql')
  const f = line.split(':')
  return flag === '-u' ? f[2] : f[3]
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}
