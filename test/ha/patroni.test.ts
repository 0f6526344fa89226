/**
 * The PostgreSQL cluster docs/cluster.md gives a site (examples/patroni/patroni.yml): three members
 * under Patroni with etcd, on loopback. What a site relies on, against the real programs: one primary
 * and a synchronous standby that holds every acknowledged commit; etcd down does not stop writes nor
 * make a second primary (failsafe_mode); etcd down AND a server lost leaves the cluster read-only,
 * never split; a crash of PostgreSQL alone is no failover (Patroni restarts it); a standby far behind is never promoted (maximum_lag_on_failover), so nothing
 * acknowledged is lost. One cluster start for the whole file.
 */
import { expect } from 'chai'
import pg from 'pg'
import { runsOn } from '../kit/app.js'
import { startPatroni, patroniMissing, type PatroniCluster } from '../kit/patroni.js'
import { skipBecause } from '../kit/skip.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  c.on('error', () => undefined)
  await c.connect()
  try {
    return (await c.query(text, params)).rows as T[]
  } finally {
    await c.end().catch(() => undefined)
  }
}

/** The rows counted on a member, once it shows `want` (a standby replays a moment later), else what it last showed. */
async function countOn(url: string, table: string, want: number, where = 'true'): Promise<number> {
  let n = -1
  for (const end = Date.now() + 20_000; Date.now() < end; await sleep(250)) {
    n = Number((await sql<{ n: string }>(url, `SELECT count(*) AS n FROM ${table} WHERE ${where}`))[0].n)
    if (n === want) break
  }
  return n
}

/** The WAL receiver of a standby: SIGSTOP freezes it as a cut link would (it neither receives nor answers). */
const walReceiverPid = async (c: PatroniCluster, name: string) =>
  (await sql<{ pid: number }>(c.memberUrl(name), 'SELECT pid FROM pg_stat_wal_receiver'))[0].pid

