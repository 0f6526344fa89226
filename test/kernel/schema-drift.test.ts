/**
 * A plugin's `tables` (and the kernel's) are its code's idea of the database:
 * the server refuses to start when they disagree with the migrated tables,
 * naming every difference (SCHEMA_DRIFT), and when two owners declare one
 * table (PLUGIN_INVALID, before the database is touched). A correct
 * declaration boots and types the plugin's queries.
 */
import { expect } from 'chai'
import knexPkg from 'knex'
import { bootRefusal, runsOn, startTestApp, testEngines, type TestEngine } from '../kit/app.js'
import { sharedPostgres } from '../kit/shared.js'

const F = './test/fixtures/plugins/schema-drift'


for (const engine of testEngines()) {
  describe(`schema drift (${engine})`, () => {
    const start = (plugin: string, e: TestEngine = engine) => ({ engine: e, plugins: [`${F}/${plugin}`] })

    it('refuses a declaration that differs from the migrated table, naming every difference (SCHEMA_DRIFT)', async () => {
      const e = await bootRefusal(start('drifted'))
      expect(e.code).to.equal('SCHEMA_DRIFT')
      expect(e.toString()).to.match(/^\[SCHEMA_DRIFT\] /)
      expect(e.message).to.include('drift_probe.colour: column missing')
      expect(e.message).to.include('drift_probe.hits: type is integer, declared bigint')
      expect(e.message).to.include('drift_probe.note: nullable, declared not null')
      expect(e.message).to.include('drift_probe.name: not null, declared nullable')
      expect(e.message).to.include('drift_probe_gone: table missing')
      // Only the differences: the columns declared as they are go unnamed.
      expect(e.message).to.not.match(/drift_probe\.(id|created_at)/)
    })

    it('refuses a plugin that declares one table twice (PLUGIN_INVALID)', async () => {
      const e = await bootRefusal(start('twice'))
      expect(e.code).to.equal('PLUGIN_INVALID')
      expect(e.message).to.equal('drift-probe declares table drift_probe twice')
    })

    it('refuses a plugin that declares a table the kernel owns (PLUGIN_INVALID naming both owners)', async () => {
      const e = await bootRefusal(start('claims-users'))
      expect(e.code).to.equal('PLUGIN_INVALID')
      expect(e.message).to.equal('table users is declared by both kernel and drift-claims: a table has one owner')
    })

    it('boots with a declaration that matches, and its queries read and write the table', async () => {
      const t = await startTestApp(start('correct'))
      try {
        const knex = t.app.db.knex
        const [{ id }] = await knex('drift_probe').insert({ name: 'edge-1' }).returning('id')
        const row = await knex('drift_probe').where({ id }).first()
        expect(row).to.include({ id, name: 'edge-1', note: null, hits: 0 })
        expect(row?.created_at).to.be.instanceOf(Date)
      } finally {
        await t.stop()
      }
    })
  })
}

// Looks at the database a refused boot leaves, by its URL: PostgreSQL.
;(runsOn('postgres') ? describe : describe.skip)('schema drift: a table declared twice', () => {
  it('is refused before any migration runs', async () => {
    const url = await (await sharedPostgres()).createDatabase()
    const e = await bootRefusal({ databaseUrl: url, plugins: [`${F}/twice`] })
    expect(e.code).to.equal('PLUGIN_INVALID')
    const db = knexPkg({ client: 'pg', connection: url })
    try {
      const r = (await db.raw(`select to_regclass('drift_probe') as t, to_regclass('users') as u`)) as { rows: { t: string | null; u: string | null }[] }
      expect(r.rows[0]).to.deep.equal({ t: null, u: null })
    } finally {
      await db.destroy()
    }
  })
})
