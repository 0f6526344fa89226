/**
 * A libpq multi-host DATABASE_URL (a Patroni cluster's members): the node
 * connects to the host that is read-write, skipping one that is down or
 * read-only, and when the server behind its pool turns read-only (a demoted
 * primary) it moves its connections to the host that is now read-write,
 * without a restart. Two real PostgreSQL servers stand for two members; a
 * read-only server is one whose default_transaction_read_only is on, which
 * the node sees exactly as libpq's `read-write` check does (test/ha/ runs the
 * same on a real Patroni failover).
 */
import { expect } from 'chai'
import { randomBytes, randomUUID } from 'node:crypto'
import pg from 'pg'
import { BootError } from '../../kernel/boot-error.js'
import { parseDatabaseHosts } from '../../kernel/db/hosts.js'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { freePort, startPostgres, type PgCluster } from '../kit/postgres.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('multi-host DATABASE_URL: reading it', () => {
  it('splits hosts and ports, keeps the rest of the URL, and defaults to read-write with several hosts', () => {
    const h = parseDatabaseHosts('postgres://app:s%40cret@10.0.0.1:5433,10.0.0.2,[::1]:6000/portcullis?sslmode=disable&target_session_attrs=read-write')
    expect(h.urls).to.deep.equal([
      'postgres://app:s%40cret@10.0.0.1:5433/portcullis?sslmode=disable',
      'postgres://app:s%40cret@10.0.0.2:5432/portcullis?sslmode=disable',
      'postgres://app:s%40cret@[::1]:6000/portcullis?sslmode=disable',
    ])
    expect(h.names).to.deep.equal(['10.0.0.1:5433', '10.0.0.2:5432', '[::1]:6000'])
    expect(h.attrs).to.equal('read-write')
    expect(h.probed).to.equal(true)
    expect(parseDatabaseHosts('postgres://a@h1:1,h2:2/db').attrs).to.equal('read-write')
    expect(parseDatabaseHosts('postgres://a@h1:1,h2:2/db?target_session_attrs=any').attrs).to.equal('any')
  })

  it('takes a one-host URL as it is (no probing)', () => {
    const h = parseDatabaseHosts('postgresql://u@db.example:5432/p')
    expect(h).to.deep.include({ probed: false, attrs: 'any' })
    expect(h.urls).to.deep.equal(['postgresql://u@db.example:5432/p'])
  })

  it('refuses an unknown target_session_attrs and an unreadable host at boot (CONFIG_INVALID)', () => {
    for (const url of ['postgres://u@h1,h2/db?target_session_attrs=master', 'postgres://u@h1:x,h2/db']) {
      let e: unknown
      try {
        parseDatabaseHosts(url)
      } catch (err) {
        e = err
      }
      expect(e, url).to.be.instanceOf(BootError)
      expect((e as BootError).code).to.equal('CONFIG_INVALID')
    }
  })
})

