/**
 * The embedded engine (PGlite, no DATABASE_URL), the out-of-the-box setup:
 * a smaller suite than on PostgreSQL, about what only this setup does — its
 * data, schema, node id and master key live in DATA_DIR and survive a restart.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Knex } from 'knex'
import { startApp } from '../../kernel/app.js'
import { loadConfig } from '../../kernel/config.js'
import { listMigrationFiles } from '../../kernel/db/migrate.js'
import { silentLogger, startTestApp, type TestApp, runsOn } from '../kit/app.js'
import { request } from '../kit/http.js'
import { scratchFolder } from '../kit/scratch.js'

const GREETINGS = './examples/greetings-plugin'
// The kernel's head moves as kernel migrations are added; the test pins the mechanism, not a file name.
const kernelHead = listMigrationFiles(path.resolve('migrations')).at(-1)

async function migrationRows(knex: Knex) {
  return {
    kernel: (await knex('knex_migrations').orderBy('id').select('id', 'name', 'migration_time')) as unknown[],
    greetings: (await knex('knex_migrations_greetings').orderBy('id').select('id', 'name', 'migration_time')) as unknown[],
  }
}

// Embedded only: skipped (pending) in the PostgreSQL run of `npm test`, where it would repeat the embedded run's.
;(runsOn('embedded') ? describe : describe.skip)('embedded engine (PGlite)', function () {
  // PGlite's first start in a folder takes seconds (initdb in WebAssembly).
  this.timeout(60_000)

  describe('restart on the same data folder', () => {
    let dataDir: string
    let t: TestApp | undefined

    before(() => {
      dataDir = scratchFolder('portcullis-embedded-')
    })
    after(async () => {
      await t?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    let masterKey: string
    let nodeId: string
    let greetingId: string
    let rowsBefore: Awaited<ReturnType<typeof migrationRows>>

    it('starts healthy with the database and the master key', async () => {
      t = await startTestApp({ engine: 'embedded', plugins: [GREETINGS], dataDir })
      masterKey = t.masterKey
      expect(t.databaseUrl).to.equal(null)
      const live = await t.req('GET', '/healthz')
      expect(live.status).to.equal(200)
      expect(live.body).to.deep.equal({ status: 'ok' })
      const ready = await t.req('GET', '/ready')
      expect(ready.status, ready.text).to.equal(200)
      expect(ready.body).to.include({ status: 'healthy' })
      expect(ready.body.checks).to.deep.equal({ database: 'ok', master_key: 'loaded' })
    })

    it('reports the embedded engine and the applied schema in system info', async () => {
      const info = await t!.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.status, info.text).to.equal(200)
      expect(info.body).to.include({ database_engine: 'embedded', role: 'primary' })
      expect(info.body.schema_revision).to.deep.equal({ kernel: kernelHead, greetings: '0001_greetings' })
      expect(info.body.plugins).to.deep.include({ id: 'greetings', version: '1.0.0' })
      nodeId = info.body.node_id
      expect(nodeId).to.equal(readFileSync(path.join(dataDir, 'node_id'), 'utf8').trim())
      rowsBefore = await migrationRows(t!.app.db.knex)
      expect(rowsBefore.kernel.map((r) => (r as { name: string }).name)).to.include('0001_kernel')
      expect(rowsBefore.greetings.map((r) => (r as { name: string }).name)).to.deep.equal(['0001_greetings'])
    })

    it('stores a greeting', async () => {
      const created = await t!.admin('POST', '/api/v1/greetings', { body: { name: 'embedded', message: 'Hello' } })
      expect(created.status, created.text).to.equal(201)
      expect(created.body).to.include({ name: 'embedded', message: 'Hello' })
      greetingId = created.body.id
    })

    it('keeps data, schema and node id across a restart with the same master key', async () => {
      await t!.stop()
      t = undefined
      t = await startTestApp({ engine: 'embedded', plugins: [GREETINGS], dataDir, masterKey })

      const got = await t.admin('GET', `/api/v1/greetings/${greetingId}`)
      expect(got.status, got.text).to.equal(200)
      expect(got.body).to.include({ id: greetingId, name: 'embedded' })
      expect(got.body.message).to.match(/^Hello/)

      // Same ids, names and timestamps: nothing re-ran, nothing was re-recorded.
      expect(await migrationRows(t.app.db.knex)).to.deep.equal(rowsBefore)

      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.body.node_id).to.equal(nodeId)
      expect(info.body.node_id).to.equal(readFileSync(path.join(dataDir, 'node_id'), 'utf8').trim())
      expect(info.body.schema_revision).to.deep.equal({ kernel: kernelHead, greetings: '0001_greetings' })
      expect((await t.req('GET', '/ready')).body.checks).to.deep.equal({ database: 'ok', master_key: 'loaded' })
    })
  })

  describe('first start without MASTER_KEY', () => {
    let dir: string
    before(() => {
      dir = scratchFolder('portcullis-embedded-key-')
    })
    after(() => rmSync(dir, { recursive: true, force: true }))

    it('generates <DATA_DIR>/master.key readable by the owner only, and uses it', async () => {
      const app = await startApp(loadConfig({ PORT: '0', DATA_DIR: dir, PLUGINS: '' }), { log: silentLogger() })
      try {
        const file = path.join(dir, 'master.key')
        expect(statSync(file).mode & 0o777).to.equal(0o600)
        expect(readFileSync(file, 'utf8').trim()).to.match(/^[0-9a-f]{64}$/)
        expect(app.tokens, 'tokens are signed with the generated key').to.not.equal(null)
        const ready = await request(app.url, 'GET', '/ready')
        expect(ready.status, ready.text).to.equal(200)
        expect(ready.body.checks).to.deep.equal({ database: 'ok', master_key: 'loaded' })
      } finally {
        await app.stop()
      }
    })
  })
})
