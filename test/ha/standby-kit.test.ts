/**
 * The test kit's hot standby (test/kit/standby.ts) does what the replica
 * tests rely on: what the primary commits is read on the standby, a paused
 * standby does not see it until replay resumes, and the standby refuses writes.
 */
import { expect } from 'chai'
import pg from 'pg'
import { runsOn } from '../kit/app.js'
import { startPostgres, type PgCluster } from '../kit/postgres.js'
import { skipBecause } from '../kit/skip.js'
import { startStandby, type Standby } from '../kit/standby.js'

async function one<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query<T>(sql)).rows
  } finally {
    await c.end()
  }
}

// PostgreSQL only: the embedded engine has no replication.
;(runsOn('postgres') ? describe : describe.skip)('test kit: hot standby by pg_basebackup', function () {
  this.timeout(120_000)
  let cluster: PgCluster
  let standby: Standby
  let dbUrl: string

  before(async function () {
    cluster = await startPostgres()
    if (!cluster.server) {
      cluster.destroy()
      skipBecause(this, 'a standby needs a cluster the kit starts itself, not the TEST_DATABASE_URL server')
    }
    dbUrl = await cluster.createDatabase('standby')
    await one(dbUrl, 'create table t (id int primary key, v text)')
    standby = await startStandby(cluster)
  })

  after(async () => {
    await standby?.destroy()
    cluster?.destroy()
  })

  it('a row written on the primary is read on the standby', async () => {
    await one(dbUrl, `insert into t values (1, 'first')`)
    await standby.waitCaughtUp()
    expect(await one(standby.urlFor(dbUrl), 'select id, v from t order by id')).to.deep.equal([{ id: 1, v: 'first' }])
    expect((await one<{ r: boolean }>(standby.url, 'select pg_is_in_recovery() as r'))[0].r).to.equal(true)
  })

  it('a write on the standby fails: it is read-only', async () => {
    let err: (Error & { code?: string }) | null = null
    try {
      await one(standby.urlFor(dbUrl), `insert into t values (2, 'on the standby')`)
    } catch (e) {
      err = e as Error & { code?: string }
    }
    expect(err, 'the insert on the standby succeeded').to.not.equal(null)
    expect(err!.code).to.equal('25006') // read_only_sql_transaction
    expect(await one(dbUrl, 'select id from t order by id')).to.deep.equal([{ id: 1 }])
  })

  it('a paused standby keeps the old rows until its replay resumes', async () => {
    await standby.pauseReplay()
    await one(dbUrl, `insert into t values (3, 'while paused')`)
    expect(await one(standby.urlFor(dbUrl), 'select id from t order by id')).to.deep.equal([{ id: 1 }])
    await standby.resumeReplay()
    await standby.waitCaughtUp()
    expect(await one(standby.urlFor(dbUrl), 'select id from t order by id')).to.deep.equal([{ id: 1 }, { id: 3 }])
  })

  it('an unreachable standby comes back after start()', async () => {
    standby.stop()
    let down = false
    try {
      await one(standby.url, 'select 1')
    } catch {
      down = true
    }
    expect(down, 'the stopped standby still answered').to.equal(true)
    standby.start()
    await one(dbUrl, `insert into t values (4, 'after restart')`)
    await standby.waitCaughtUp()
    expect(await one(standby.urlFor(dbUrl), 'select id from t order by id')).to.deep.equal([{ id: 1 }, { id: 3 }, { id: 4 }])
  })

  it('promote() makes it accept writes', async () => {
    await standby.promote()
    await one(standby.urlFor(dbUrl), `insert into t values (5, 'on the promoted standby')`)
    expect(await one(standby.urlFor(dbUrl), 'select count(*)::int as n from t')).to.deep.equal([{ n: 4 }])
  })
})
