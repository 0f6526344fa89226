/**
 * The reports plugin over fixture sources (test/fixture): definitions and their checks, who may
 * see and run what, a run end to end (files, download, mail through a real SMTP listener), the
 * row limit, schedules (due, missed, an inactive owner), retention.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { createServer, type AddressInfo } from 'node:net'
import { defaultEngine, runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import type { Definition, Run } from '../schemas.js'
import { schedulerTiming } from '../services/scheduler.js'
import { addEvents, body, EVENTS, finished, setPermissions, SECRETS, SLOW, user, waitFor, PLUGINS, type Problem } from './kit.js'

interface Page<T> {
  items: T[]
  total: number
}

describe(`reports: definitions, runs, schedules (${defaultEngine()})`, function () {
  this.timeout(120_000)
  let t: TestApp
  let smtp: TestSmtp
  const saved = { ...schedulerTiming }

  before(async () => {
    smtp = await startSmtp()
    schedulerTiming.pollMs = 200
    schedulerTiming.pruneEveryMs = 0
    t = await startTestApp({ plugins: PLUGINS, settings: { 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none' } })
    await addEvents(t, 5)
    await addEvents(t, 2, { kind: 'secret' })
  })
  after(async () => {
    await t?.stop()
    await smtp?.stop()
    Object.assign(schedulerTiming, saved)
  })

  const runsOf = async (definitionId: string) => (await t.admin<Page<Run>>('GET', `/api/v1/reports/runs?definition_id=${definitionId}&per_page=100`)).body.items

  it('lists only the sources the caller may read, in the caller\'s language', async () => {
    const reader = await user(t, ['reports.read', 'report-fixture.read'])
    const mine = await t.req<{ items: { id: string; title: string; filters: string[] }[] }>('GET', '/api/v1/reports/sources', { token: reader.token, headers: { 'accept-language': 'ru' } })
    expect(mine.body.items[0]).to.deep.equal({ id: EVENTS, title: 'Тестовые события', description: 'Строки тестовой таблицы.', filters: ['device_group', 'user_group'] })
    expect(mine.body.items.map((s) => s.id)).to.deep.equal([EVENTS, SLOW])
    const all = await t.admin<{ items: { id: string }[] }>('GET', '/api/v1/reports/sources')
    expect(all.body.items.map((s) => s.id)).to.deep.equal(['kernel.audit', EVENTS, SECRETS, SLOW])
  })

  it('creates, reads, lists, changes and deletes a definition, storing hostile text verbatim', async () => {
    const writer = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const name = '<script>alert(1)</script> & "Q3" \'x\''
    const c = await t.req<Definition>('POST', '/api/v1/reports/definitions', {
      token: writer.token,
      body: body({ name, description: '<img src=x onerror=alert(1)>', formats: ['pdf', 'xlsx'], schedule: { cron: '0 7 * * 1', time_zone: 'Europe/Berlin' }, recipients: ['ops@example.test'] }),
    })
    expect(c.status, JSON.stringify(c.body)).to.equal(201)
    expect(c.body).to.include({ name, description: '<img src=x onerror=alert(1)>', owner_id: writer.id, time_zone: 'Europe/Berlin', language: 'en' })
    expect(c.body.schedule).to.deep.equal({ cron: '0 7 * * 1', time_zone: 'Europe/Berlin' })
    // Monday 07:00 in Berlin is 05:00 or 06:00 UTC, in the future.
    expect(new Date(c.body.next_run_at!).getTime()).to.be.greaterThan(Date.now())
    expect([5, 6]).to.include(new Date(c.body.next_run_at!).getUTCHours())
    expect(new Date(c.body.next_run_at!).getUTCDay()).to.equal(1)
    const got = await t.req<Definition>('GET', `/api/v1/reports/definitions/${c.body.id}`, { token: writer.token })
    expect(got.body).to.deep.equal(c.body)
    const dup = await t.req<Problem>('POST', '/api/v1/reports/definitions', { token: writer.token, body: body({ name: name.toUpperCase() }), headers: { 'accept-language': 'ru' } })
    expect(dup.status).to.equal(409)
    expect(dup.body).to.deep.include({ code: 'REPORT_NAME_TAKEN', field: 'name' })
    expect(dup.body.detail).to.match(/^Отчёт с именем/)
    const list = await t.req<Page<Definition>>('GET', `/api/v1/reports/definitions?search=${encodeURIComponent('<script>')}`, { token: writer.token })
    expect(list.body.items.map((d) => d.id)).to.deep.equal([c.body.id])
    const p = await t.req<Definition>('PATCH', `/api/v1/reports/definitions/${c.body.id}`, { token: writer.token, body: { schedule: null, time_range: { relative: 'custom', from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } } })
    expect(p.status, JSON.stringify(p.body)).to.equal(200)
    expect(p.body).to.include({ schedule: null, next_run_at: null, name })
    expect(p.body.time_range).to.deep.equal({ relative: 'custom', from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z' })
    expect((await t.req('DELETE', `/api/v1/reports/definitions/${c.body.id}`, { token: writer.token })).status).to.equal(204)
    expect((await t.req('GET', `/api/v1/reports/definitions/${c.body.id}`, { token: writer.token })).status).to.equal(404)
  })

  it('refuses bad definitions with a coded 422 at the field, and stores nothing', async () => {
    const writer = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const knex = t.app.db.knex
    const [deviceGroup] = await knex('inventory_device_groups').insert({ name: `dg-${randomUUID().slice(0, 6)}` }).returning('id')
    const year = (y: number) => `${y}-01-01T00:00:00Z`
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['an unknown source', { sources: [EVENTS, 'report-fixture.nope'] }, 'REPORT_SOURCE_UNKNOWN', 'sources[1]'],
      ['a source the caller may not read', { sources: [SECRETS] }, 'REPORT_SOURCE_UNKNOWN', 'sources[0]'],
      ['a range of ten years', { time_range: { relative: 'custom', from: year(2016), to: year(2026) } }, 'REPORT_RANGE_TOO_LONG', 'time_range.to'],
      ['a reversed range', { time_range: { relative: 'custom', from: year(2026), to: year(2025) } }, 'REPORT_RANGE_REVERSED', 'time_range.to'],
      ['a custom range without its end', { time_range: { relative: 'custom', from: year(2026) } }, 'REPORT_RANGE_INCOMPLETE', 'time_range.to'],
      ['bounds on a relative range', { time_range: { relative: 'last_7d', from: year(2026) } }, 'REPORT_RANGE_INCOMPLETE', 'time_range.from'],
      ['a schedule every second', { schedule: { cron: '* * * * * *', time_zone: 'UTC' } }, 'REPORT_CRON_SECONDS', 'schedule.cron'],
      ['a schedule every five minutes', { schedule: { cron: '*/5 * * * *', time_zone: 'UTC' } }, 'REPORT_CRON_TOO_OFTEN', 'schedule.cron'],
      ['a schedule twice an hour', { schedule: { cron: '0,30 9 * * *', time_zone: 'UTC' } }, 'REPORT_CRON_TOO_OFTEN', 'schedule.cron'],
      ['a schedule every minute of one hour', { schedule: { cron: '* 9 * * 1', time_zone: 'UTC' } }, 'REPORT_CRON_TOO_OFTEN', 'schedule.cron'],
      ['a schedule that is no cron', { schedule: { cron: 'every monday', time_zone: 'UTC' } }, 'REPORT_CRON_INVALID', 'schedule.cron'],
      ['a schedule that never fires', { schedule: { cron: '0 0 31 2 *', time_zone: 'UTC' } }, 'REPORT_CRON_INVALID', 'schedule.cron'],
      ['an unknown time zone', { schedule: { cron: '0 7 * * *', time_zone: 'Mars/Olympus' } }, 'REPORT_TIME_ZONE_UNKNOWN', 'schedule.time_zone'],
      ['a time zone by offset', { time_zone: '+03:00' }, 'REPORT_TIME_ZONE_UNKNOWN', 'time_zone'],
      ['a device group that does not exist', { device_group_id: randomUUID() }, 'REPORT_GROUP_UNKNOWN', 'device_group_id'],
      ['a user group that does not exist', { user_group_id: randomUUID() }, 'REPORT_GROUP_UNKNOWN', 'user_group_id'],
      ['a bad e-mail', { recipients: ['ops@example.test', 'not an address'] }, 'VALIDATION_FAILED', 'recipients[1]'],
      ['too many recipients', { recipients: Array.from({ length: 21 }, (_, i) => `u${i}@example.test`) }, 'VALIDATION_FAILED', 'recipients'],
      ['too many sources', { sources: Array.from({ length: 11 }, (_, i) => `report-fixture.s${i}`) }, 'VALIDATION_FAILED', 'sources'],
      ['a name with a line break', { name: 'a\nb' }, 'VALIDATION_FAILED', 'name'],
    ]
    const before = await knex('reports_definitions').count({ n: '*' }).first()
    for (const [why, o, code, field] of cases) {
      const r = await t.req<Problem>('POST', '/api/v1/reports/definitions', { token: writer.token, body: body(o) })
      expect(r.status, why).to.equal(422)
      expect(r.body, why).to.deep.include({ code, field })
      expect(r.body.detail, why).to.be.a('string').and.not.equal('')
    }
    // A hidden source reads exactly like one that does not exist.
    const hidden = await t.req<Problem>('POST', '/api/v1/reports/definitions', { token: writer.token, body: body({ sources: [SECRETS] }) })
    const unknown = await t.req<Problem>('POST', '/api/v1/reports/definitions', { token: writer.token, body: body({ sources: ['report-fixture.nope'] }) })
    expect(hidden.body.detail.replace(SECRETS, 'X')).to.equal(unknown.body.detail.replace('report-fixture.nope', 'X'))
    // The secrets source takes no device group: said at the group.
    const filter = await t.admin<Problem>('POST', '/api/v1/reports/definitions', { body: body({ sources: [EVENTS, SECRETS], device_group_id: deviceGroup.id }) })
    expect(filter.body).to.deep.include({ code: 'REPORT_FILTER_UNSUPPORTED', field: 'device_group_id' })
    expect(await knex('reports_definitions').count({ n: '*' }).first()).to.deep.equal(before)
    // PATCH is held to the same checks.
    const ok = await t.req<Definition>('POST', '/api/v1/reports/definitions', { token: writer.token, body: body({ device_group_id: deviceGroup.id }) })
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201)
    const bad = await t.req<Problem>('PATCH', `/api/v1/reports/definitions/${ok.body.id}`, { token: writer.token, body: { schedule: { cron: '* * * * *', time_zone: 'UTC' } } })
    expect(bad.body).to.deep.include({ code: 'REPORT_CRON_TOO_OFTEN', field: 'schedule.cron' })
    // The group is in use: the inventory refuses to delete it.
    const del = await t.admin<Problem>('DELETE', `/api/v1/device-groups/${deviceGroup.id}`)
    expect(del.status).to.equal(409)
  })

  it('hides definitions, runs and files over a source the caller may not read', async () => {
    const reader = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const secret = await t.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body({ sources: [EVENTS, SECRETS], formats: ['html'] }) })
    const run = await t.admin<Run>('POST', `/api/v1/reports/definitions/${secret.body.id}/runs`)
    expect(run.status).to.equal(202)
    const done = await finished(t, run.body.id)
    expect(done.state, JSON.stringify(done)).to.equal('done')
    const list = await t.req<Page<Definition>>('GET', '/api/v1/reports/definitions?per_page=100', { token: reader.token })
    expect(list.body.items.map((d) => d.id)).to.not.include(secret.body.id)
    for (const [method, path] of [
      ['GET', `/api/v1/reports/definitions/${secret.body.id}`],
      ['PATCH', `/api/v1/reports/definitions/${secret.body.id}`],
      ['DELETE', `/api/v1/reports/definitions/${secret.body.id}`],
      ['POST', `/api/v1/reports/definitions/${secret.body.id}/runs`],
      ['GET', `/api/v1/reports/runs/${run.body.id}`],
      ['GET', `/api/v1/reports/runs/${run.body.id}/files/html`],
    ]) {
      const r = await t.req<Problem>(method, path, { token: reader.token, ...(method === 'PATCH' ? { body: { recipients: ['me@example.test'] } } : {}) })
      expect(r.status, `${method} ${path}`).to.equal(404)
    }
    const runs = await t.req<Page<Run>>('GET', '/api/v1/reports/runs?per_page=100', { token: reader.token })
    expect(runs.body.items.map((r) => r.id)).to.not.include(run.body.id)
    expect((await t.admin('GET', `/api/v1/reports/runs/${run.body.id}/files/html`)).status).to.equal(200)
  })

  it('runs now: files stored, downloaded with a safe name, mailed with the attachments', async () => {
    const writer = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const name = 'Weekly <b>"ops"</b> / ../etc'
    const def = await t.req<Definition>('POST', '/api/v1/reports/definitions', {
      token: writer.token,
      body: body({ name, formats: ['pdf', 'xlsx', 'html'], recipients: ['noc@example.test'], time_range: { relative: 'last_24h' } }),
    })
    expect(def.status, JSON.stringify(def.body)).to.equal(201)
    const queued = await t.req<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`, { token: writer.token })
    expect(queued.status).to.equal(202)
    expect(queued.body).to.include({ state: 'queued', trigger: 'manual', actor_id: writer.id, definition_name: name })
    const run = await finished(t, queued.body.id, writer.token)
    expect(run.state, JSON.stringify(run)).to.equal('done')
    expect(run.row_counts).to.deep.equal([{ source: EVENTS, rows: 5, total_rows: 5, truncated: false }])
    expect(run.files.map((f) => f.format)).to.deep.equal(['html', 'pdf', 'xlsx'])
    expect(run.mail_state).to.equal('sent')
    const expected = { pdf: ['application/pdf', '%PDF'], xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'PK'], html: ['text/html; charset=utf-8', '<'] }
    for (const [format, [type, magic]] of Object.entries(expected)) {
      const r = await fetch(`${t.url}/api/v1/reports/runs/${run.id}/files/${format}`, { headers: { authorization: `Bearer ${writer.token}` } })
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.equal(type)
      expect(r.headers.get('content-disposition')).to.match(new RegExp(`^attachment; filename="Weekly-b-ops-b-etc-\\d{8}-\\d{4}\\.${format}"$`))
      expect(r.headers.get('cache-control')).to.equal('no-store')
      const bytes = Buffer.from(await r.arrayBuffer())
      expect(bytes.subarray(0, magic.length).toString('latin1')).to.equal(magic)
      expect(bytes.length).to.equal(run.files.find((f) => f.format === format)!.size)
      if (format === 'html') {
        expect(bytes.toString('utf8')).to.include('&lt;b&gt;').and.not.include('<b>"ops"</b>')
      }
    }
    const mail = await smtp.take('noc@example.test', 10_000)
    expect(mail.attachments.map((a) => a.contentType).sort()).to.deep.equal(['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'])
    const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf')!
    expect(pdf.filename).to.match(/^Weekly-b-ops-b-etc-\d{8}-\d{4}\.pdf$/)
    const stored = await fetch(`${t.url}/api/v1/reports/runs/${run.id}/files/pdf`, { headers: { authorization: `Bearer ${writer.token}` } })
    expect(pdf.content.equals(Buffer.from(await stored.arrayBuffer())), 'the mailed PDF is the stored one').to.equal(true)
    expect(mail.html, 'the HTML rendering is the body').to.include('&lt;b&gt;')
    expect((await t.req('GET', `/api/v1/reports/runs/${run.id}/files/pdf`, { token: (await user(t, ['reports.read'])).token })).status, 'without the source permission').to.equal(404)
  })

  it('records a mail that cannot be sent on the run, which is done all the same', async () => {
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer()
      srv.listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port
        srv.close(() => resolve(port))
      })
    })
    expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: closed } })).status).to.equal(200)
    try {
      const def = await t.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body({ formats: ['pdf'], recipients: ['nobody@example.test'] }) })
      const run = await finished(t, (await t.admin<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`)).body.id)
      expect(run).to.include({ state: 'done', mail_state: 'failed' })
      expect(run.mail_error).to.include('nobody@example.test')
      expect(run.files.map((f) => f.format)).to.deep.equal(['pdf'])
    } finally {
      await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: smtp.port } })
    }
  })

  it('stops at reports.row_limit with a note, figures still over everything', async () => {
    await addEvents(t, 150, { kind: 'event', at: new Date(Date.now() - 7_200_000), username: 'bulk' })
    expect((await t.admin('PUT', '/api/v1/settings/reports.row_limit', { body: { value: 100 } })).status).to.equal(200)
    try {
      const def = await t.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body({ formats: ['html'] }) })
      const run = await finished(t, (await t.admin<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`)).body.id)
      expect(run.state).to.equal('done')
      expect(run.truncated).to.equal(true)
      expect(run.row_counts).to.deep.equal([{ source: EVENTS, rows: 100, total_rows: 155, truncated: true }])
      expect(run.parameters.row_limit).to.equal(100)
      const html = (await t.admin<string>('GET', `/api/v1/reports/runs/${run.id}/files/html`)).text
      expect(html).to.include('Stopped at 100 rows of 155')
    } finally {
      await t.admin('PUT', '/api/v1/settings/reports.row_limit', { body: { value: 100_000 } })
    }
  })

  it('runs a due schedule once as its owner; occurrences missed while down make one run', async () => {
    const owner = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const def = await t.req<Definition>('POST', '/api/v1/reports/definitions', { token: owner.token, body: body({ schedule: { cron: '0 * * * *', time_zone: 'UTC' } }) })
    expect(def.status, JSON.stringify(def.body)).to.equal(201)
    const missed = new Date(Date.now() - 3 * 86_400_000)
    await t.app.db.knex('reports_definitions').where({ id: def.body.id }).update({ next_run_at: missed })
    const [run] = await waitFor('the scheduled run', async () => {
      const runs = await runsOf(def.body.id)
      return runs.length && runs[0].state === 'done' ? runs : null
    })
    expect(run).to.include({ trigger: 'schedule', actor_id: owner.id, scheduled_for: missed.toISOString() })
    // Several polls later: still one run, and the next occurrence is the next full hour.
    await new Promise((r) => setTimeout(r, 1000))
    expect(await runsOf(def.body.id)).to.have.length(1)
    const after = await t.admin<Definition>('GET', `/api/v1/reports/definitions/${def.body.id}`)
    const next = new Date(after.body.next_run_at!)
    expect(next.getTime()).to.be.greaterThan(Date.now()).and.at.most(Date.now() + 3_600_000)
    expect(next.getUTCMinutes()).to.equal(0)
  })

  it('a schedule whose owner is disabled or lost the source\'s permission fails with a code and mails nothing', async () => {
    const disabled = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const demoted = await user(t, ['reports.read', 'reports.write', 'report-fixture.read'])
    const make = async (u: { token: string }, to: string) =>
      (await t.req<Definition>('POST', '/api/v1/reports/definitions', { token: u.token, body: body({ schedule: { cron: '0 6 * * *', time_zone: 'UTC' }, recipients: [to] }) })).body
    const a = await make(disabled, 'disabled-owner@example.test')
    const b = await make(demoted, 'demoted-owner@example.test')
    await t.app.db.knex('users').where({ id: disabled.id }).update({ enabled: false })
    await setPermissions(t, demoted.id, ['reports.read', 'reports.write'])
    await t.app.db.knex('reports_definitions').whereIn('id', [a.id, b.id]).update({ next_run_at: new Date(Date.now() - 60_000) })
    const ranA = await waitFor('the disabled owner\'s run', async () => (await runsOf(a.id)).find((r) => r.state === 'failed'))
    const ranB = await waitFor('the demoted owner\'s run', async () => (await runsOf(b.id)).find((r) => r.state === 'failed'))
    expect(ranA).to.include({ error_code: 'REPORT_ACTOR_INACTIVE', mail_state: 'none' })
    expect(ranA.files).to.deep.equal([])
    expect(ranB).to.include({ error_code: 'REPORT_PERMISSION_LOST', mail_state: 'none' })
    expect(ranB.error_detail).to.include('report-fixture.read')
    await new Promise((r) => setTimeout(r, 500))
    expect(smtp.messages.filter((m) => m.to.some((x) => x.endsWith('-owner@example.test')))).to.deep.equal([])
  })

  // Ten seconds (the shortest budget): once, on the embedded run.
  ;(runsOn('embedded') ? it : it.skip)('stops a run at reports.time_budget_seconds and says so', async () => {
    expect((await t.admin('PUT', '/api/v1/settings/reports.time_budget_seconds', { body: { value: 10 } })).status).to.equal(200)
    try {
      const def = await t.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body({ sources: [EVENTS, SLOW], recipients: ['budget@example.test'] }) })
      const started = Date.now()
      const run = await finished(t, (await t.admin<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`)).body.id)
      expect(run).to.include({ state: 'failed', error_code: 'REPORT_TIME_BUDGET_SPENT', mail_state: 'none' })
      expect(run.error_detail).to.include('reports.time_budget_seconds')
      expect(run.files).to.deep.equal([])
      expect(Date.now() - started).to.be.at.least(9_000)
    } finally {
      await t.admin('PUT', '/api/v1/settings/reports.time_budget_seconds', { body: { value: 300 } })
    }
  })

  it('reports over a real source: the kernel\'s audit trail, as a holder of audit.read', async () => {
    const auditor = await user(t, ['reports.read', 'reports.write', 'audit.read'])
    const outsider = await user(t, ['reports.read', 'reports.write'])
    const refused = await t.req<Problem>('POST', '/api/v1/reports/definitions', { token: outsider.token, body: body({ sources: ['kernel.audit'] }) })
    expect(refused.body).to.deep.include({ code: 'REPORT_SOURCE_UNKNOWN', field: 'sources[0]' })
    const name = `audit <${randomUUID().slice(0, 6)}>`
    const def = await t.req<Definition>('POST', '/api/v1/reports/definitions', { token: auditor.token, body: body({ name, sources: ['kernel.audit'], formats: ['xlsx', 'html'], language: 'ru' }) })
    expect(def.status, JSON.stringify(def.body)).to.equal(201)
    const run = await finished(t, (await t.req<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`, { token: auditor.token })).body.id, auditor.token)
    expect(run.state, JSON.stringify(run)).to.equal('done')
    // At least this definition's own creation is in the trail.
    expect(run.row_counts[0].source).to.equal('kernel.audit')
    expect(run.row_counts[0].rows).to.be.at.least(1)
    const html = (await t.req<string>('GET', `/api/v1/reports/runs/${run.id}/files/html`, { token: auditor.token })).text
    expect(html).to.include('report_definition.create').and.include(name.replace('<', '&lt;').replace('>', '&gt;'))
  })

  it('prunes runs and their files past reports.retention_days', async () => {
    const def = await t.admin<Definition>('POST', '/api/v1/reports/definitions', { body: body() })
    const knex = t.app.db.knex
    const old = await finished(t, (await t.admin<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`)).body.id)
    const recent = await finished(t, (await t.admin<Run>('POST', `/api/v1/reports/definitions/${def.body.id}/runs`)).body.id)
    expect(Number(((await knex('reports_files').where({ run_id: old.id }).count({ n: '*' }).first()) as { n: string | number }).n)).to.equal(1)
    await knex('reports_runs').where({ id: old.id }).update({ queued_at: new Date(Date.now() - 91 * 86_400_000) })
    await waitFor('the old run to go', async () => !(await knex('reports_runs').where({ id: old.id }).first('id')))
    expect(Number(((await knex('reports_files').where({ run_id: old.id }).count({ n: '*' }).first()) as { n: string | number }).n)).to.equal(0)
    expect((await t.admin('GET', `/api/v1/reports/runs/${recent.id}`)).status).to.equal(200)
  })
})
