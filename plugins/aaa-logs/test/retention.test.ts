/**
 * Log retention (`aaa-logs.retention_months`): months wholly past it are
 * dropped as partitions, never the default partition nor a month still partly
 * inside it; old rows of the default partition are deleted in batches; the
 * lists' exact totals (row counts, rollup) stay exact; every removal is
 * audited. Both engines.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { coreServices } from '../../../sdk/index.js'
import { silentLogger, startTestApp, testEngines, type TestApp } from '../../../test/kit/app.js'
import { LOG_TABLE, type LogTable } from '../api.js'
import { applyRetention, monthsBefore, startRetention, type RetentionDeps, type RetentionRun } from '../services/retention.js'

const AUTHZ = LOG_TABLE.tacacs_authorization
const ACCT = LOG_TABLE.tacacs_accounting
const RACCT = LOG_TABLE.radius_accounting
const NOW = new Date('2031-06-15T12:00:00Z') // three months back: 2031-03-15T12:00Z
const NODE = randomUUID()

describe('aaa-logs retention: the cut-off', () => {
  it('goes back calendar months in UTC, the day clamped to the shorter month', () => {
    expect(monthsBefore(NOW, 3).toISOString()).to.equal('2031-03-15T12:00:00.000Z')
    expect(monthsBefore(new Date('2031-03-31T08:00:00Z'), 1).toISOString()).to.equal('2031-02-28T08:00:00.000Z')
    expect(monthsBefore(new Date('2032-03-31T00:00:00Z'), 1).toISOString()).to.equal('2032-02-29T00:00:00.000Z')
    expect(monthsBefore(new Date('2031-01-10T00:00:00Z'), 13).toISOString()).to.equal('2029-12-10T00:00:00.000Z')
  })
})

for (const engine of testEngines()) {
  describe(`aaa-logs retention by partition (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let deps: RetentionDeps
    const knex = () => t.app.db.knex

    const partition = (table: string, name: string, from: string, to: string) => knex().raw(`CREATE TABLE ${table}_${name} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}')`)
    const exists = async (name: string) => ((await knex().raw('SELECT to_regclass(?) AS r', [name])) as { rows: { r: string | null }[] }).rows[0].r !== null
    const rowsOf = async (table: string) => Number(((await knex().raw(`SELECT count(*) AS n FROM ${table}`)) as { rows: { n: number }[] }).rows[0].n)
    const where = async (table: string, ts: string) =>
      ((await knex().raw(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE timestamp = ?`, [ts])) as { rows: { p: string }[] }).rows.map((r) => r.p)

    const insert = (table: string, user: string, stamps: string[]) => {
      const base = { node_id: NODE, source_file: 'retention', source_offset: 0, username: user }
      const own = table === AUTHZ ? { action: 'permit' } : table === ACCT ? { action: 'start' } : { acct_status_type: 'Start' }
      return knex()(table).insert(stamps.map((ts, i) => ({ ...base, ...own, source_offset: i, timestamp: ts })))
    }

    /** The lists' exact totals agree with the rows: the row counts (0003) and the rollup (0004, its node and user dimensions). */
    async function expectTotalsExact(table: LogTable) {
      const n = await rowsOf(table)
      const counted = await knex()('aaa_log_row_counts').where({ table_name: table }).first('n')
      expect(Number(counted?.n), `${table}: aaa_log_row_counts`).to.equal(n)
      const byNode = await knex()('aaa_log_rollup').where({ table_name: table, dim: 'node_id' }).sum({ n: 'n' }).first()
      expect(Number(byNode?.n ?? 0), `${table}: rollup by node`).to.equal(n)
      const users = ((await knex().raw(`SELECT username, count(*) AS n FROM ${table} GROUP BY 1`)) as { rows: { username: string; n: number }[] }).rows
      const rolled = await knex()('aaa_log_rollup').where({ table_name: table, dim: 'username' }).groupBy('val').select('val').sum({ n: 'n' })
      const nonZero = Object.fromEntries(rolled.filter((r) => Number(r.n) !== 0).map((r) => [r.val, Number(r.n)]))
      expect(nonZero, `${table}: rollup by user`).to.deep.equal(Object.fromEntries(users.map((u) => [u.username, Number(u.n)])))
    }

    /**
     * The app's own hourly job (first run a minute after start, real clock) may hold the retention lock at the
     * moment a step here wants it; that step is then skipped, as for another node, and the next run does it.
     * So: run again until nothing is skipped, and report what all the runs did together.
     */
    async function retention(opts: { now: Date; batchSize?: number }): Promise<RetentionRun> {
      const all: RetentionRun = { cutoff: null, dropped: [], deleted: {}, skipped: [] }
      for (let i = 0; ; i++) {
        const run = await applyRetention(deps, opts)
        all.cutoff = run.cutoff
        all.dropped.push(...run.dropped)
        for (const [k, n] of Object.entries(run.deleted) as [LogTable, number][]) all.deleted[k] = (all.deleted[k] ?? 0) + n
        if (!run.skipped.length || i === 5) return { ...all, skipped: run.skipped }
        await new Promise((r) => setTimeout(r, 500))
      }
    }

    before(async () => {
      t = await startTestApp({ engine, plugins: ['aaa-logs'] })
      deps = { ...t.app.resolveDeps('aaa-logs', { database: coreServices.database, settings: coreServices.settings, audit: coreServices.audit }), logger: silentLogger() }
      // Months of 2031 with partitions, January to April, made as the ingester makes them (UTC months).
      for (const m of ['01', '02', '03', '04']) {
        const next = String(Number(m) + 1).padStart(2, '0')
        await partition(AUTHZ, `y2031m${m}`, `2031-${m}-01T00:00:00Z`, `2031-${next}-01T00:00:00Z`)
      }
      await partition(RACCT, 'y2031m01', '2031-01-01T00:00:00Z', '2031-02-01T00:00:00Z')
      // A month whose bounds are not at a UTC midnight (a server in another time zone made it).
      await partition(ACCT, 'y2030m10', '2030-10-01T05:00:00Z', '2030-11-01T05:00:00Z')
      await insert(AUTHZ, 'alice', ['2031-01-05T10:00:00Z', '2031-01-31T23:59:59Z', '2031-02-14T00:00:00Z', '2031-03-02T08:00:00Z', '2031-04-20T08:00:00Z'])
      await insert(AUTHZ, 'bob', ['2031-01-06T10:00:00Z', '2031-03-20T08:00:00Z'])
      // History of months without a partition: the default partition, old and recent.
      await insert(AUTHZ, 'carol', ['2030-06-10T00:00:00Z', '2030-12-01T00:00:00Z', '2031-03-15T11:00:00Z', '2031-05-10T00:00:00Z'])
      await insert(RACCT, 'alice', ['2031-01-02T00:00:00Z', '2031-01-03T00:00:00Z'])
      await insert(ACCT, 'dave', ['2030-10-01T07:00:00Z', '2030-10-15T00:00:00Z', '2030-11-01T02:00:00Z', '2030-11-20T00:00:00Z', '2031-05-01T00:00:00Z'])
      expect(await where(AUTHZ, '2030-06-10T00:00:00Z')).to.deep.equal([`${AUTHZ}_default`])
    })
    after(async () => t?.stop())

    it('keeps everything while aaa-logs.retention_months is 0 (the default)', async () => {
      const before = await rowsOf(AUTHZ)
      const run = await retention({ now: NOW })
      expect(run).to.deep.equal({ cutoff: null, dropped: [], deleted: {}, skipped: [] })
      expect(await rowsOf(AUTHZ)).to.equal(before)
      expect(await exists(`${AUTHZ}_y2031m01`)).to.equal(true)
    })

    it('refuses a retention that is not a whole number of months from 0 to 1200', async () => {
      for (const value of [-1, 1201, 1.5, '3']) {
        const r = await t.admin('PUT', '/api/v1/settings/aaa-logs.retention_months', { body: { value } })
        expect(r.status, JSON.stringify(value)).to.equal(422)
        expect(r.body.field).to.equal('value')
      }
    })

    it('drops the months wholly past the retention, keeps the month it cuts through and the default partition', async () => {
      const set = await t.admin('PUT', '/api/v1/settings/aaa-logs.retention_months', { body: { value: 3 } })
      expect(set.status, set.text).to.equal(200)
      const run = await retention({ now: NOW, batchSize: 1 })
      expect(run.cutoff).to.equal('2031-03-15T12:00:00.000Z')
      expect(run.skipped).to.deep.equal([])
      // (This month's partitions, made by the ingester at start, lie before NOW's cut-off too: empty, dropped alike.)
      const dropped = Object.fromEntries(run.dropped.filter((d) => /_y203[01]m/.test(d.partition)).map((d) => [d.partition, d.rows]))
      expect(dropped).to.deep.equal({ [`${AUTHZ}_y2031m01`]: 3, [`${AUTHZ}_y2031m02`]: 1, [`${RACCT}_y2031m01`]: 2, [`${ACCT}_y2030m10`]: 1 })
      for (const p of Object.keys(dropped)) expect(await exists(p), p).to.equal(false)
      // Still inside the retention, if only in part: kept whole, its rows before the cut-off too.
      expect(await exists(`${AUTHZ}_y2031m03`)).to.equal(true)
      expect(await where(AUTHZ, '2031-03-02T08:00:00Z')).to.deep.equal([`${AUTHZ}_y2031m03`])
      // The default partition stays; its rows older than the cut-off are gone, batch by batch.
      for (const table of [AUTHZ, ACCT, RACCT]) expect(await exists(`${table}_default`)).to.equal(true)
      expect(await where(AUTHZ, '2030-06-10T00:00:00Z')).to.deep.equal([])
      expect(await where(AUTHZ, '2030-12-01T00:00:00Z')).to.deep.equal([])
      expect(await where(AUTHZ, '2031-03-15T11:00:00Z')).to.deep.equal([`${AUTHZ}_y2031m03`])
      expect(await where(AUTHZ, '2031-05-10T00:00:00Z')).to.deep.equal([`${AUTHZ}_default`])
      // The unaligned month: its partial edge days went through the triggers, the rest with the partition.
      expect(await where(ACCT, '2031-05-01T00:00:00Z')).to.deep.equal([`${ACCT}_default`])
      expect(await rowsOf(ACCT)).to.equal(1)
      expect(run.deleted).to.deep.equal({ [AUTHZ]: 2, [ACCT]: 3 })
      expect(await rowsOf(AUTHZ)).to.equal(5)
    })

    it('leaves the lists\' exact totals exact', async () => {
      for (const table of [AUTHZ, ACCT, RACCT]) await expectTotalsExact(table)
      const list = await t.admin('GET', '/api/v1/aaa/logs/tacacs/authorization?username=alice')
      expect(list.body).to.include({ total: 5, total_by_filter: 2, total_by_filter_capped: false })
      expect(list.body.items.map((i: { timestamp: string }) => i.timestamp)).to.deep.equal(['2031-04-20T08:00:00.000Z', '2031-03-02T08:00:00.000Z'])
      const rl = await t.admin('GET', '/api/v1/aaa/logs/radius/accounting')
      expect(rl.body).to.include({ total: 0, total_by_filter: 0 })
    })

    it('audits each dropped partition and each batch deleted, as the platform', async () => {
      const rows = await knex()('audit_log').where({ resource_type: 'aaa_log_partition' }).orderBy('at').select('action', 'resource_id', 'actor_id', 'before')
      const drops = rows.filter((r) => r.action === 'aaa_log_partition.drop' && /_y203[01]m/.test(String(r.resource_id)))
      expect(drops.map((r) => r.resource_id).sort()).to.deep.equal([`${ACCT}_y2030m10`, `${AUTHZ}_y2031m01`, `${AUTHZ}_y2031m02`, `${RACCT}_y2031m01`].sort())
      const jan = drops.find((r) => r.resource_id === `${AUTHZ}_y2031m01`)
      const before = typeof jan!.before === 'string' ? JSON.parse(jan!.before) : jan!.before
      expect(before).to.deep.include({ table: AUTHZ, from: '2031-01-01T00:00:00.000Z', to: '2031-02-01T00:00:00.000Z', rows: 3 })
      expect(rows.every((r) => r.actor_id === null)).to.equal(true)
      const deletes = rows.filter((r) => r.action === 'aaa_log_rows.delete')
      // batchSize 1: one entry per row deleted (two from AUTHZ's default, two at ACCT's edges and one from its default).
      expect(deletes).to.have.length(5)
    })

    it('runs by itself on a primary node only', async () => {
      // A month long past by the real clock (the setting is still 3 months).
      await partition(AUTHZ, 'y2024m01', '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z')
      const onReplica = startRetention({ ...deps, cluster: { nodeId: NODE, role: 'replica' } }, 20)
      await new Promise((r) => setTimeout(r, 300))
      await onReplica()
      expect(await exists(`${AUTHZ}_y2024m01`), 'a replica node ran the retention').to.equal(true)
      const onPrimary = startRetention({ ...deps, cluster: { nodeId: NODE, role: 'primary' } }, 20)
      try {
        for (let i = 0; i < 100 && (await exists(`${AUTHZ}_y2024m01`)); i++) await new Promise((r) => setTimeout(r, 100))
      } finally {
        await onPrimary()
      }
      expect(await exists(`${AUTHZ}_y2024m01`), 'the primary did not run it').to.equal(false)
    })

    it('does nothing more on the next run', async () => {
      const run = await retention({ now: NOW })
      expect(run).to.deep.include({ dropped: [], deleted: {}, skipped: [] })
      expect(await rowsOf(AUTHZ)).to.equal(5)
    })
  })
}
