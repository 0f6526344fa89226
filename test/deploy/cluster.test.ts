/**
 * Deploys in a cluster: one deploy at a time across every node sharing the
 * database (the deploy lock), never two releases of a daemon `active`, each
 * release on the disk of the node that ran it, and a node's crash recovery
 * touching only its own deploys, never another node's in flight.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import knexPkg, { type Knex } from 'knex'
import type { DeployRow } from '../../kernel/deploy/model.js'
import { jsonText } from '../../sdk/index.js'
import { runsOn, startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { current, matches, releasesOf } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['./test/deploy/fixtures/slow-check']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Deploy {
  id: string
  daemon: string
  release: string
  status: string
  node_id: string | null
  check_output: string | null
  failure_reason: string | null
  created_at: string
  activated_at: string | null
}

async function history(t: TestApp): Promise<Deploy[]> {
  const r = await t.admin('GET', '/api/v1/deploys?per_page=200&sort_by=created_at&sort_order=asc')
  expect(r.status, r.text).to.equal(200)
  return r.body.items as Deploy[]
}

/** Every activated deploy started (was rendered) only after the one before it had activated: no two overlapped. */
function expectOneAfterAnother(items: Deploy[]): void {
  const done = items.filter((d) => d.activated_at).sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
  for (let i = 1; i < done.length; i++) {
    expect(Date.parse(done[i].created_at), `deploy ${i} (${done[i].node_id}) began before deploy ${i - 1} (${done[i - 1].node_id}) had activated`).to.be.at.least(Date.parse(done[i - 1].activated_at!))
  }
}

/** One `active` row per daemon, the one activated last; every other activated row superseded. */
function expectConsistent(items: Deploy[]): void {
  const active = items.filter((d) => d.status === 'active')
  expect(active.map((d) => d.daemon)).to.deep.equal(['slowd'])
  const last = items.filter((d) => d.activated_at).sort((a, b) => Date.parse(b.activated_at!) - Date.parse(a.activated_at!))[0]
  expect(active[0].id).to.equal(last.id)
  expect(items.filter((d) => d.status === 'pending' || d.status === 'failed')).to.deep.equal([])
}

/** Samples the database while deploys run: the most `active` rows any daemon ever had at once. */
function watchActive(knex: Knex, pauseMs: number) {
  let stop = false
  let max = 0
  let samples = 0
  const loop = (async () => {
    while (!stop) {
      const rows = await knex('deploys').where({ status: 'active' }).select('daemon').count({ n: '*' }).groupBy('daemon')
      for (const r of rows) max = Math.max(max, Number(r.n))
      samples++
      if (pauseMs) await sleep(pauseMs)
    }
  })()
  return async () => {
    stop = true
    await loop
    return { max, samples }
  }
}

const holdLock = (knex: Knex, node: string, expiresInSeconds: number) =>
  knex('deploy_lock').where({ name: 'deploy' }).update({ token: randomUUID(), node_id: node, pid: 4242, acquired_at: knex.fn.now(), expires_at: knex.raw(`now() + ? * interval '1 second'`, [expiresInSeconds]) })

