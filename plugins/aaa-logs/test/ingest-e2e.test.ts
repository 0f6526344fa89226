import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import type { Knex } from 'knex'
import type { LoadExclusions } from '../api.js'
import { CheckpointMoved } from '../ingest/core.js'
import { createIngester } from '../ingest/index.js'
import { countOf } from '../services/logs.js'
import { tableSettings } from './standalone-deps.js'
import { silentLogger, startTestApp, type TestApp } from '../../../test/kit/app.js'

const TS = '2026-11-21T06:34:11.184829+00:00'
const authz = (i: number, user = `user${i}`) =>
  [TS, 'authorization', 'AUTHZ-PASS', user, 'core1', '10.0.0.1', 'tty1', '192.0.2.9', 'netops', 'admin', 'permit', 'shell', '15', `show ${i}`, 'service=shell', '', '', String(i)].join('\t') + '\n'
const lines = (from: number, to: number, user?: string) => Array.from({ length: to - from }, (_, k) => authz(from + k, user)).join('')
const FILE = 'authorization-2026-11-21.log'
/** The daemon's plugin beside the ingester: its renderer says where tac_plus-ng writes. */
const PLUGINS = ['inventory', 'tacacs', 'aaa-logs']

async function waitFor(fn: () => Promise<boolean>, ms = 20000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await fn()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('timed out')
}
const count = (knex: Knex) => countOf(knex('aaa_log_tacacs_authz'))

