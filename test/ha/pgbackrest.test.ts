/**
 * Point-in-time recovery with pgBackRest, as docs/cluster.md tells a site to set it up: PostgreSQL
 * archives every WAL segment (examples/pgbackrest/archiving.conf), pgBackRest keeps the backups and
 * the WAL (examples/pgbackrest/pgbackrest.conf, the very file: only its paths, port and passphrase
 * are replaced here, by PGBACKREST_* environment variables). Users are created through the API of a
 * Portcullis node on that PostgreSQL, before and after a full backup; a moment is noted (a time, and
 * a named restore point); then more users and a mistake (users deleted). Restored into a new data
 * folder to the time, and to the name, the database holds exactly the users created before it, and
 * a node started on the restored database serves them.
 */
import { expect } from 'chai'
import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { findPgBin, freePort } from '../kit/postgres.js'
import { skipBecause } from '../kit/skip.js'

const PGBACKREST = process.env.PGBACKREST_BIN || '/usr/bin/pgbackrest'
const EXAMPLES = path.resolve('examples/pgbackrest')
const STANZA = 'portcullis'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0
function postgresIds(): { uid: number; gid: number } | null {
  if (!asRoot) return null
  const f = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))?.split(':')
  if (!f) throw new Error('no postgres user: install the Debian package postgresql')
  return { uid: Number(f[2]), gid: Number(f[3]) }
}

