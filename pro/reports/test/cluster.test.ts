/**
 * Two primary nodes on one PostgreSQL database (a cluster during a failover, or a mistake): each
 * scheduled occurrence is run by one of them, never both.
 */
import { expect } from 'chai'
import { startTestApp, runsOn, type TestApp } from '../../../test/kit/app.js'
import type { Definition } from '../schemas.js'
import { schedulerTiming } from '../services/scheduler.js'
import { addEvents, body, waitFor, PLUGINS } from './kit.js'

;(runsOn('postgres') ? describe : describe.skip)('reports: two nodes on one database (postgres)', function () {
  this.timeout(120_000)
  let a: TestApp
  let b: TestApp
  const saved = { ...schedulerTiming }

  before(async () => {
    schedulerTiming.pollMs = 50
    a = await startTestApp({ engine: 'postgres', plugins: PLUGINS })
    b = await startTestApp({ databaseUrl: a.databaseUrl!, masterKey: a.masterKey, plugins: PLUGINS })
    await addEvents(a, 3)
  })
  after(async () => {
    await b?.stop()
    await a?.stop()
    Object.assign(schedulerTiming, saved)
  })

  it('runs each due occurrence on one node only', async () => {
    const ids: string[] = []
    for (let i = 0; i < 8; i++) {
      const d = await a.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body({ schedule: { cron: `${i} * * * *`, time_zone: 'UTC' } }) })
      expect(d.status, JSON.stringify(d.body)).to.equal(201)
      ids.push(d.body.id)
    }
    const knex = a.app.db.knex
    // Both nodes find all of them due at the same poll.
    await knex('reports_definitions').whereIn('id', ids).update({ next_run_at: new Date(Date.now() - 60_000) })
    await waitFor('every occurrence to be run', async () => {
      const done = await knex('reports_runs').whereIn('definition_id', ids).whereIn('state', ['done', 'failed']).count({ n: '*' }).first()
      return Number((done as { n: string }).n) >= ids.length
    })
    // More polls on both nodes.
    await new Promise((r) => setTimeout(r, 1000))
    const runs = (await knex('reports_runs').whereIn('definition_id', ids).select('definition_id', 'state', 'node_id')) as { definition_id: string; state: string; node_id: string }[]
    expect(runs).to.have.length(ids.length)
    expect(new Set(runs.map((r) => r.definition_id)).size).to.equal(ids.length)
    expect(runs.every((r) => r.state === 'done'), JSON.stringify(runs)).to.equal(true)
  })
})