describe('aaa-logs ingest: end to end', function () {
  this.timeout(120000)
  let dir: string
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'aaa-ingest-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('tails the folder configured in settings, stamps node_id, exactly once across a restart; a partial line waits', async () => {
    const settings = { 'aaa-logs.poll_ms': 20 }
    // The ingester follows the folder the daemon is configured to write to (the renderer's option).
    const options = { 'tacacs.log_directory': dir }
    const env = { NODE_ID: randomUUID() } // the node's identity survives the restart
    let t: TestApp = await startTestApp({ plugins: PLUGINS, settings, options, env })
    const { databaseUrl, dataDir, masterKey } = t
    try {
      writeFileSync(path.join(dir, FILE), lines(0, 100))
      await waitFor(async () => (await count(t.app.db.knex)) === 100).catch(async (e) => {
        console.log(await count(t.app.db.knex), await t.app.db.knex('aaa_log_checkpoints'), await t.app.db.knex('aaa_log_quarantine').select('reason'))
        throw e
      })
      const nodes = await t.app.db.knex('aaa_log_tacacs_authz').distinct('node_id')
      expect(nodes).to.deep.equal([{ node_id: t.app.nodeId }])
      const partial = authz(150)
      appendFileSync(path.join(dir, FILE), lines(100, 150) + partial.slice(0, 30))
      await waitFor(async () => (await count(t.app.db.knex)) === 150)
      await new Promise((r) => setTimeout(r, 200))
      expect(await count(t.app.db.knex)).to.equal(150)
      await t.stop()
      appendFileSync(path.join(dir, FILE), partial.slice(30) + lines(151, 200))
      t = await startTestApp({ plugins: PLUGINS, settings, options, env, databaseUrl: databaseUrl!, dataDir, masterKey })
      await waitFor(async () => (await count(t.app.db.knex)) === 200).catch(async (e) => {
        console.log(await count(t.app.db.knex), await t.app.db.knex('aaa_log_checkpoints'), await t.app.db.knex('aaa_log_quarantine').select('reason'))
        throw e
      })
      await new Promise((r) => setTimeout(r, 200))
      const rows = await t.app.db.knex('aaa_log_tacacs_authz').select('command', 'source_offset')
      expect(rows).to.have.length(200)
      expect(new Set(rows.map((r) => r.command)).size).to.equal(200)
      expect(new Set(rows.map((r) => r.source_offset)).size).to.equal(200)
    } finally {
      await t.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('works on the embedded engine (one connection, short transactions)', async () => {
    const t = await startTestApp({ engine: 'embedded', plugins: PLUGINS, settings: { 'aaa-logs.poll_ms': 20, 'aaa-logs.batch_size': 10 }, options: { 'tacacs.log_directory': dir } })
    try {
      writeFileSync(path.join(dir, FILE), lines(0, 55))
      await waitFor(async () => (await count(t.app.db.knex)) === 55)
      const r = (await t.app.db.knex('aaa_log_tacacs_authz').where({ command: 'show 7' }).first())!
      expect(r).to.include({ username: 'user7', node_id: t.app.nodeId, action: 'permit', priv_lvl: 15 })
      expect(r.arguments).to.deep.equal(['service=shell'])
    } finally {
      await t.stop()
    }
  })

  describe('with the ingester driven directly', () => {
    let t: TestApp
    before(async () => (t = await startTestApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })))
    after(async () => t.stop())

    const ingester = (loadExclusions: LoadExclusions = async () => ({ match: () => null })) => {
      const nodeId = randomUUID()
      return {
        nodeId,
        ing: createIngester({
          database: t.app.db,
          settings: tableSettings(t.app.db.knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.batch_size': 7 }),
          logFolders: () => [{ daemon: 'any', directory: dir }],
          logger: silentLogger(),
          cluster: { nodeId, role: 'primary' },
            loadExclusions,
        }),
      }
    }
    const rowsOf = (nodeId: string) => t.app.db.knex('aaa_log_tacacs_authz').where({ node_id: nodeId }).orderBy('source_offset').select('command', 'source_file')

    it('rotation by rename: finishes the old file from its checkpoint, then the new one from 0', async () => {
      const { nodeId, ing } = ingester()
      const f = path.join(dir, FILE)
      writeFileSync(f, lines(0, 10))
      await ing.pollOnce()
      appendFileSync(f, lines(10, 15))
      renameSync(f, f + '.1')
      writeFileSync(f, lines(15, 20))
      await ing.pollOnce()
      const rows = await rowsOf(nodeId)
      expect(rows.map((r) => r.command)).to.have.members(Array.from({ length: 20 }, (_, i) => `show ${i}`))
    })

    it('rotation by copytruncate: restarts at 0 of the same file', async () => {
      const { nodeId, ing } = ingester()
      const f = path.join(dir, FILE)
      writeFileSync(f, lines(0, 10))
      await ing.pollOnce()
      truncateSync(f, 0)
      appendFileSync(f, lines(10, 13))
      await ing.pollOnce()
      expect((await rowsOf(nodeId)).map((r) => r.command)).to.have.members(Array.from({ length: 13 }, (_, i) => `show ${i}`))
    })

    it('date-named files are new files; a renamed file under a tailed name keeps its checkpoint', async () => {
      const { nodeId, ing } = ingester()
      writeFileSync(path.join(dir, 'authorization-2026-11-20.log'), lines(0, 5))
      await ing.pollOnce()
      writeFileSync(path.join(dir, 'authorization-2026-11-21.log'), lines(5, 9))
      renameSync(path.join(dir, 'authorization-2026-11-20.log'), path.join(dir, 'authorization-2026-11-20-old.log'))
      await ing.pollOnce()
      expect((await rowsOf(nodeId)).map((r) => r.command)).to.have.members(Array.from({ length: 9 }, (_, i) => `show ${i}`))
    })

    it('a file renamed to another tailed name while a new one takes its name: no line twice', async () => {
      const { nodeId, ing } = ingester()
      const a = path.join(dir, 'authorization-a.log')
      writeFileSync(a, lines(0, 10))
      await ing.pollOnce()
      appendFileSync(a, lines(10, 12))
      renameSync(a, path.join(dir, 'authorization-b.log'))
      writeFileSync(a, lines(12, 15))
      await ing.pollOnce()
      await ing.pollOnce()
      const rows = await rowsOf(nodeId)
      expect(rows.map((r) => r.command)).to.have.members(Array.from({ length: 15 }, (_, i) => `show ${i}`))
    })

    it('a commit lost by a database failover (its rows and checkpoint gone together) is read again: by the next batch, and while the file is quiet', async () => {
      const nodeId = randomUUID()
      // reloadMs 0: every poll compares the stored checkpoints with this node's (every 5 s in production).
      const ing = createIngester(
        { database: t.app.db, settings: tableSettings(t.app.db.knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.batch_size': 7 }), logFolders: () => [{ daemon: 'any', directory: dir }], logger: silentLogger(), cluster: { nodeId, role: 'primary' }, loadExclusions: async () => ({ match: () => null }) },
        { reloadMs: 0 },
      )
      const f = path.join(dir, FILE)
      // What a promoted standby holds when the old primary acknowledged the last batch (asynchronous commit) and died.
      const loseLastBatch = async (kept: number) => {
        const at = Buffer.byteLength(lines(0, kept))
        await t.app.db.knex('aaa_log_tacacs_authz').where({ node_id: nodeId }).andWhere('source_offset', '>=', at).delete()
        await t.app.db.knex('aaa_log_checkpoints').where({ node_id: nodeId }).update({ offset_bytes: at })
      }
      const commands = async () => (await rowsOf(nodeId)).map((r) => r.command)
      const upTo = (n: number) => Array.from({ length: n }, (_, i) => `show ${i}`)

      // The file goes on: the next batch finds the stored checkpoint behind and writes nothing, the poll after reads from it.
      writeFileSync(f, lines(0, 21))
      await ing.pollOnce()
      await loseLastBatch(14)
      appendFileSync(f, lines(21, 25))
      await ing.pollOnce().catch(() => undefined) // reconcile() sees it first (reloadMs 0); without it the batch is refused
      await ing.pollOnce()
      expect(await commands()).to.deep.equal(upTo(25))

      // The file is quiet: nothing would be written to notice, the periodic comparison does.
      await loseLastBatch(21)
      expect(await commands()).to.deep.equal(upTo(21))
      await ing.pollOnce()
      expect(await commands()).to.deep.equal(upTo(25))
    })

    it('a batch whose stored checkpoint moved under it writes nothing (CheckpointMoved), and the file is read again from the stored one', async () => {
      const { nodeId, ing } = ingester()
      const f = path.join(dir, FILE)
      writeFileSync(f, lines(0, 7))
      await ing.pollOnce()
      await t.app.db.knex('aaa_log_tacacs_authz').where({ node_id: nodeId }).delete()
      await t.app.db.knex('aaa_log_checkpoints').where({ node_id: nodeId }).delete()
      appendFileSync(f, lines(7, 10))
      const e = await ing.pollOnce().then(() => null, (x: Error) => x)
      expect(e, 'the batch was refused').to.be.instanceOf(CheckpointMoved)
      expect(await rowsOf(nodeId)).to.have.length(0)
      await ing.pollOnce()
      expect((await rowsOf(nodeId)).map((r) => r.command)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `show ${i}`))
    })

    it('quarantines malformed lines with the reason and the raw bytes, and goes on', async () => {
      const { nodeId, ing } = ingester()
      const broken = Buffer.concat([Buffer.from('2026-11-21T06:34:11Z\tauthorization\tAUTHZ-PASS\tbad\xff'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')])
      const f = path.join(dir, FILE)
      writeFileSync(f, lines(0, 3))
      appendFileSync(f, broken)
      appendFileSync(f, authz(3).slice(0, 50) + '\n') // truncated by a crash of the writer
      appendFileSync(f, '{"user":"a"b"}\n') // a JSON-shaped template broken by a "
      appendFileSync(f, lines(4, 6))
      const fr = path.join(dir, 'radius-auth-2026-11-21.jsonl')
      writeFileSync(fr, '{"v":1,"kind":"auth","ts":"1763706851","us":"1","result":"reject","request":{"User-Name":"eve","NAS-IP-Address":"10.9.9.9"},"control":{},"reply":{}}\n{"v":1,"kind":"auth"\n')
      await ing.pollOnce()
      expect((await rowsOf(nodeId)).map((r) => r.command)).to.have.members(['show 0', 'show 1', 'show 2', 'show 4', 'show 5'])
      const q = await t.app.db.knex('aaa_log_quarantine').where({ node_id: nodeId }).orderBy('source_offset')
      expect(q).to.have.length(4)
      expect(q.map((x) => x.reason).join('|')).to.include('invalid UTF-8').and.include('fields')
      expect(Buffer.compare(q.find((x) => x.reason === 'invalid UTF-8')!.line, broken.subarray(0, broken.length - 1))).to.equal(0)
      const radius = await t.app.db.knex('aaa_log_radius_auth').where({ node_id: nodeId })
      expect(radius).to.have.length(1)
      expect(radius[0]).to.include({ username: 'eve', status: 'reject', nas_ip: '10.9.9.9' })
    })

    it('drops excluded events and counts them per exclusion and day in the same transaction', async () => {
      const ex = randomUUID()
      const { nodeId, ing } = ingester(async () => ({ match: (p, u) => (p === 'tacacs' && u === 'monitor' ? ex : null) }))
      writeFileSync(path.join(dir, FILE), lines(0, 10) + lines(10, 30, 'monitor') + lines(30, 35))
      await ing.pollOnce()
      expect(await rowsOf(nodeId)).to.have.length(15)
      const drops = await t.app.db.knex('aaa_log_exclusion_drops').where({ node_id: nodeId })
      expect(drops).to.have.length(1)
      expect(Number(drops[0].dropped)).to.equal(20)
      expect(drops[0].exclusion_id).to.equal(ex)
      const cp = await t.app.db.knex('aaa_log_checkpoints').where({ node_id: nodeId }).first()
      expect(cp?.offset_bytes).to.equal(Buffer.byteLength(lines(0, 10) + lines(10, 30, 'monitor') + lines(30, 35)))
    })

    it('ingestion rate (a quick figure, exclusions on)', async function () {
      const nodeId = randomUUID()
      const N = 50000
      const chunks: string[] = []
      for (let i = 0; i < N; i++) chunks.push(authz(i, i % 10 === 0 ? 'monitor' : `user${i % 500}`))
      writeFileSync(path.join(dir, FILE), chunks.join(''))
      const big = createIngester({
        database: t.app.db,
        settings: tableSettings(t.app.db.knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.batch_size': 2000 }),
          logFolders: () => [{ daemon: 'any', directory: dir }],
        logger: silentLogger(),
        cluster: { nodeId, role: 'primary' },
        loadExclusions: async () => ({ match: (_p, u) => (u === 'monitor' ? '00000000-0000-4000-8000-000000000001' : null) }),
      })
      const t0 = performance.now()
      await big.pollOnce()
      const s = (performance.now() - t0) / 1000
      const stored = await countOf(t.app.db.knex('aaa_log_tacacs_authz').where({ node_id: nodeId }))
      expect(stored).to.equal(N - N / 10)
      console.log(`      ingestion: ${N} lines in ${s.toFixed(2)} s = ${Math.round(N / s)} lines/s (PostgreSQL, 10% excluded; parse+exclude ${Math.round(big.core.stats.parseMs)} ms, database ${Math.round(big.core.stats.dbMs)} ms)`)
    })
  })
})