;(runsOn('postgres') ? describe : describe.skip)('point-in-time recovery with pgBackRest (postgres)', function () {
  this.timeout(300_000)
  const ids = postgresIds()
  let root = ''
  let env: Record<string, string> = {}
  const servers: string[] = []
  let bin = ''

  /** As the `postgres` user when we are root (PostgreSQL and pgBackRest refuse root), with the test's pgBackRest paths. */
  const run = (cmd: string, args: string[], o: SpawnSyncOptions = {}) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root, env, ...(ids ?? {}), ...o })
    if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`)
    return String(r.stdout)
  }
  const own = (p: string) => ids && chownSync(p, ids.uid, ids.gid)
  const dir = (name: string) => {
    const d = path.join(root, name)
    mkdirSync(d, { recursive: true })
    own(d)
    return d
  }

  /** Starts PostgreSQL on a data folder, on a fresh loopback port; returns the URL of `database`. */
  async function startServer(name: string, data: string, database: string, extra: string[] = [], port?: number): Promise<string> {
    port ??= await freePort()
    const opts = [`-p ${port}`, '-c listen_addresses=127.0.0.1', `-c unix_socket_directories=${root}`, '-c fsync=off', ...extra].join(' ')
    run(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(root, `${name}.log`), '-w', '-t', '60', 'start'])
    servers.push(data)
    return `postgres://postgres@127.0.0.1:${port}/${database}`
  }

  const usersIn = async (url: string) => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      return (await c.query<{ username: string }>("SELECT username FROM users WHERE username LIKE 'pitr-%' ORDER BY username")).rows.map((r) => r.username)
    } finally {
      await c.end()
    }
  }

  before(function () {
    if (!existsSync(PGBACKREST)) skipBecause(this, `no pgBackRest (${PGBACKREST}): install the Debian package pgbackrest`)
    const b = findPgBin()
    if (!b) skipBecause(this, 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: install the Debian package postgresql')
    bin = b
    root = mkdtempSync(path.join(os.tmpdir(), 'portcullis-pgbackrest-'))
    own(root)
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: root,
      // The site's file, with this test's folders, port and passphrase (the environment overrides the file).
      PGBACKREST_CONFIG: path.join(EXAMPLES, 'pgbackrest.conf'),
      PGBACKREST_REPO1_PATH: dir('repo'),
      PGBACKREST_REPO1_CIPHER_PASS: `test-${process.pid}-${Date.now()}`,
      PGBACKREST_LOG_PATH: dir('log'),
      PGBACKREST_LOCK_PATH: dir('lock'),
      PGBACKREST_PG1_SOCKET_PATH: root,
    }
  })

  after(() => {
    for (const data of servers.reverse()) {
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        /* already stopped */
      }
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('restores to a time and to a named restore point: exactly the users created before it, and a node serves them', async () => {
    // ---- the server, archiving as docs/cluster.md says ----
    const data = path.join(dir('main'), 'data')
    run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'])
    writeFileSync(path.join(data, 'postgresql.conf'), `\ninclude '${path.join(EXAMPLES, 'archiving.conf')}'\n`, { flag: 'a' })
    // The server's archive_command runs pgBackRest with the server's environment: the paths are set before it starts.
    const port = await freePort()
    env.PGBACKREST_PG1_PATH = data
    env.PGBACKREST_PG1_PORT = String(port)
    const adminUrl = await startServer('main', data, 'postgres', [], port)
    const backrest = (...args: string[]) => run(PGBACKREST, [`--stanza=${STANZA}`, ...args])
    backrest('stanza-create')
    backrest('check') // archive_command works: a WAL segment reached the repository

    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    let app: TestApp | null = null
    let restored: TestApp | null = null
    try {
      await admin.query('CREATE DATABASE portcullis')
      const dbUrl = adminUrl.replace(/\/postgres$/, '/portcullis')
      app = await startTestApp({ databaseUrl: dbUrl })
      const masterKey = app.masterKey
      const create = async (username: string) => {
        const r = await app!.admin('POST', '/api/v1/users', { body: { username } })
        expect(r.status, r.text).to.equal(201)
        return r.body.id as string
      }
      const ids: Record<string, string> = {}
      for (let i = 1; i <= 5; i++) ids[`pitr-a${i}`] = await create(`pitr-a${i}`)
      backrest('--type=full', 'backup')
      // pgBackRest picks the backup for a time target by its stop time, kept to the second.
      await sleep(1500)
      // After the backup: these reach a restore only through the archived WAL.
      for (let i = 1; i <= 5; i++) ids[`pitr-b${i}`] = await create(`pitr-b${i}`)
      const before = Object.keys(ids).sort()

      // The moment to go back to, both ways.
      await admin.query("SELECT pg_create_restore_point('before-the-mistake')")
      const target = (await admin.query<{ t: string }>('SELECT clock_timestamp()::text AS t')).rows[0].t
      await sleep(1000)
      // Afterwards: more users, then the mistake.
      for (let i = 1; i <= 3; i++) await create(`pitr-c${i}`)
      for (const u of ['pitr-a1', 'pitr-b1']) expect((await app.admin('DELETE', `/api/v1/users/${ids[u]}`)).status).to.equal(204)
      expect(await usersIn(dbUrl)).to.deep.equal([...before.filter((u) => u !== 'pitr-a1' && u !== 'pitr-b1'), 'pitr-c1', 'pitr-c2', 'pitr-c3'].sort())
      // The WAL holding it all reaches the repository (archive_timeout would close the segment within a minute).
      const segment = (await admin.query<{ w: string }>('SELECT pg_walfile_name(pg_switch_wal()) AS w')).rows[0].w
      for (const end = Date.now() + 60_000; ; await sleep(250)) {
        const done = (await admin.query<{ w: string | null }>('SELECT last_archived_wal AS w FROM pg_stat_archiver')).rows[0].w
        if (done && done >= segment) break
        if (Date.now() > end) throw new Error(`segment ${segment} was not archived (last: ${done})`)
      }
      await app.stop()
      app = null

      // ---- restores into new data folders, beside the running server ----
      const restoreTo = async (name: string, type: 'time' | 'name', target: string) => {
        const into = path.join(dir(name), 'data')
        backrest(`--pg1-path=${into}`, `--type=${type}`, `--target=${target}`, '--target-action=promote', 'restore')
        // A copy to look at must not archive into the live server's repository.
        const url = await startServer(name, into, 'portcullis', ['-c archive_mode=off'])
        for (const end = Date.now() + 60_000; ; await sleep(250)) {
          const c = new pg.Client({ connectionString: url })
          const inRecovery = await c.connect().then(() => c.query('SELECT pg_is_in_recovery() AS r')).then((r) => r.rows[0].r as boolean, () => true).finally(() => c.end().catch(() => undefined))
          if (!inRecovery) break
          if (Date.now() > end) throw new Error(`the restore to ${target} never promoted: ${readFileSync(path.join(root, `${name}.log`), 'utf8').slice(-2000)}`)
        }
        return url
      }
      const byTime = await restoreTo('by-time', 'time', target)
      expect(await usersIn(byTime), 'restored to the time').to.deep.equal(before)
      const byName = await restoreTo('by-name', 'name', 'before-the-mistake')
      expect(await usersIn(byName), 'restored to the restore point').to.deep.equal(before)

      // A node on the restored database serves those users (same master key: the sealed secrets open).
      restored = await startTestApp({ databaseUrl: byTime, masterKey })
      const listed = await restored.admin('GET', '/api/v1/users?search=pitr-')
      expect(listed.status, listed.text).to.equal(200)
      expect((listed.body.items as { username: string }[]).map((u) => u.username).filter((u) => u.startsWith('pitr-')).sort()).to.deep.equal(before)
    } finally {
      await app?.stop()
      await restored?.stop()
      await admin.end()
    }
  })
})
