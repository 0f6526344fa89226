/**
 * The scheduler's side of the core against the real database (one app, inventory + ncm): the
 * backoff after failed fetches, the long poll's reconciliation picking up inventory changes, the
 * fetch log kept for `ncm.fetch_log_days`, and the device list's search over inventory names.
 * The reconcile normally runs at most every 30 s per node; these tests set its pace to 0
 * (reconcilePace, a seam the API does not reach) instead of sleeping.
 */
import { expect } from 'chai'
import type { CollectorJob, FetchResult } from '../../../sdk/collector-protocol.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { enrollCollector, takeJob, TestCollector, trackDevice } from '../../../test/kit/ncm-collector.js'
import { reconcilePace } from '../services/reconcile.js'

describe('ncm: scheduling (backoff, reconciliation, fetch log, device search)', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  const pace = reconcilePace.everyMs
  const must = async (p: Promise<{ status: number; body: any; text: string }>, status: number) => {
    const r = await p
    expect(r.status, r.text).to.equal(status)
    return r.body
  }
  const device = (id: string) => must(t.admin('GET', `/api/v1/ncm/devices/${id}`), 200)
  const failed = (jobId: string, status: FetchResult['status']): FetchResult => {
    const now = Date.now()
    return { job_id: jobId, status, started_at: new Date(now - 1000).toISOString(), finished_at: new Date(now).toISOString(), host_key_sha256: null, detail: `${status} in the test` }
  }
  /** Uploads `result` and answers the window [before, after] in which the core computed next_due. */
  const upload = async (result: FetchResult) => {
    const before = Date.now()
    const r = await col.upload(result)
    expect(r.status, r.text).to.equal(200)
    return { before, after: Date.now() }
  }
  const dueIn = (nextDue: string, w: { before: number; after: number }, minutes: number) => {
    const at = Date.parse(nextDue)
    expect(at, `next_due_at ${nextDue}, expected ${minutes} min later`).to.be.within(w.before + minutes * 60_000 - 1000, w.after + minutes * 60_000 + 1000)
  }
  /** One poll without waiting: reconciles (pace 0) and leases what is due. */
  const poll = async () => (await must(col.jobs(), 200)).jobs as { device_id: string }[]

  before(async () => {
    reconcilePace.everyMs = 0
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    col = await enrollCollector(t, 'sched')
  })
  after(async () => {
    reconcilePace.everyMs = pace
    await t?.stop()
  })

  it('backs off after failed fetches (5, 10 … minutes, never beyond the interval), counting them until a success resets it', async () => {
    const dev = await trackDevice(t, col, { address: '192.0.2.10' })
    let w = await upload(failed((await takeJob(t, col, dev.deviceId)).job_id, 'timeout'))
    let d = await device(dev.deviceId)
    expect(d).to.include({ consecutive_failures: 1, last_status: 'timeout' })
    dueIn(d.next_due_at, w, 5)
    w = await upload(failed((await takeJob(t, col, dev.deviceId)).job_id, 'connect_failed'))
    d = await device(dev.deviceId)
    expect(d).to.include({ consecutive_failures: 2, last_status: 'connect_failed' })
    dueIn(d.next_due_at, w, 10)
    // The third failure would wait 20 minutes; the schedule's 15 caps it.
    await must(t.admin('PATCH', `/api/v1/ncm/schedules/${dev.scheduleId}`, { body: { interval_minutes: 15 } }), 200)
    w = await upload(failed((await takeJob(t, col, dev.deviceId)).job_id, 'auth_failed'))
    d = await device(dev.deviceId)
    expect(d).to.include({ consecutive_failures: 3, last_status: 'auth_failed' })
    dueIn(d.next_due_at, w, 15)
    // The list shows the same count.
    const listed = await must(t.admin('GET', `/api/v1/ncm/devices?search=192.0.2.10`), 200)
    expect(listed.items.map((i: { device_id: string; consecutive_failures: number }) => [i.device_id, i.consecutive_failures])).to.deep.equal([[dev.deviceId, 3]])
    w = await upload(TestCollector.ok(await takeJob(t, col, dev.deviceId), 'hostname backoff\n'))
    d = await device(dev.deviceId)
    expect(d).to.include({ consecutive_failures: 0, last_status: 'ok', last_error: null })
    dueIn(d.next_due_at, w, 15)
    // A failure after the success starts again at 5 minutes.
    w = await upload(failed((await takeJob(t, col, dev.deviceId)).job_id, 'timeout'))
    d = await device(dev.deviceId)
    expect(d.consecutive_failures).to.equal(1)
    dueIn(d.next_due_at, w, 5)
  })

  it('picks up inventory changes at the next poll: a device added to a scheduled group is tracked, one moved out or disabled is offered no more jobs', async () => {
    const a = await trackDevice(t, col, { address: '192.0.2.20' })
    await takeJob(t, col, a.deviceId) // a poll has reconciled just now
    const b = await must(t.admin('POST', '/api/v1/devices', { body: { name: 'sched-added', address: '192.0.2.21', device_group_id: a.groupId } }), 201)
    const c = await must(t.admin('POST', '/api/v1/devices', { body: { name: 'sched-disabled', address: '192.0.2.22', device_group_id: a.groupId } }), 201)
    // Nothing but a reconcile writes the inventory's new devices into ncm.
    expect((await t.admin('GET', `/api/v1/ncm/devices/${b.id}`)).status).to.equal(404)
    await poll()
    expect(await device(b.id)).to.include({ schedule_id: a.scheduleId, collector_id: col.id })
    expect(await device(c.id)).to.include({ schedule_id: a.scheduleId, collector_id: col.id })
    await must(t.admin('POST', `/api/v1/ncm/devices/${b.id}/fetch`), 202)
    const jobs = (await must(col.jobs(), 200)).jobs as CollectorJob[]
    expect(jobs.map((j) => j.device_id)).to.include(b.id)
    // Answered, so no lease is left to hide what follows (c too, when its first fetch fell due already).
    for (const j of jobs) await upload(TestCollector.ok(j, 'hostname added\n'))

    // Moved out of every scheduled group, and disabled in the inventory: due, yet offered to nobody.
    const elsewhere = await must(t.admin('POST', '/api/v1/device-groups', { body: { name: 'sched-unscheduled' } }), 201)
    await must(t.admin('PUT', `/api/v1/devices/${b.id}`, { body: { device_group_id: elsewhere.id } }), 200)
    await must(t.admin('PUT', `/api/v1/devices/${c.id}`, { body: { enabled: false } }), 200)
    await must(t.admin('POST', `/api/v1/ncm/devices/${b.id}/fetch`), 202)
    await must(t.admin('POST', `/api/v1/ncm/devices/${c.id}/fetch`), 202)
    const offered = (await poll()).map((j) => j.device_id)
    expect(offered).to.not.include(b.id).and.not.include(c.id)
    expect(await device(b.id)).to.include({ schedule_id: null, collector_id: null })
    expect(await device(c.id)).to.include({ schedule_id: a.scheduleId, collector_id: null })
  })

  it('keeps the fetch log for ncm.fetch_log_days: older finished rows go at the next poll, a leased job stays', async () => {
    const dev = await trackDevice(t, col, { address: '192.0.2.30' })
    const fetchIds = async () => (await must(t.admin('GET', `/api/v1/ncm/devices/${dev.deviceId}/fetches?per_page=100`), 200)).items.map((f: { id: string }) => f.id).sort()
    const old = await takeJob(t, col, dev.deviceId)
    await upload(failed(old.job_id, 'timeout'))
    const recent = await takeJob(t, col, dev.deviceId)
    await upload(TestCollector.ok(recent, 'hostname log\n'))
    const leased = await takeJob(t, col, dev.deviceId)
    await must(t.admin('PUT', '/api/v1/settings/ncm.fetch_log_days', { body: { value: 2 } }), 200)
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000)
    const knex = t.app.db.knex
    await knex('ncm_fetches').where({ id: old.job_id }).update({ leased_at: ago(3) })
    await knex('ncm_fetches').where({ id: recent.job_id }).update({ leased_at: ago(1) })
    await knex('ncm_fetches').where({ id: leased.job_id }).update({ leased_at: ago(5) })
    expect(await fetchIds()).to.deep.equal([old.job_id, recent.job_id, leased.job_id].sort())
    await poll()
    expect(await fetchIds()).to.deep.equal([recent.job_id, leased.job_id].sort())
  })

  it('finds devices in the list by their inventory name and address too, not only by host and status', async () => {
    const dev = await trackDevice(t, col, { address: '192.0.2.40', name: 'Edge-Router-Lisbon' })
    await trackDevice(t, col, { address: '192.0.2.41', name: 'edge-router-porto' })
    const ids = async (search: string) => (await must(t.admin('GET', `/api/v1/ncm/devices?search=${encodeURIComponent(search)}`), 200)).items.map((i: { device_id: string }) => i.device_id)
    expect(await ids('router-lisbon')).to.deep.equal([dev.deviceId])
    expect(await ids('EDGE-ROUTER')).to.have.length(2)
    expect(await ids('192.0.2.40')).to.deep.equal([dev.deviceId])
    expect(await ids('lisbon_')).to.deep.equal([]) // a LIKE wildcard is plain text
    const page = await must(t.admin('GET', `/api/v1/ncm/devices?search=lisbon`), 200)
    expect(page.total_by_filter).to.equal(1)
    expect(page.items[0].name).to.equal('Edge-Router-Lisbon')
  })
})
