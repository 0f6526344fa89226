/**
 * Every node serves what the cluster decided (kernel/cluster/agent.ts): the
 * release lives in the database, each node's agent writes it into its own
 * DATA_DIR, checks it there, switches `current` and says what it serves. The
 * faults of issue 27: kill -9 while the agent writes a release, a cached file
 * altered on disk, the database away, a deploy and a rollback on two nodes at
 * once, a node whose check refuses the release.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import knexPkg, { type Knex } from 'knex'
import { runsOn, startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { startPostgres, type PgCluster } from '../kit/postgres.js'
import { current, matches, releasesOf } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['./test/deploy/fixtures/node-check']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Until `ok()` or `ms` pass; true when it held. */
async function until(ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await ok()) return true
    await sleep(25)
  }
  return ok()
}

const deployVersion = async (t: TestApp, v: number) => {
  expect((await t.admin('PUT', '/api/v1/settings/node-check.version', { body: { value: v } })).status).to.equal(200)
  const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
  expect(r.status, r.text).to.equal(201)
  return r.body.deploys[0] as { id: string; release: string; nodes: { node_id: string; state: string }[] }
}

const rowOf = (knex: Knex, id: string) => knex('deploys').where({ id }).first() as Promise<{ release: string; files: { path: string; sha256: string }[] }>
const servesIntact = async (knex: Knex, dataDir: string, id: string) => {
  const row = await rowOf(knex, id)
  return current(dataDir, 'noded') === row.release && matches(path.join(releasesOf(dataDir, 'noded'), row.release), row.files)
}