// PostgreSQL only: two servers of our own (their configuration is changed, so not the shared cluster).
;(runsOn('postgres') ? describe : describe.skip)('multi-host DATABASE_URL: finding the read-write host', function () {
  this.timeout(120_000)
  const name = `ha_${process.pid}`
  const masterKey = randomBytes(32).toString('hex')
  let a: PgCluster
  let b: PgCluster
  let node: TestApp | undefined
  const adminId = randomUUID()

  const sql = async <R extends pg.QueryResultRow>(cluster: PgCluster, db: string, text: string, values: unknown[] = []) => {
    const u = new URL(cluster.url)
    u.pathname = `/${db}`
    const c = new pg.Client({ connectionString: u.toString() })
    await c.connect()
    try {
      return (await c.query<R>(text, values)).rows
    } finally {
      await c.end()
    }
  }
  /** Every session of the server, pooled ones included, runs read-only from its next transaction (a reload reaches them all). */
  const readOnly = async (cluster: PgCluster, on: boolean) => {
    await sql(cluster, 'postgres', `ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`)
    await sql(cluster, 'postgres', 'SELECT pg_reload_conf()')
  }
  const portOf = (c: PgCluster) => new URL(c.url).port

  before(async () => {
    ;[a, b] = await Promise.all([startPostgres(), startPostgres()])
    for (const c of [a, b]) {
      await sql(c, 'postgres', `CREATE DATABASE ${name}`)
      // Each server gets the schema and one administrator with the same id (replication would give the same rows).
      const u = new URL(c.url)
      u.pathname = `/${name}`
      const t = await startTestApp({ databaseUrl: u.toString(), masterKey })
      await t.stop()
      await sql(c, name, `insert into users (id, username, display_name, is_admin, source) values ($1, 'ha-admin', 'ha', true, 'local')`, [adminId])
    }
  })

  after(async () => {
    await node?.stop()
    a?.destroy()
    b?.destroy()
  })

  it('skips a host that is down and one that is read-only, and writes on the read-write one', async () => {
    await readOnly(b, true)
    const dead = await freePort()
    const url = `postgres://postgres@127.0.0.1:${dead},127.0.0.1:${portOf(b)},127.0.0.1:${portOf(a)}/${name}?target_session_attrs=read-write`
    node = await startTestApp({ databaseUrl: url, masterKey })
    const token = await node.token({ sub: adminId })
    const r = await node.req('POST', '/api/v1/users', { token, body: { username: 'on-a' } })
    expect(r.status, r.text).to.equal(201)
    expect(await sql(a, name, `select username from users where username = 'on-a'`)).to.have.length(1)
    expect(await sql(b, name, `select username from users where username = 'on-a'`)).to.have.length(0)
    const ready = await node.req('GET', '/ready')
    expect(ready.status, ready.text).to.equal(200)
  })

  it('moves to the new read-write host when its server turns read-only, without a restart', async () => {
    const token = await node!.token({ sub: adminId })
    // Pooled connections to A exist (the request above); now A is demoted and B promoted.
    await readOnly(a, true)
    await readOnly(b, false)
    const statuses: number[] = []
    let created = false
    for (let i = 0; i < 20 && !created; i++) {
      const r = await node!.req('POST', '/api/v1/users', { token, body: { username: 'on-b' } })
      statuses.push(r.status)
      if (r.status === 201) created = true
      else {
        // What a client sees meanwhile: a retryable 503, never a 500.
        expect(r.status, r.text).to.equal(503)
        expect(r.body.code).to.be.oneOf(['READ_ONLY_NODE', 'DATABASE_UNAVAILABLE'])
        expect(r.headers.get('retry-after')).to.equal('5')
        await sleep(200)
      }
    }
    expect(created, `statuses: ${statuses.join(',')}`).to.equal(true)
    expect(statuses.length, 'more than one refused write before the pool moved').to.be.at.most(2)
    expect(await sql(b, name, `select username from users where username = 'on-b'`)).to.have.length(1)
    expect(await sql(a, name, `select username from users where username = 'on-b'`)).to.have.length(0)
    // Reads follow: the user made on B is listed.
    const list = await node!.req('GET', '/api/v1/users?search=on-b', { token })
    expect(list.status, list.text).to.equal(200)
    expect(list.body.items.map((u: { username: string }) => u.username)).to.include('on-b')
  })

  it('answers 503 (not 500) while no host is read-write, and recovers by itself', async () => {
    const token = await node!.token({ sub: adminId })
    await readOnly(b, true)
    let r = await node!.req('POST', '/api/v1/users', { token, body: { username: 'nowhere' } })
    for (let i = 0; i < 3 && r.status === 503 && r.body.code === 'READ_ONLY_NODE'; i++) r = await node!.req('POST', '/api/v1/users', { token, body: { username: 'nowhere' } })
    expect(r.status, r.text).to.equal(503)
    expect(r.body.code).to.equal('DATABASE_UNAVAILABLE')
    const ready = await node!.req('GET', '/ready')
    expect(ready.status).to.equal(503)
    expect(ready.body.checks.database).to.equal('unreachable')
    await readOnly(a, false)
    await sleep(100)
    r = await node!.req('POST', '/api/v1/users', { token, body: { username: 'back-on-a' } })
    expect(r.status, r.text).to.equal(201)
    expect(await sql(a, name, `select username from users where username in ('nowhere', 'back-on-a') order by 1`)).to.deep.equal([{ username: 'back-on-a' }])
  })
})
