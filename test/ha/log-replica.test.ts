/**
 * Log searches on a read replica (DATABASE_READ_URL): lists, searches and
 * exports read a real hot standby (test/kit/standby.ts) and say how stale
 * they are; a standby that falls far behind, is unreachable, fails under a
 * read or is not a standby at all is not read (the primary answers); writes
 * never go to it. The embedded engine has no replica: its answers say null.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Logger } from '../../sdk/index.js'
import { bootRefusal, runsOn, startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { startPostgres, type PgCluster } from '../kit/postgres.js'
import { skipBecause } from '../kit/skip.js'
import { startStandby, type Standby } from '../kit/standby.js'
import { capturedLogger } from '../kit/captured-log.js'

const LIST = '/api/v1/aaa/logs/tacacs/authorization'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(ok: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await ok()) return true
    await sleep(100)
  }
  return ok()
}


/** Authorization log rows of `user`, written on the primary. */
async function writeRows(t: TestApp, user: string, n: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => ({
    timestamp: new Date(Date.now() - 60_000 + i),
    username: user,
    node_id: randomUUID(),
    source_file: 'replica-test',
    source_offset: i,
    action: 'permit' as const,
    command: `show replica-marker ${user} ${i}`,
  }))
  await t.app.db.knex('aaa_log_tacacs_authz').insert(rows)
}

const csvRows = (text: string) => text.trim().split('\r\n').length - 1