;(runsOn('postgres') ? describe : describe.skip)('PostgreSQL under Patroni: the site configuration (postgres)', function () {
  this.timeout(600_000)
  let c: PatroniCluster
  let leader: string
  let standbys: string[]
  const frozen: number[] = []
  const url = (name: string) => c.memberUrl(name)

  before(async function () {
    const why = patroniMissing()
    if (why) skipBecause(this, why)
    c = await startPatroni({ members: 3, synchronous: true })
    leader = await c.waitForLeader()
    standbys = c.members.map((m) => m.name).filter((n) => n !== leader)
  })
  after(() => {
    for (const p of frozen) {
      try {
        process.kill(p, 'SIGCONT')
      } catch {
        /* gone */
      }
    }
    c?.destroy()
  })

  it('forms one leader and a synchronous standby; a commit is acknowledged only once the synchronous standby has it', async () => {
    const state = await c.waitHealthy()
    expect(state.filter((m) => m.role === 'leader').map((m) => m.name)).to.deep.equal([leader])
    const sync = state.filter((m) => m.role === 'sync_standby').map((m) => m.name)
    expect(sync).to.have.length(1)
    expect(await c.primaries()).to.deep.equal([leader])
    for (const s of standbys) expect(await c.inRecovery(s), s).to.equal(true)
    const rep = await sql<{ application_name: string; sync_state: string }>(url(leader), 'SELECT application_name, sync_state FROM pg_stat_replication ORDER BY 1')
    expect(rep.find((r) => r.application_name === sync[0])?.sync_state).to.equal('sync')

    await sql(url(leader), 'CREATE TABLE ha_rows (id int PRIMARY KEY, at timestamptz DEFAULT now(), pad text)')
    // With the synchronous standby's WAL receiver frozen, a commit on the primary waits: not acknowledged.
    const receiver = await walReceiverPid(c, sync[0])
    process.kill(receiver, 'SIGSTOP')
    frozen.push(receiver)
    let acked = false
    const commit = sql(url(leader), 'INSERT INTO ha_rows (id) VALUES (1)').then(() => (acked = true))
    await sleep(3000)
    expect(acked, 'a commit was acknowledged before the synchronous standby had it').to.equal(false)
    process.kill(receiver, 'SIGCONT')
    frozen.pop()
    await commit
    expect((await sql(url(sync[0]), 'SELECT id FROM ha_rows WHERE id = 1')).length).to.equal(1)
  })

  it('etcd down: the leader stays the only primary and keeps taking writes (failsafe_mode); the others stay standbys', async () => {
    await c.stopEtcd()
    let written = 0
    const failed: string[] = []
    try {
      // Longer than twice the leader key's ttl (10 s): without failsafe_mode the leader demotes itself within one ttl.
      const end = Date.now() + 25_000
      for (let id = 100; Date.now() < end; id++) {
        expect(await c.primaries(), 'primaries while etcd is down').to.deep.equal([leader])
        for (const s of standbys) expect(await c.inRecovery(s), `${s} while etcd is down`).to.equal(true)
        try {
          await sql(url(leader), 'INSERT INTO ha_rows (id) VALUES ($1)', [id])
          written++
        } catch (e) {
          failed.push((e as Error).message)
        }
        await sleep(500)
      }
      expect(failed, 'writes refused while etcd was down').to.deep.equal([])
      expect(written).to.be.greaterThan(20)
      expect(c.log(leader)).to.include('continue to run as a leader because failsafe mode is enabled and all members are accessible')
    } finally {
      await c.startEtcd()
    }
    expect(await c.waitForLeader()).to.equal(leader)
    await c.waitHealthy()
    for (const s of standbys) expect(await countOn(url(s), 'ha_rows', written, 'id >= 100'), s).to.equal(written)
  })

  it('etcd down and a standby lost as well: the primary cannot confirm it is alone, turns read-only, and no one else is promoted; etcd back, it leads again with every row', async () => {
    const before = Number((await sql<{ n: string }>(url(leader), 'SELECT count(*) AS n FROM ha_rows'))[0].n)
    await c.stopEtcd()
    await c.killMember(standbys[1])
    try {
      let sawReadOnly = false
      // At least longer than the leader key's ttl (10 s): a standby could not be promoted without etcd anyway.
      // The demotion itself comes after ttl plus Patroni's retries of etcd: on a loaded machine its loop
      // runs late, so it is waited for up to 60 s (never a second primary meanwhile).
      const start = Date.now()
      while (Date.now() < start + 15_000 || (!sawReadOnly && Date.now() < start + 60_000)) {
        const p = await c.primaries()
        expect(p.filter((x) => x !== leader), 'a second primary').to.deep.equal([])
        expect(await c.inRecovery(standbys[0])).to.equal(true)
        if (p.length === 0) sawReadOnly = true
        await sleep(500)
      }
      expect(sawReadOnly, 'the primary kept its role without etcd nor every member').to.equal(true)
      expect(await c.primaries()).to.deep.equal([])
      // Demoting, Patroni may restart the server read-only: a write meets a refused connection for a moment,
      // then the read-only answer. It never succeeds.
      let refused = ''
      for (const end = Date.now() + 30_000; !/read-only/.test(refused) && Date.now() < end; await sleep(500)) {
        let wrote = true
        await sql(url(leader), 'INSERT INTO ha_rows (id) VALUES (-1)').catch((e: Error) => ((refused = e.message), (wrote = false)))
        expect(wrote, 'a write accepted by a primary without etcd').to.equal(false)
      }
      expect(refused).to.match(/read-only/)
    } finally {
      await c.startEtcd()
    }
    leader = await c.waitForLeader()
    await c.restartMember(standbys[1])
    standbys = c.members.map((m) => m.name).filter((n) => n !== leader)
    await c.waitHealthy()
    expect(Number((await sql<{ n: string }>(url(leader), 'SELECT count(*) AS n FROM ha_rows'))[0].n)).to.equal(before)
  })

  it('kill -9 of the primary\'s PostgreSQL alone (its Patroni lives): Patroni starts it again in place, still the leader, with every row', async () => {
    const n = Number((await sql<{ n: string }>(url(leader), 'SELECT count(*) AS n FROM ha_rows'))[0].n)
    const pid = c.members.find((m) => m.name === leader)!.postgresPid()
    await c.killMember(leader, { postgresOnly: true })
    for (const end = Date.now() + 60_000; (await c.inRecovery(leader)) !== false; await sleep(250)) {
      if (Date.now() > end) throw new Error(`${leader}'s PostgreSQL did not come back`)
    }
    expect(c.members.find((m) => m.name === leader)!.postgresPid()).to.not.equal(pid)
    expect(await c.waitForLeader()).to.equal(leader)
    expect(await c.primaries()).to.deep.equal([leader])
    expect(Number((await sql<{ n: string }>(url(leader), 'SELECT count(*) AS n FROM ha_rows'))[0].n)).to.equal(n)
    await c.waitHealthy()
  })

  it('standbys far behind (more than maximum_lag_on_failover) are not promoted when the primary is lost: no primary rather than lost rows; the old primary back, it leads with every row', async () => {
    // The guard matters without synchronous mode (with it Patroni promotes only the synchronous standby, which has every commit).
    await c.patchConfig({ synchronous_mode: false })
    await c.waitHealthy()
    await sql(url(leader), 'CREATE TABLE ha_behind (id int PRIMARY KEY, pad text)')
    await sleep(1000)
    for (const s of standbys) {
      const p = await walReceiverPid(c, s)
      process.kill(p, 'SIGSTOP')
      frozen.push(p)
    }
    // About 5 MB of WAL, five times the example's maximum_lag_on_failover (1 MB).
    await sql(url(leader), "INSERT INTO ha_behind SELECT g, repeat('x', 1000) FROM generate_series(1, 5000) g")
    // Patroni records the leader's WAL position in etcd every loop: wait until it shows the standbys behind.
    const end = Date.now() + 30_000
    for (;;) {
      const lags = ((await c.clusterState()) ?? []).filter((m) => standbys.includes(m.name)).map((m) => Number(m.lag))
      if (lags.length === 2 && lags.every((l) => l > 1_048_576)) break
      if (Date.now() > end) throw new Error(`the standbys never showed behind: ${JSON.stringify(await c.clusterState())}`)
      await sleep(500)
    }
    await c.killMember(leader)
    // Twice the leader key's ttl (10 s): each standby declines the race, every loop.
    const until = Date.now() + 20_000
    while (Date.now() < until) {
      // Neither Patroni's view (a leader key) nor PostgreSQL's (a server out of recovery) shows a new primary.
      expect(((await c.clusterState()) ?? []).filter((m) => m.role === 'leader' && m.name !== leader).map((m) => m.name), 'a standby far behind took the leader key').to.deep.equal([])
      expect(await c.primaries(), 'a standby far behind was promoted').to.deep.equal([])
      await sleep(500)
    }
    for (const s of standbys) expect(c.log(s)).to.include('My wal position exceeds maximum replication lag')
    for (const p of frozen.splice(0)) process.kill(p, 'SIGCONT')
    // The standbys alone still cannot catch up (the primary is gone): the lost server must come back.
    await sleep(3000)
    expect(await c.primaries()).to.deep.equal([])
    await c.restartMember(leader)
    expect(await c.waitForLeader()).to.equal(leader)
    expect(Number((await sql<{ n: string }>(url(leader), 'SELECT count(*) AS n FROM ha_behind'))[0].n)).to.equal(5000)
    await c.patchConfig({ synchronous_mode: true })
    await c.waitHealthy()
    for (const s of standbys) expect(await countOn(url(s), 'ha_behind', 5000), s).to.equal(5000)
  })
})
