/**
 * The database as an attack surface for availability: a request's query is
 * cut after DB_STATEMENT_TIMEOUT_MS (a slow or blocked query answers 503
 * DATABASE_TIMEOUT instead of holding a pooled connection for ever), while
 * migrations are not cut; and an outage is logged once and then summarised,
 * not once per failed request.
 *
 * The embedded engine (PGlite) accepts the setting but cannot enforce it (no
 * timer signal in its WebAssembly build) and has a single connection, so no
 * other session can block it and it cannot go away while the process runs:
 * there the tests check only that the setting changes nothing.
 */
import { expect } from 'chai'
import pg from 'pg'
import { pino } from 'pino'
import { Writable } from 'node:stream'
import { loadConfig } from '../../kernel/config.js'
import { OutageLog } from '../../kernel/db/outage.js'
import type { Logger } from '../../sdk/index.js'
import { startPostgres, type PgCluster } from '../kit/postgres.js'
import { startTestApp, type TestApp, runsOn } from '../kit/app.js'

const SLOW = './test/fixtures/plugins/slow-migration'
const ROWS = '/api/v1/slow-migration/rows'

interface LogLine {
  level: number
  msg: string
  [k: string]: unknown
}

/** A real pino logger whose lines are kept for the test to read. */
function capturingLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as LogLine)
      done()
    },
  })
  return { log: pino({ level: 'info' }, sink) as unknown as Logger, lines }
}

async function session(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  return c
}

describe('database statement timeout: configuration', () => {
  it('defaults to 5000 ms, reads DB_STATEMENT_TIMEOUT_MS (0 disables) and refuses nonsense', () => {
    expect(loadConfig({}).dbStatementTimeoutMs).to.equal(5000)
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '250' }).dbStatementTimeoutMs).to.equal(250)
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '0' }).dbStatementTimeoutMs).to.equal(0)
    for (const bad of ['-1', '1.5', 'soon', '86400001']) expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: bad }), bad).to.throw(/DB_STATEMENT_TIMEOUT_MS/)
  })
})

;(runsOn('postgres') ? describe : describe.skip)('database statement timeout (postgres)', function () {
  this.timeout(60_000)
  let t: TestApp
  let token: string
  before(async () => {
    // The fixture's migration sleeps 400 ms in one statement: the boot itself proves migrations are not cut.
    t = await startTestApp({ engine: 'postgres', plugins: [SLOW], env: { DB_STATEMENT_TIMEOUT_MS: '200' } })
    token = await t.token({ permissions: ['slow-migration.read'] })
  })
  after(async () => t?.stop())

  it('runs a migration longer than the timeout to completion at boot', async () => {
    const r = await t.req('GET', ROWS, { token })
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.deep.equal({ n: 0 })
  })

  it('gives every pooled connection the configured statement_timeout', async () => {
    const shown = await Promise.all(Array.from({ length: 4 }, () => t.app.db.knex.raw('SHOW statement_timeout')))
    for (const s of shown as { rows: { statement_timeout: string }[] }[]) expect(s.rows[0].statement_timeout).to.equal('200ms')
  })

  it('answers a request whose query is blocked longer than the timeout with 503 DATABASE_TIMEOUT in the envelope', async () => {
    const locker = await session(t.databaseUrl!)
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE slow_migration_rows IN ACCESS EXCLUSIVE MODE')
      const t0 = performance.now()
      const r = await t.req('GET', ROWS, { token, headers: { 'x-request-id': 'timeout-check' } })
      const ms = performance.now() - t0
      expect(r.status, r.text).to.equal(503)
      expect(Object.keys(r.body).sort()).to.deep.equal(['code', 'detail', 'field'])
      expect(r.body).to.include({ code: 'DATABASE_TIMEOUT', field: null })
      expect(r.body.detail).to.match(/too long/)
      expect(r.text).not.to.match(/slow_migration_rows|select|canceling/i)
      expect(r.headers.get('retry-after')).to.match(/^\d+$/)
      expect(r.headers.get('x-request-id')).to.equal('timeout-check')
      // Cut at 200 ms, not after the lock holder gives up.
      expect(ms).to.be.below(2000)
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined)
      await locker.end()
    }
  })

  it('leaves the pool usable after statements were cut', async () => {
    const locker = await session(t.databaseUrl!)
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE slow_migration_rows IN ACCESS EXCLUSIVE MODE')
      // More cut requests than the pool has connections (10), so every connection has had one cut.
      const cut = await Promise.all(Array.from({ length: 12 }, () => t.req('GET', ROWS, { token })))
      expect(cut.map((r) => r.body.code)).to.deep.equal(Array(12).fill('DATABASE_TIMEOUT'))
    } finally {
      await locker.query('ROLLBACK')
      await locker.end()
    }
    const after = await Promise.all(Array.from({ length: 20 }, () => t.req('GET', ROWS, { token })))
    expect(after.map((r) => r.status)).to.deep.equal(Array(20).fill(200))
  })

  it('with DB_STATEMENT_TIMEOUT_MS=0, lets a blocked query wait for the lock', async () => {
    const patient = await startTestApp({ engine: 'postgres', plugins: [SLOW], env: { DB_STATEMENT_TIMEOUT_MS: '0' } })
    const locker = await session(patient.databaseUrl!)
    try {
      const tok = await patient.token({ permissions: ['slow-migration.read'] })
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE slow_migration_rows IN ACCESS EXCLUSIVE MODE')
      const pending = patient.req('GET', ROWS, { token: tok })
      await new Promise((r) => setTimeout(r, 600))
      await locker.query('ROLLBACK')
      const r = await pending
      expect(r.status, r.text).to.equal(200)
      expect(((await patient.app.db.knex.raw('SHOW statement_timeout')) as { rows: { statement_timeout: string }[] }).rows[0].statement_timeout).to.equal('0')
    } finally {
      await locker.end()
      await patient.stop()
    }
  })
})