for (const engine of testEngines()) {
  describe(`deploy lock and recovery on one node (${engine})`, function () {
    this.timeout(120_000)
    const NODE = randomUUID()
    const OTHER = randomUUID()
    let dataDir: string
    let t: TestApp
    const start = (o: { databaseUrl?: string; masterKey?: string } = {}) => startTestApp({ engine, plugins: PLUGINS, dataDir, env: { NODE_ID: NODE }, ...o })

    before(async () => {
      dataDir = scratchFolder('portcullis-deploy-lock-')
      t = await start()
    })
    after(async () => {
      await t?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('simultaneous deploys on one node run one after the other, and one release stays active', async () => {
      const end = watchActive(t.app.db.knex, engine === 'embedded' ? 5 : 0)
      const rs = await Promise.all([0, 1, 2].map((i) => t.admin('POST', '/api/v1/deploys', { body: { comment: `same node ${i}` } })))
      const seen = await end()
      for (const r of rs) expect(r.status, r.text).to.equal(201)
      expect(seen.max).to.be.at.most(1)
      const items = await history(t)
      expect(items).to.have.length(3)
      expect(items.every((d) => d.node_id === NODE)).to.equal(true)
      expectOneAfterAnother(items)
      expectConsistent(items)
      expect(current(t.dataDir, 'slowd')).to.equal(items.find((d) => d.status === 'active')!.release)
    })

    it('while another node holds the deploy lock: waits deploy.lock_wait_seconds, then 409 DEPLOY_IN_PROGRESS naming that node; an expired lock is taken over', async () => {
      const knex = t.app.db.knex
      expect((await t.admin('PUT', '/api/v1/settings/deploy.lock_wait_seconds', { body: { value: 1 } })).status).to.equal(200)
      const before = (await history(t)).length
      try {
        await holdLock(knex, OTHER, 3600)
        const t0 = Date.now()
        const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
        expect(r.status, r.text).to.equal(409)
        expect(r.body.code).to.equal('DEPLOY_IN_PROGRESS')
        expect(r.body.detail).to.include(OTHER)
        expect(Date.now() - t0).to.be.at.least(900)
        // A rollback waits for the same lock.
        const active = (await history(t)).find((d) => d.status === 'active')!
        expect((await t.admin('POST', `/api/v1/deploys/${active.id}/rollback`)).body.code).to.equal('DEPLOY_IN_PROGRESS')
        expect(await history(t)).to.have.length(before)

        // The holder died: once its lease has expired, the next deploy takes the lock over.
        await knex('deploy_lock').update({ expires_at: knex.raw(`now() - interval '1 second'`) })
        const ok = await t.admin('POST', '/api/v1/deploys', { body: {} })
        expect(ok.status, ok.text).to.equal(201)
        expect(await knex('deploy_lock').first('token')).to.deep.equal({ token: null })
      } finally {
        await knex('deploy_lock').update({ token: null, node_id: null, pid: null, acquired_at: null, expires_at: null })
        await t.admin('PUT', '/api/v1/settings/deploy.lock_wait_seconds', { body: { value: 30 } })
      }
    })

    it('a restart marks only its own interrupted deploys failed, leaves another node\'s pending deploy alone, and frees the lock it left', async () => {
      const knex = t.app.db.knex
      const row = (id: string, node: string) => ({ id, daemon: 'slowd', release: `20260101T000000000Z-${id.slice(0, 8)}`, status: 'pending' as const, node_id: node, check_output: 'ok', files: jsonText([]) })
      const own = randomUUID()
      const theirs = randomUUID()
      await knex('deploys').insert([row(own, NODE), row(theirs, OTHER)])
      // This node died holding the lock (kill -9 mid-deploy).
      await holdLock(knex, NODE, 3600)
      const { databaseUrl, masterKey } = t
      await t.stop()
      t = await start({ databaseUrl: databaseUrl ?? undefined, masterKey })
      const get = async (id: string) => (await t.admin('GET', `/api/v1/deploys/${id}`)).body as Deploy
      expect(await get(theirs)).to.include({ status: 'pending', check_output: 'ok', node_id: OTHER })
      const mine = await get(own)
      expect(mine.status).to.equal('failed')
      expect(mine.check_output).to.include('interrupted before activation')
      expect(mine.failure_reason).to.equal('interrupted')
      // The lock was freed at start: a deploy that would not wait at all goes through.
      await t.admin('PUT', '/api/v1/settings/deploy.lock_wait_seconds', { body: { value: 0 } })
      try {
        const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
        expect(r.status, r.text).to.equal(201)
      } finally {
        await t.admin('PUT', '/api/v1/settings/deploy.lock_wait_seconds', { body: { value: 30 } })
      }
      // ...and a deploy (which recovers first) leaves the other node's row alone too.
      expect((await get(theirs)).status).to.equal('pending')
      await t.app.db.knex('deploys').whereIn('id', [own, theirs]).delete()
    })
  })
}

// PostgreSQL only: skipped (pending) in the embedded run of `npm test`, where it would repeat the PostgreSQL run's.
;(runsOn('postgres') ? describe : describe.skip)('deploys on two nodes of one cluster (postgres)', function () {
  this.timeout(300_000)
  const A = randomUUID()
  const B = randomUUID()
  let a: TestApp
  let b: TestApp
  let db: Knex
  const nodes = () => [a, b]
  const dirOf = (node: string | null) => (node === A ? a.dataDir : b.dataDir)
  const putBoth = async (key: string, value: unknown) => {
    for (const n of nodes()) expect((await n.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
  }

  before(async () => {
    // Two nodes on one database: PostgreSQL, whatever TEST_ENGINE says.
    a = await startTestApp({ engine: 'postgres', plugins: PLUGINS, env: { NODE_ID: A } })
    b = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { NODE_ID: B } })
    db = knexPkg({ client: 'pg', connection: a.databaseUrl!, pool: { min: 0, max: 2 } })
  })
  after(async () => {
    await db?.destroy()
    await b?.stop()
    await a?.stop()
  })

  /** Until every node's `current` of slowd is `release` (their agents follow the active row), or 10 s. */
  const everyNodeServes = async (release: string) => {
    for (let i = 0; i < 200 && !nodes().every((n) => current(n.dataDir, 'slowd') === release); i++) await sleep(50)
    for (const n of nodes()) expect(current(n.dataDir, 'slowd'), `node ${n.app.nodeId}`).to.equal(release)
  }

  it('both nodes deploying at the same moment, 10 rounds: one at a time, never two active, a consistent history, every node ends on the active release', async () => {
    const end = watchActive(db, 0)
    for (let round = 0; round < 10; round++) {
      const rs = await Promise.all(nodes().map((n) => n.admin('POST', '/api/v1/deploys', { body: { comment: `round ${round}` } })))
      for (const r of rs) expect(r.status, r.text).to.equal(201)
      expect(rs[0].body.deploys[0].node_id).to.equal(A)
      expect(rs[1].body.deploys[0].node_id).to.equal(B)
    }
    const seen = await end()
    expect(seen.samples).to.be.greaterThan(10)
    expect(seen.max, 'two releases of slowd were active at once').to.be.at.most(1)
    const items = await history(a)
    expect(items).to.have.length(20)
    expect(await history(b)).to.deep.equal(items)
    expectOneAfterAnother(items)
    expectConsistent(items)
    for (const d of items) expect(existsSync(path.join(releasesOf(dirOf(d.node_id), 'slowd'), d.release)), `${d.release} on its node`).to.equal(true)
    // Whichever node deployed last, both serve the active release: the other node's agent wrote it from the database.
    const active = items.find((d) => d.status === 'active')!
    await everyNodeServes(active.release)
    const view = (await a.admin('GET', `/api/v1/deploys/${active.id}`)).body as Deploy & { nodes: { node_id: string; state: string }[] }
    for (const node of [A, B]) expect(view.nodes.find((n) => n.node_id === node)?.state, `node ${node} in the deploy's arrival`).to.equal('serving')
    expect(await db('deploy_lock').first('token')).to.deep.equal({ token: null })
  })

  it('when the wait runs out: of two simultaneous deploys one is activated, the other answers 409 DEPLOY_IN_PROGRESS naming the node that holds the lock', async () => {
    await putBoth('slow-check.ms', 2500)
    await putBoth('deploy.lock_wait_seconds', 1)
    try {
      const rs = await Promise.all(nodes().map((n) => n.admin('POST', '/api/v1/deploys', { body: {} })))
      expect(rs.map((r) => r.status).sort()).to.deep.equal([201, 409])
      const won = rs.findIndex((r) => r.status === 201)
      const lost = rs[1 - won]
      expect(lost.body.code).to.equal('DEPLOY_IN_PROGRESS')
      expect(lost.body.detail).to.include(won === 0 ? A : B)
      const items = await history(a)
      expect(items).to.have.length(21)
      expectConsistent(items)
    } finally {
      await putBoth('slow-check.ms', 300)
      await putBoth('deploy.lock_wait_seconds', 30)
    }
  })

  it('a rollback sent to either node reaches both: a release node B deployed, rolled back through node A', async () => {
    const items = await history(a)
    const ofB = items.filter((d) => d.node_id === B && d.status === 'superseded').at(-1)!
    // Not in A's cache any more: A writes it from the database.
    rmSync(path.join(releasesOf(a.dataDir, 'slowd'), ofB.release), { recursive: true, force: true })
    const r = await a.admin('POST', `/api/v1/deploys/${ofB.id}/rollback`)
    expect(r.status, r.text).to.equal(200)
    expect(current(a.dataDir, 'slowd'), 'node A switches before it answers').to.equal(ofB.release)
    await everyNodeServes(ofB.release)
    expect((await history(b)).filter((d) => d.status === 'active').map((d) => d.id)).to.deep.equal([ofB.id])
    const row = (await db('deploys').where({ id: ofB.id }).first())!
    expect(matches(path.join(releasesOf(a.dataDir, 'slowd'), ofB.release), row.files), 'node A\'s copy matches the recorded hashes').to.equal(true)
  })

  it('a node starting while another node\'s deploy is pending does not fail it or roll it back: that deploy completes', async () => {
    const C = randomUUID()
    // Node C pauses 3 s between the steps of its deploys (the crash test's hook), so its deploy stays pending a while.
    process.env.PORTCULLIS_DEPLOY_TEST_DELAY_MS = '3000'
    let c: TestApp
    try {
      c = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { NODE_ID: C } })
    } finally {
      delete process.env.PORTCULLIS_DEPLOY_TEST_DELAY_MS
    }
    let d: TestApp | undefined
    try {
      const deploying = c.admin('POST', '/api/v1/deploys', { body: { comment: 'in flight' } })
      let row: DeployRow | undefined
      for (let i = 0; i < 600 && !row; i++) {
        row = await db('deploys').where({ node_id: C, status: 'pending' }).first()
        if (!row) await sleep(50)
      }
      expect(row, 'node C\'s deploy never became pending').to.not.equal(undefined)
      // A new node starts now: its recovery runs at boot.
      d = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { NODE_ID: randomUUID() } })
      const during = (await db('deploys').where({ id: row!.id }).first())!
      expect(during.status, 'the starting node touched a deploy in flight on another node').to.equal('pending')
      const r = await deploying
      expect(r.status, r.text).to.equal(201)
      const done = (await a.admin('GET', `/api/v1/deploys/${row!.id}`)).body as Deploy
      expect(done.status).to.equal('active')
      expect(done.check_output).to.not.include('interrupted')
      expect(current(c.dataDir, 'slowd')).to.equal(done.release)
      expectConsistent(await history(a))
    } finally {
      await d?.stop()
      await c.stop()
    }
  })
})
