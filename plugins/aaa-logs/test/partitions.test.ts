/** Monthly partitions are created ahead, rows land in them, and a month with rows in DEFAULT is left alone. */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { startTestApp, silentLogger, type TestApp } from '../../../test/kit/app.js'
import { ensureMonthlyPartitions } from '../ingest/partitions.js'

describe('aaa-logs: monthly partitions', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'] })
  })
  after(async () => t?.stop())

  const insert = (ts: string) =>
    t.app.db.knex('aaa_log_tacacs_authz').insert({ timestamp: new Date(ts), username: 'alice', node_id: randomUUID(), source_file: 'f', source_offset: 0, action: 'permit' })
  const partitionOf = async (ts: string) =>
    ((await t.app.db.knex.raw(`SELECT tableoid::regclass::text AS p FROM aaa_log_tacacs_authz WHERE timestamp = ?`, [ts])) as { rows: { p: string }[] }).rows[0].p

  it('creates this month and the next two for every log table, once', async () => {
    const now = new Date(Date.UTC(2031, 10, 15))
    const created = await ensureMonthlyPartitions(t.app.db.knex, silentLogger(), { now })
    expect(created).to.include.members(['aaa_log_tacacs_authz_y2031m11', 'aaa_log_radius_auth_y2032m01'])
    expect(created).to.have.length(15)
    expect(await ensureMonthlyPartitions(t.app.db.knex, silentLogger(), { now })).to.deep.equal([])
    await insert('2031-12-24T10:00:00Z')
    expect(await partitionOf('2031-12-24T10:00:00Z')).to.equal('aaa_log_tacacs_authz_y2031m12')
  })

  it('leaves a month whose rows are already in the default partition there, and loses nothing', async () => {
    await insert('2040-03-02T00:00:00Z')
    expect(await partitionOf('2040-03-02T00:00:00Z')).to.equal('aaa_log_tacacs_authz_default')
    const created = await ensureMonthlyPartitions(t.app.db.knex, silentLogger(), { now: new Date(Date.UTC(2040, 2, 10)), ahead: 0 })
    expect(created).not.to.include('aaa_log_tacacs_authz_y2040m03')
    expect(await partitionOf('2040-03-02T00:00:00Z')).to.equal('aaa_log_tacacs_authz_default')
  })
})