;(runsOn('embedded') ? describe : describe.skip)('database statement timeout (embedded)', function () {
  this.timeout(60_000)
  it('accepts the setting, migrates and serves as usual', async () => {
    const t = await startTestApp({ engine: 'embedded', plugins: [SLOW], env: { DB_STATEMENT_TIMEOUT_MS: '200' } })
    try {
      const r = await t.req('GET', ROWS, { token: await t.token({ permissions: ['slow-migration.read'] }) })
      expect(r.status, r.text).to.equal(200)
    } finally {
      await t.stop()
    }
  })
})

describe('database outage log: rate', () => {
  it('writes one line when an outage starts, then at most one every 30 s with the failures since, then one when it ends', () => {
    const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = []
    let now = 1_000_000
    const log = new OutageLog({ error: (obj, msg) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }), info: (obj, msg) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }) }, 30_000, () => now)
    log.recovered() // no outage: nothing to say
    // 10 failed requests a second for 95 seconds.
    for (let i = 0; i < 950; i++) {
      log.failure(new Error('connect ECONNREFUSED'))
      now += 100
    }
    log.recovered()
    log.recovered()
    expect(lines.map((l) => l.msg)).to.deep.equal(['database unreachable: requests that need it answer 503 DATABASE_UNAVAILABLE until it is back', 'database still unreachable', 'database still unreachable', 'database still unreachable', 'database reachable again'])
    expect(lines.slice(1, 4).map((l) => l.obj.failed_requests)).to.deep.equal([300, 300, 300])
    expect(lines[4].obj).to.include({ failed_requests: 950, down_for_s: 95 })
  })
})

;(runsOn('postgres') ? describe : describe.skip)('database outage log (own PostgreSQL cluster)', function () {
  this.timeout(60_000)
  let cluster: PgCluster
  let t: TestApp
  let token: string
  const captured = capturingLogger()
  const outageLines = () => captured.lines.filter((l) => l.level >= 40 && /database/i.test(`${l.msg} ${JSON.stringify(l)}`))

  before(async function () {
    cluster = await startPostgres()
    if (!cluster.owned) {
      console.warn('    skipped: the outage test stops its PostgreSQL server, and a TEST_DATABASE_URL server is not ours to stop')
      this.skip()
    }
    t = await startTestApp({ databaseUrl: await cluster.createDatabase('outagelog'), plugins: [SLOW], log: captured.log })
    token = await t.token({ permissions: ['slow-migration.read'] })
    expect((await t.req('GET', ROWS, { token })).status).to.equal(200)
  })

  after(async () => {
    await t?.stop()
    cluster?.destroy()
  })

  it('logs an outage once, not once for each of 50 failed requests', async () => {
    // As in db-outage.test.ts: flush first, the kit's cluster runs with synchronous_commit=off.
    const c = await session(cluster.url)
    await c.query('CHECKPOINT')
    await c.end()
    cluster.stopServer()
    const before = captured.lines.length
    for (let i = 0; i < 5; i++) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => t.req('GET', ROWS, { token })))
      for (const r of batch) {
        expect(r.status, r.text).to.equal(503)
        expect(r.body.code).to.equal('DATABASE_UNAVAILABLE')
      }
    }
    const lines = outageLines()
    expect(lines.length, JSON.stringify(lines, null, 1)).to.be.within(1, 2)
    expect(lines[0].msg).to.match(/database unreachable/)
    // Nothing else at warn or above per request either (the access log is info).
    const loud = captured.lines.slice(before).filter((l) => l.level >= 40)
    expect(loud.length, JSON.stringify(loud, null, 1)).to.be.at.most(2)
  })

  it('says once that the database is back, with the count of failed requests', async () => {
    cluster.startServer()
    const deadline = Date.now() + 10_000
    let status = 0
    while (Date.now() < deadline && status !== 200) {
      status = (await t.req('GET', ROWS, { token })).status
      if (status !== 200) await new Promise((r) => setTimeout(r, 100))
    }
    expect(status).to.equal(200)
    const back = captured.lines.filter((l) => l.msg === 'database reachable again')
    expect(back).to.have.length(1)
    expect(back[0].failed_requests).to.be.at.least(50)
  })
})