for (const engine of testEngines()) {
  describe(`node agent on one node (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    before(async () => {
      // The served release's files are hashed again every 300 ms here (60 s in production).
      process.env.PORTCULLIS_AGENT_VERIFY_MS = '300'
      try {
        t = await startTestApp({ engine, plugins: PLUGINS })
      } finally {
        delete process.env.PORTCULLIS_AGENT_VERIFY_MS
      }
    })
    after(() => t?.stop())

    it('GET /cluster/nodes: this node, its address and version, serving the active release; gated by cluster.read', async () => {
      const d = await deployVersion(t, 1)
      expect(d.nodes).to.deep.include({ node_id: t.app.nodeId, hostname: os.hostname(), live: true, state: 'serving', release: d.release })
      const r = await t.admin('GET', '/api/v1/cluster/nodes')
      expect(r.status, r.text).to.equal(200)
      const me = r.body.items.find((n: { node_id: string }) => n.node_id === t.app.nodeId)
      expect(me).to.include({ this_node: true, live: true, role: 'primary', address: t.url, version: t.app.version })
      expect(me.daemons.find((x: { daemon: string }) => x.daemon === 'noded')).to.include({ release: d.release, deploy_id: d.id, in_sync: true, state: 'serving', error: null })
      expect(r.body.active).to.deep.include({ daemon: 'noded', deploy_id: d.id, release: d.release })
      expect((await t.req('GET', '/api/v1/cluster/nodes', { token: await t.token({ permissions: ['deploy.read'] }) })).status).to.equal(403)
      expect((await t.req('GET', '/api/v1/cluster/nodes', { token: await t.token({ permissions: ['cluster.read'] }) })).status).to.equal(200)
      expect((await t.req('GET', '/api/v1/cluster/nodes')).status).to.equal(401)
    })

    it('a cached release altered on disk is refused and written again from the database when it is rolled back to', async () => {
      const first = await deployVersion(t, 2)
      await deployVersion(t, 3)
      const file = path.join(releasesOf(t.dataDir, 'noded'), first.release, 'noded-b.conf')
      writeFileSync(file, 'version = 666\n')
      const r = await t.admin('POST', `/api/v1/deploys/${first.id}/rollback`)
      expect(r.status, r.text).to.equal(200)
      expect(await servesIntact(t.app.db.knex, t.dataDir, first.id)).to.equal(true)
      expect(readFileSync(file, 'utf8')).to.equal('version = 2\nsecret = s3cret-2\n')
    })

    it('a file of the release being served, altered on disk, is written again from the database; `current` always names a complete folder', async () => {
      const d = await deployVersion(t, 8)
      const file = path.join(releasesOf(t.dataDir, 'noded'), 'current', 'noded-a.conf')
      writeFileSync(file, 'version = 666\n')
      let dangling = 0
      const ok = await until(() => {
        if (!existsSync(path.join(releasesOf(t.dataDir, 'noded'), 'current', 'noded-c.conf'))) dangling++
        return readFileSync(file, 'utf8') === 'version = 8\nsecret = s3cret-8\n'
      })
      expect(ok, 'the altered file was written again').to.equal(true)
      expect(dangling, 'current named an incomplete folder').to.equal(0)
      expect(await servesIntact(t.app.db.knex, t.dataDir, d.id)).to.equal(true)
      expect(readdirSync(releasesOf(t.dataDir, 'noded')).filter((n) => /\.(fresh|altered|partial)$/.test(n))).to.deep.equal([])
    })

    it('a release pruned from the database (deploy.keep_releases) cannot be rolled back to, from any node', async () => {
      expect((await t.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 1 } })).status).to.equal(200)
      const old = await deployVersion(t, 4)
      await deployVersion(t, 5)
      expect(await t.app.db.knex('release_files').where({ deploy_id: old.id }).first()).to.equal(undefined)
      const r = await t.admin('POST', `/api/v1/deploys/${old.id}/rollback`)
      expect(r.status, r.text).to.equal(409)
      expect(r.body.code).to.equal('DEPLOY_RELEASE_MISSING')
      // Every text still stored is named by a kept release: nothing orphaned.
      const orphans = await t.app.db.knex('release_blobs').whereNotExists(t.app.db.knex('release_files').whereRaw('release_files.sha256 = release_blobs.sha256').select(t.app.db.knex.raw('1')))
      expect(orphans).to.deep.equal([])
      expect((await t.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 20 } })).status).to.equal(200)
    })

    it('stores each text once, sealed: a file that did not change is not stored again, and no stored text is readable', async () => {
      const a = await deployVersion(t, 7)
      const before = Number((await t.app.db.knex('release_blobs').count({ n: '*' }))[0].n)
      await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
      expect(Number((await t.app.db.knex('release_blobs').count({ n: '*' }))[0].n)).to.equal(before)
      const blobs = await t.app.db.knex('release_blobs').whereIn('sha256', t.app.db.knex('release_files').where({ deploy_id: a.id }).select('sha256'))
      expect(blobs).to.have.length(2) // the three files are one text, plus the secrets list
      for (const b of blobs) expect(b.content).to.match(/^v2\./).and.not.include('s3cret-7')
    })
  })
}

// PostgreSQL only (several nodes on one database): skipped in the embedded run, where it would repeat the PostgreSQL run's.
;(runsOn('postgres') ? describe : describe.skip)('node agent on three nodes of one cluster (postgres)', function () {
  this.timeout(300_000)
  let a: TestApp
  let b: TestApp
  let c: TestApp
  let db: Knex
  before(async () => {
    a = await startTestApp({ engine: 'postgres', plugins: PLUGINS })
    b = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { NODE_ID: randomUUID() } })
    // Node C's check refuses every release of noded.
    c = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, env: { NODE_ID: randomUUID(), NODE_CHECK_FAIL: 'true' } })
    db = knexPkg({ client: 'pg', connection: a.databaseUrl!, pool: { min: 0, max: 2 } })
  })
  after(async () => {
    await db?.destroy()
    for (const n of [c, b, a]) await n?.stop()
  })

  it('a deploy on one node reaches the others; a node whose check fails keeps its old release and says why', async () => {
    const v1 = await deployVersion(a, 1)
    expect(await until(() => servesIntact(db, b.dataDir, v1.id)), 'node B serves the release').to.equal(true)
    expect(current(c.dataDir, 'noded'), 'node C refused it').to.equal(null)
    expect(await until(async () => {
      const nodes = (await b.admin('GET', '/api/v1/cluster/nodes')).body.items as { node_id: string; daemons: { daemon: string; state: string; error: string | null; check: { ok: boolean | null; output: string } }[] }[]
      const onC = nodes.find((n) => n.node_id === c.app.nodeId)?.daemons.find((d) => d.daemon === 'noded')
      return onC?.state === 'failed' && onC.check.ok === false && /noded refuses/.test(onC.error ?? '')
    })).to.equal(true)
    const arrival = (await a.admin('GET', `/api/v1/deploys/${v1.id}`)).body.nodes as { node_id: string; state: string }[]
    expect(Object.fromEntries(arrival.map((n) => [n.node_id, n.state]))).to.deep.equal({ [a.app.nodeId]: 'serving', [b.app.nodeId]: 'serving', [c.app.nodeId]: 'failed' })
  })

  it('a deploy on node A and a rollback on node B at the same moment: every node ends on the same release', async () => {
    const v2 = await deployVersion(a, 2)
    const v3 = await deployVersion(b, 3)
    expect((await a.admin('PUT', '/api/v1/settings/node-check.version', { body: { value: 4 } })).status).to.equal(200)
    const [dep, rb] = await Promise.all([a.admin('POST', '/api/v1/deploys', { body: { daemon: 'noded' } }), b.admin('POST', `/api/v1/deploys/${v2.id}/rollback`)])
    expect(dep.status, dep.text).to.equal(201)
    expect(rb.status, rb.text).to.equal(200)
    const active = (await db('deploys').where({ daemon: 'noded', status: 'active' }))
    expect(active).to.have.length(1)
    expect([dep.body.deploys[0].id, v2.id]).to.include(active[0].id)
    for (const n of [a, b]) expect(await until(() => servesIntact(db, n.dataDir, active[0].id)), `node ${n.app.nodeId}`).to.equal(true)
    expect(v3.id).to.not.equal(active[0].id)
  })

  it('deploy.keep_releases prunes every node\'s disk, not only the deploying node\'s', async () => {
    expect((await a.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 2 } })).status).to.equal(200)
    // Each node reads a setting at most once a second (settings/store.ts): node B sees the new value by then.
    await sleep(1100)
    let last = ''
    for (let v = 10; v < 14; v++) last = (await deployVersion(a, v)).id
    expect(await until(() => servesIntact(db, b.dataDir, last))).to.equal(true)
    const folders = (dataDir: string) => readdirSync(releasesOf(dataDir, 'noded')).filter((n) => /^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(n))
    expect(folders(a.dataDir)).to.have.length(2)
    expect(await until(() => folders(b.dataDir).length === 2), `node B keeps ${folders(b.dataDir).length} folders`).to.equal(true)
    expect((await a.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 20 } })).status).to.equal(200)
  })

  it('kill -9 of a node while its agent writes a release: `current` is never a half-written folder, and the next start finishes', async () => {
    const dataDir = scratchFolder('portcullis-agent-kill-')
    const nodeId = randomUUID()
    try {
      const env = { ...process.env, DATABASE_URL: a.databaseUrl!, DATA_DIR: dataDir, MASTER_KEY: a.masterKey, NODE_ID: nodeId, PLUGINS: PLUGINS.join(','), LOG_LEVEL: 'silent', PORTCULLIS_AGENT_TEST_DELAY_MS: '400' }
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/deploy/fixtures/serve-node.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      let err = ''
      child.stderr.on('data', (d) => (err += d))
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve())
        child.once('exit', (code) => reject(new Error(`node exited ${code}: ${err}`)))
      })
      // The node starts on the active release (written slowly), then a new one arrives while it is idle.
      const dir = releasesOf(dataDir, 'noded')
      expect(await until(() => current(dataDir, 'noded') !== null, 20_000), 'the node served the active release').to.equal(true)
      const served = current(dataDir, 'noded')
      const next = await deployVersion(a, 5)
      expect(await until(() => existsSync(dir) && readdirSync(dir).some((n) => n.endsWith('.partial')), 10_000), 'the agent began writing').to.equal(true)
      child.kill('SIGKILL')
      await exited
      expect(current(dataDir, 'noded'), 'current still names the release served before').to.equal(served)
      expect(readdirSync(dir).filter((n) => n.endsWith('.partial'))).to.have.length(1)
      // The next start: the half-written folder is gone, the active release written and current.
      const again = await startTestApp({ plugins: PLUGINS, databaseUrl: a.databaseUrl!, masterKey: a.masterKey, dataDir, env: { NODE_ID: nodeId } })
      try {
        expect(await until(() => servesIntact(db, dataDir, next.id))).to.equal(true)
        expect(readdirSync(dir).filter((n) => n.endsWith('.partial') || n.startsWith('.current-'))).to.deep.equal([])
      } finally {
        await again.stop()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

// PostgreSQL only: its own server, stopped for the outage.
;(runsOn('postgres') ? describe : describe.skip)('node agent through a database outage (own PostgreSQL cluster)', function () {
  this.timeout(120_000)
  let cluster: PgCluster
  let a: TestApp
  let b: TestApp
  before(async function () {
    cluster = await startPostgres()
    if (!cluster.owned) {
      console.warn('    skipped: the outage test stops its PostgreSQL server, and a TEST_DATABASE_URL server is not ours to stop')
      this.skip()
    }
    const url = await cluster.createDatabase('agent')
    a = await startTestApp({ databaseUrl: url, plugins: PLUGINS })
    b = await startTestApp({ databaseUrl: url, masterKey: a.masterKey, plugins: PLUGINS, env: { NODE_ID: randomUUID() } })
  })
  after(async () => {
    await b?.stop()
    await a?.stop()
    cluster?.destroy()
  })

  it('the daemons keep the last good release while the database is away; the agent catches up when it returns', async () => {
    const v1 = await deployVersion(a, 1)
    expect(await until(() => servesIntact(a.app.db.knex, b.dataDir, v1.id))).to.equal(true)
    const files = (await rowOf(a.app.db.knex, v1.id)).files
    cluster.stopServer()
    try {
      await sleep(3000) // several polls fail meanwhile
      expect(current(b.dataDir, 'noded')).to.equal(v1.release)
      expect(matches(path.join(releasesOf(b.dataDir, 'noded'), v1.release), files)).to.equal(true)
      expect((await b.req('GET', '/ready')).status).to.equal(503)
    } finally {
      cluster.startServer()
    }
    // A release deployed once it is back reaches node B (its notification connection is re-established, or its poll finds it).
    expect(await until(async () => (await a.req('GET', '/ready')).status === 200, 20_000)).to.equal(true)
    const v2 = await deployVersion(a, 2)
    expect(await until(() => servesIntact(a.app.db.knex, b.dataDir, v2.id), 20_000)).to.equal(true)
  })
})