// PostgreSQL only: the embedded engine has no replication (its own answer is tested below).
;(runsOn('postgres') ? describe : describe.skip)('log searches on a read replica (DATABASE_READ_URL, PostgreSQL)', function () {
  this.timeout(180_000)
  let cluster: PgCluster
  let standby: Standby
  let dbUrl: string
  let node: TestApp
  let nodeLog: ReturnType<typeof capturedLogger>
  let user = ''
  beforeEach(() => {
    // Each case its own rows: the counts below are this case's.
    user = `replica-${randomUUID().slice(0, 8)}`
  })
  // A case that fails while replay is paused must not leave the next one a standby that never catches up.
  afterEach(async () => {
    await standby?.resumeReplay().catch(() => undefined)
  })

  before(async function () {
    cluster = await startPostgres()
    if (!cluster.server) {
      cluster.destroy()
      skipBecause(this, 'a standby needs a cluster the kit starts itself, not the TEST_DATABASE_URL server')
    }
    dbUrl = await cluster.createDatabase('logreplica')
    standby = await startStandby(cluster)
    nodeLog = capturedLogger()
    // A bound far above the test's own pauses: this node reads the standby however long a step takes.
    node = await startTestApp({ databaseUrl: dbUrl, plugins: ['aaa-logs'], log: nodeLog.log, env: { DATABASE_READ_URL: standby.urlFor(dbUrl), DATABASE_READ_MAX_LAG_MS: '600000' } })
  })

  after(async () => {
    await node?.stop()
    await standby?.destroy()
    cluster?.destroy()
  })

  const list = (t: TestApp, query = '') => t.admin('GET', `${LIST}?username=${user}${query}`)

  it('answers log searches from the standby, and says how stale it is', async () => {
    await writeRows(node, user, 3)
    await standby.waitCaughtUp()
    const r = await list(node)
    expect(r.status, r.text).to.equal(200)
    expect(r.body.items).to.have.length(3)
    expect(r.body.replica_lag_ms).to.be.a('number').that.is.at.least(0)
    expect((await node.req('GET', '/ready')).body.checks.read_replica).to.equal('ok')

    // The standby stops replaying: what the primary writes now is not on it.
    await standby.pauseReplay()
    await writeRows(node, user, 2)
    const stale = await list(node)
    expect(stale.status, stale.text).to.equal(200)
    expect(stale.body.items, 'the list did not come from the standby').to.have.length(3)
    expect(stale.body.total_by_filter).to.equal(3)
    expect(stale.body.replica_lag_ms).to.be.a('number').that.is.above(0)
    const search = await node.admin('GET', `${LIST}?search=replica-marker%20${user}`)
    expect(search.body.items).to.have.length(3)
    expect(search.body.replica_lag_ms).to.be.above(0)
    const csv = await node.admin('GET', `${LIST}/export?username=${user}&format=csv`)
    expect(csv.status).to.equal(200)
    expect(csvRows(csv.text)).to.equal(3)
    expect(Number(csv.headers.get('x-replica-lag-ms'))).to.be.above(0)
    // A single entry must be current: the primary has the new rows.
    const fresh = await node.app.db.knex('aaa_log_tacacs_authz').where({ username: user, source_offset: 1 }).orderBy('timestamp', 'desc').first('id')
    expect((await node.admin('GET', `${LIST}/${fresh!.id}`)).status).to.equal(200)

    // Resumed, it catches up.
    await standby.resumeReplay()
    await standby.waitCaughtUp()
    const caughtUp = await list(node)
    expect(caughtUp.body.items).to.have.length(5)
    expect(caughtUp.body.replica_lag_ms).to.be.a('number')
  })

  it('reads the primary while the standby is more than DATABASE_READ_MAX_LAG_MS behind, and says so once', async () => {
    const b = capturedLogger()
    const strict = await startTestApp({ databaseUrl: dbUrl, plugins: ['aaa-logs'], log: b.log, masterKey: node.masterKey, env: { DATABASE_READ_URL: standby.urlFor(dbUrl), DATABASE_READ_MAX_LAG_MS: '1000' } })
    try {
      await writeRows(strict, user, 2)
      await standby.waitCaughtUp()
      expect(await until(async () => (await strict.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000), 'never ok').to.equal(true)
      expect((await list(strict)).body.items).to.have.length(2)
      const from = b.lines.length
      const changes = () => b.lines.slice(from).filter((l) => l.component === 'read-replica')
      await standby.pauseReplay()
      await writeRows(strict, user, 4)
      expect(await until(async () => (await strict.req('GET', '/ready')).body.checks.read_replica === 'lagging', 20_000), 'never lagging').to.equal(true)
      const r = await list(strict)
      expect(r.body.items, 'a lagging standby was read').to.have.length(6)
      expect(r.body.replica_lag_ms).to.equal(null)
      const ready = await strict.req('GET', '/ready')
      expect(ready.status).to.equal(200)
      expect(ready.body.status).to.equal('healthy')
      const csv = await strict.admin('GET', `${LIST}/export?username=${user}&format=csv`)
      expect(csvRows(csv.text)).to.equal(6)
      expect(csv.headers.get('x-replica-lag-ms')).to.equal(null)
      // Several probes later, still one line for the one change of state.
      await sleep(2500)
      expect(changes().map((l) => l.state)).to.deep.equal(['lagging'])
      expect(changes()[0].level).to.equal(40)

      await standby.resumeReplay()
      await standby.waitCaughtUp()
      expect(await until(async () => (await strict.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000), 'never back to ok').to.equal(true)
      const back = await list(strict)
      expect(back.body.items).to.have.length(6)
      expect(back.body.replica_lag_ms).to.be.a('number')
      expect(changes().map((l) => l.state).slice(0, 2)).to.deep.equal(['lagging', 'ok'])
      expect(changes()[1].msg).to.match(/back in use/)
    } finally {
      await strict.stop()
    }
  })

  it('reads the primary while the standby is unreachable, and the standby again once it is back', async () => {
    await writeRows(node, user, 1)
    await standby.waitCaughtUp()
    const from = nodeLog.lines.length
    standby.stop()
    try {
      await writeRows(node, user, 1)
      const r = await list(node)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.items).to.have.length(2)
      expect(r.body.replica_lag_ms).to.equal(null)
      const ready = await node.req('GET', '/ready')
      expect(ready.status).to.equal(200)
      expect(ready.body.checks.read_replica).to.equal('unreachable')
      await sleep(2500) // several probes: still one line
      expect(nodeLog.lines.slice(from).filter((l) => l.component === 'read-replica').map((l) => l.state)).to.deep.equal(['unreachable'])
    } finally {
      standby.start()
    }
    await standby.waitCaughtUp()
    expect(await until(async () => (await node.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000), 'never back to ok').to.equal(true)
    const back = await list(node)
    expect(back.body.items).to.have.length(2)
    expect(back.body.replica_lag_ms).to.be.a('number')
  })

  it('answers from the primary when the standby fails under a read', async () => {
    await standby.waitCaughtUp()
    expect(await until(async () => (await node.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000)).to.equal(true)
    const servers: boolean[] = []
    const lags: (number | null)[] = []
    const stopping = sleep(400).then(() => standby.stop())
    try {
      const inRecovery = await node.app.db.read(async ({ knex, lagMs }) => {
        lags.push(lagMs)
        const r = (await knex.raw('select pg_sleep(2), pg_is_in_recovery() as rec')) as { rows: { rec: boolean }[] }
        servers.push(r.rows[0].rec)
        return r.rows[0].rec
      })
      await stopping
      expect(lags[0], 'the first attempt was not on the standby').to.be.a('number')
      expect(inRecovery, 'answered by the standby').to.equal(false)
      expect(lags).to.have.length(2)
      expect(lags[1]).to.equal(null)
    } finally {
      await stopping
      standby.start()
    }
    await standby.waitCaughtUp()
  })

  it('answers from the primary when a read on the standby waits for a lock that paused replay holds', async () => {
    await writeRows(node, user, 2)
    await standby.waitCaughtUp()
    expect(await until(async () => (await node.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000)).to.equal(true)
    // An ACCESS EXCLUSIVE lock taken on the primary (as a DDL or a vacuum truncation takes it) reaches
    // the standby's replay; replay stops before the commit that releases it, so on the standby the
    // table stays locked while on the primary it is free again.
    const holder = new pg.Client({ connectionString: dbUrl })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('LOCK TABLE aaa_log_tacacs_authz IN ACCESS EXCLUSIVE MODE')
      await standby.waitCaughtUp()
      await standby.pauseReplay()
      await holder.query('COMMIT')
    } finally {
      await holder.end()
    }
    await writeRows(node, user, 1)
    const started = Date.now()
    const r = await list(node)
    expect(r.status, r.text).to.equal(200)
    expect(r.body.items, 'not answered by the primary').to.have.length(3)
    expect(r.body.replica_lag_ms).to.equal(null)
    // The statement timeout (5 s) is not what ended the wait: the reader's lock_timeout (1 s) is.
    expect(Date.now() - started).to.be.below(4000)
    await standby.resumeReplay()
    await standby.waitCaughtUp()
    const back = await list(node)
    expect(back.body.items).to.have.length(3)
    expect(back.body.replica_lag_ms).to.be.a('number')
  })

  it('never writes through the reader: writes succeed on the primary while the standby is in use', async () => {
    expect(await until(async () => (await node.req('GET', '/ready')).body.checks.read_replica === 'ok', 20_000)).to.equal(true)
    const name = `replica-rule-${randomUUID().slice(0, 8)}`
    const c = await node.admin('POST', '/api/v1/log-exclusions', { body: { name, match_type: 'username', match_value: 'probe' } })
    expect(c.status, c.text).to.equal(201)
    expect(await node.app.db.knex('aaa_log_exclusions').where({ name }).first('id')).to.not.equal(undefined)
    const s = await node.admin('PUT', '/api/v1/settings/aaa-logs.count_budget_ms', { body: { value: 200 } })
    expect(s.status, s.text).to.equal(200)
    // The reader itself refuses a write, whatever a caller tries.
    const r = await node.app.db.reader()
    expect(r.lagMs).to.be.a('number')
    let code: unknown
    await r.knex('aaa_log_exclusions').insert({ name: `${name}-2`, protocol: 'all', match_type: 'username', match_value: 'x' }).catch((e: { code?: string }) => (code = e.code))
    expect(code).to.equal('25006')
  })

  it('finds the standby among the members of a multi-host DATABASE_READ_URL, and reads the primary once it is promoted', async () => {
    const u = new URL(dbUrl)
    const members = `postgres://postgres@127.0.0.1:${cluster.server!.port},127.0.0.1:${standby.port}${u.pathname}?target_session_attrs=prefer-standby`
    const multi = await startTestApp({ databaseUrl: dbUrl, plugins: ['aaa-logs'], masterKey: node.masterKey, env: { DATABASE_READ_URL: members, DATABASE_READ_MAX_LAG_MS: '600000' } })
    try {
      await writeRows(multi, user, 1)
      await standby.waitCaughtUp()
      expect((await multi.req('GET', '/ready')).body.checks.read_replica).to.equal('ok')
      await standby.pauseReplay()
      await writeRows(multi, user, 1)
      const stale = await list(multi)
      expect(stale.body.items, 'not read on the standby member').to.have.length(1)
      expect(stale.body.replica_lag_ms).to.be.above(0)
      // A failover makes the standby a primary: it is no longer a copy to read.
      await standby.resumeReplay()
      await standby.waitCaughtUp()
      await standby.promote()
      expect(await until(async () => (await multi.req('GET', '/ready')).body.checks.read_replica === 'not_standby', 20_000), 'the promoted member is still read').to.equal(true)
      await writeRows(multi, user, 1)
      const current = await list(multi)
      expect(current.body.items).to.have.length(3)
      expect(current.body.replica_lag_ms).to.equal(null)
    } finally {
      await multi.stop()
    }
  })

  it('does not read a server that accepts writes (DATABASE_READ_URL naming a primary)', async () => {
    const l = capturedLogger()
    const wrong = await startTestApp({ databaseUrl: dbUrl, plugins: ['aaa-logs'], log: l.log, masterKey: node.masterKey, env: { DATABASE_READ_URL: dbUrl } })
    try {
      expect((await wrong.req('GET', '/ready')).body.checks.read_replica).to.equal('not_standby')
      await writeRows(wrong, user, 1)
      const r = await list(wrong)
      expect(r.body.items).to.have.length(1)
      expect(r.body.replica_lag_ms).to.equal(null)
      expect(l.lines.filter((x) => x.component === 'read-replica' && x.state === 'not_standby')).to.have.length(1)
    } finally {
      await wrong.stop()
    }
  })
})

for (const engine of testEngines()) {
  describe(`log searches without a read replica (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['aaa-logs'] })
    })
    after(async () => t?.stop())

    it('answers replica_lag_ms null, no X-Replica-Lag-Ms, and /ready names no replica', async () => {
      await writeRows(t, 'no-replica', 2)
      const r = await t.admin('GET', `${LIST}?username=no-replica`)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.items).to.have.length(2)
      expect(r.body).to.have.property('replica_lag_ms', null)
      const s = await t.admin('GET', `${LIST}?search=replica-marker`)
      expect(s.body).to.have.property('replica_lag_ms', null)
      const csv = await t.admin('GET', `${LIST}/export?username=no-replica&format=csv`)
      expect(csvRows(csv.text)).to.equal(2)
      expect(csv.headers.get('x-replica-lag-ms')).to.equal(null)
      expect((await t.req('GET', '/ready')).body.checks).to.not.have.property('read_replica')
      expect(await t.app.db.reader()).to.deep.equal({ knex: t.app.db.knex, lagMs: null })
    })

    if (engine === 'embedded') {
      it('refuses DATABASE_READ_URL without DATABASE_URL: the embedded engine has no standby', async () => {
        const e = await bootRefusal({ engine: 'embedded', env: { DATABASE_READ_URL: 'postgres://127.0.0.1:1/x' } })
        expect(e.code).to.equal('CONFIG_INVALID')
        expect(e.message).to.match(/DATABASE_READ_URL needs DATABASE_URL/)
      })
    }
  })
}
