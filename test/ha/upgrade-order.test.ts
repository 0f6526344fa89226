/**
 * The documented upgrade order on a real primary and hot standby (streaming
 * replication): replicas first, primary last. A node whose database is a
 * standby never migrates: the next version started there waits, answering
 * /healthz and /ready with `schema: "waiting"` and everything else 503
 * SCHEMA_WAITING, while the old version keeps serving on the primary; once
 * the next version runs on the primary and migrates, the migration arrives
 * by replication and the waiting node serves. The next version is a real
 * second copy of the code with one more migration (fixtures/next-version.ts).
 */
import { expect } from 'chai'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { request } from '../kit/http.js'
import { freePort, startPostgres, type PgCluster } from '../kit/postgres.js'
import { startStandby, type Standby } from '../kit/standby.js'
import { TokenService } from '../../kernel/security/tokens.js'
import { buildNextVersion, type NextNode, type NextVersion } from './fixtures/next-version.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await probe().catch(() => null)
    if (v !== null) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

;(runsOn('postgres') ? describe : describe.skip)('upgrade order on a primary and a hot standby (replicas first, primary last)', function () {
  this.timeout(240_000)
  const masterKey = randomBytes(32).toString('hex')
  const adminId = randomUUID()
  let cluster: PgCluster
  let standby: Standby
  let next: NextVersion
  let databaseUrl: string
  let v1Primary: TestApp | undefined
  let v1Replica: TestApp | undefined
  let v2Replica: NextNode | undefined
  let v2Primary: NextNode | undefined
  const dirs: string[] = []
  let token: string

  const rows = async <R extends pg.QueryResultRow>(url: string, sql: string) => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      return (await c.query<R>(sql)).rows
    } finally {
      await c.end()
    }
  }
  const dataDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'portcullis-upgrade-'))
    dirs.push(d)
    return d
  }

  before(async () => {
    cluster = await startPostgres()
    databaseUrl = await cluster.createDatabase('upgrade')
    v1Primary = await startTestApp({ databaseUrl, masterKey })
    await rows(databaseUrl, `insert into users (id, username, is_admin, source) values ('${adminId}', 'upgrade-admin', true, 'local')`)
    token = (await new TokenService(Buffer.from(masterKey, 'hex')).issue({ sub: adminId, name: 'upgrade-admin', purpose: 'session', ttlSeconds: 3600 })).token
    standby = await startStandby(cluster)
    await standby.waitCaughtUp()
    next = buildNextVersion()
  })

  after(async () => {
    for (const n of [v2Replica, v2Primary]) await n?.stop()
    await v1Replica?.stop()
    await v1Primary?.stop()
    await standby?.destroy()
    cluster?.destroy()
    next?.destroy()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('a node of the running version on the standby serves as a replica, and migrates nothing', async () => {
    v1Replica = await startTestApp({ databaseUrl: standby.urlFor(databaseUrl), masterKey })
    const info = await v1Replica.req('GET', '/api/v1/dashboard/system-info', { token })
    expect(info.status, info.text).to.equal(200)
    expect(info.body.role).to.equal('replica')
    const ready = await v1Replica.req('GET', '/ready')
    expect(ready.status, ready.text).to.equal(200)
    // It reads; a change sent to it is refused as the contract says, and nothing is written.
    const write = await v1Replica.req('POST', '/api/v1/users', { token, body: { username: 'to-the-replica' } })
    expect(write.status, write.text).to.equal(503)
    expect(write.body.code).to.equal('READ_ONLY_NODE')
  })

  it('the next version on the standby waits for its migration: /healthz and /ready say schema "waiting", the rest answers 503 SCHEMA_WAITING', async () => {
    await v1Replica!.stop()
    v1Replica = undefined
    const port = await freePort()
    v2Replica = next.start({ DATABASE_URL: standby.urlFor(databaseUrl), MASTER_KEY: masterKey, PORT: String(port), DATA_DIR: dataDir() })
    const live = await until('the waiting node to answer /healthz', async () => {
      const r = await request(v2Replica!.url, 'GET', '/healthz')
      return r.status === 200 ? r : null
    })
    expect(live.body).to.deep.equal({ status: 'ok', schema: 'waiting' })
    const ready = await request(v2Replica!.url, 'GET', '/ready')
    expect(ready.status).to.equal(503)
    expect(ready.body).to.deep.include({ status: 'degraded', version: next.version })
    expect(ready.body.checks).to.deep.equal({ database: 'ok', master_key: 'loaded', schema: 'waiting' })
    const api = await request(v2Replica!.url, 'GET', '/api/v1/users', { token })
    expect(api.status).to.equal(503)
    expect(api.body.code).to.equal('SCHEMA_WAITING')
    expect(api.body.field).to.equal(null)
    expect(api.headers.get('retry-after')).to.equal('5')
    expect(api.headers.get('x-api-version')).to.equal('1')
    // The standby has not got the migration: the waiting node wrote nothing (it could not), the primary has not run it.
    expect(await rows(databaseUrl, `select to_regclass('${next.table}') as t`)).to.deep.equal([{ t: null }])
    // Meanwhile the running version on the primary keeps taking changes.
    const made = await v1Primary!.req('POST', '/api/v1/users', { token, body: { username: 'during-the-upgrade' } })
    expect(made.status, made.text).to.equal(201)
  })

  it('the next version on the primary migrates; the migration replicates and the waiting node serves', async () => {
    await v1Primary!.stop()
    v1Primary = undefined
    v2Primary = next.start({ DATABASE_URL: databaseUrl, MASTER_KEY: masterKey, PORT: String(await freePort()), DATA_DIR: dataDir() })
    const primaryReady = await until('the next version on the primary to be ready', async () => {
      const r = await request(v2Primary!.url, 'GET', '/ready')
      return r.status === 200 ? r : null
    })
    expect(primaryReady.body.version).to.equal(next.version)
    expect(await rows(databaseUrl, `select name from knex_migrations where name = '${next.migration}'`)).to.have.length(1)

    const replicaReady = await until('the waiting replica to serve', async () => {
      const r = await request(v2Replica!.url, 'GET', '/ready')
      return r.status === 200 ? r : null
    })
    expect(replicaReady.body).to.deep.include({ status: 'healthy', version: next.version })
    expect(replicaReady.body.checks).to.deep.equal({ database: 'ok', master_key: 'loaded' })
    expect((await request(v2Replica!.url, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' })
    const info = await request(v2Replica!.url, 'GET', '/api/v1/dashboard/system-info', { token })
    expect(info.status, info.text).to.equal(200)
    expect(info.body.role).to.equal('replica')
    expect(info.body.schema_revision.kernel).to.equal(next.migration)
    // What the old version wrote on the primary during the upgrade is there, read from the standby.
    const users = await request(v2Replica!.url, 'GET', '/api/v1/users?search=during-the-upgrade', { token })
    expect(users.status, users.text).to.equal(200)
    expect(users.body.items.map((u: { username: string }) => u.username)).to.deep.equal(['during-the-upgrade'])
    // Exactly one node migrated: the migration is recorded once.
    expect(await rows(standby.urlFor(databaseUrl), `select count(*)::int as n from knex_migrations where name = '${next.migration}'`)).to.deep.equal([{ n: 1 }])
  })
})
