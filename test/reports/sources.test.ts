/**
 * The report sources of the kernel (audit trail), pki (certificate expiry), nac (endpoints first
 * seen) and ncm (configuration changes), run as a report plugin runs them: from the registry, with
 * a reader from `database.read`. One app; devices, groups and users through the API, the owners'
 * rows written into their tables. The AAA logs' sources: plugins/aaa-logs/test/report-sources.test.ts.
 */
import { randomUUID, createHash } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { skipBecause } from '../kit/skip.js'
import { coreServices, jsonText, reportStatement, type ReportQuery, type ReportSection, type ReportSource } from '../../sdk/index.js'

const DAY = 86_400_000
const FROM = new Date('2026-11-01T00:00:00Z')
const TO = new Date('2026-11-04T00:00:00Z')
const at = (s: string) => new Date(`2026-11-0${s}Z`)

describe('report sources: audit trail, certificate expiry, endpoints first seen, configuration changes', function () {
  this.timeout(120000)
  let t: TestApp
  let sources: Map<string, ReportSource>
  let parent: string
  let staff: string
  let alice: string
  let swA: string
  let swB: string
  const now = Date.now()
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'pki', 'nac', 'ncm'] })
    sources = new Map(t.app.resolveDeps('ncm', { rs: coreServices.reportSources }).rs.list().map((s) => [s.id, s]))
    parent = (await t.admin('POST', '/api/v1/device-groups', { body: { name: 'emea' } })).body.id
    const child = (await t.admin('POST', '/api/v1/device-groups', { body: { name: 'emea-core', parent_id: parent } })).body.id
    swA = (await t.admin('POST', '/api/v1/devices', { body: { name: 'sw-a', address: '192.0.2.1/32', device_group_id: child } })).body.id
    swB = (await t.admin('POST', '/api/v1/devices', { body: { name: 'sw-b', address: '198.51.100.1/32' } })).body.id
    staff = (await t.admin('POST', '/api/v1/user-groups', { body: { name: 'staff', role_ids: [] } })).body.id
    alice = (await t.admin('POST', '/api/v1/users', { body: { username: 'alice', group_ids: [staff] } })).body.id
    const knex = t.app.db.knex

    const audit = (when: string, actor_id: string | null, actor_name: string | null, action: string, outcome: 'success' | 'failure' = 'success', reason: string | null = null) =>
      ({ at: at(when), actor_id, actor_name, action, resource_type: action.split('.')[0], resource_id: randomUUID(), outcome, reason, ip: '203.0.113.9' })
    await knex('audit_log').insert([
      audit('1T08:00:00', alice, 'alice', 'device.create'),
      audit('1T09:00:00', alice, 'alice', 'device.update'),
      audit('2T10:00:00', randomUUID(), 'bob', 'auth.login', 'failure', 'wrong_password'),
      audit('3T11:00:00', null, null, 'auth.login', 'failure', 'unknown_user'),
      audit('4T00:00:00', alice, 'alice', 'device.delete'), // `to` is exclusive
    ])

    const ca = randomUUID()
    const tpl = randomUUID()
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBcertificatebody\n-----END CERTIFICATE-----'
    await knex('pki_cas').insert({ id: ca, name: 'Corp Root', kind: 'root', key_algorithm: 'ec-p256', subject: 'CN=Corp Root', serial: '01', certificate: pem, chain: pem, sealed_key: 'sealed', imported: false, not_before: new Date(now - 400 * DAY), not_after: new Date(now + 4000 * DAY) })
    await knex('pki_templates').insert({ id: tpl, name: 'wifi-client', key_usage: jsonText([]), extended_key_usage: jsonText([]), validity_days: 365, name_patterns: jsonText([]), subject_attributes: jsonText([]), san_types: jsonText([]), min_rsa_bits: 2048, min_ec_bits: 256 })
    const cert = (cn: string, notAfterDays: number, o: { revoked?: boolean; template?: boolean } = {}) => ({
      ca_id: ca, template_id: o.template === false ? null : tpl, serial: createHash('sha1').update(cn).digest('hex').slice(0, 16), subject: `CN=${cn}`, san: `DNS:${cn}.example.net`,
      key_algorithm: 'ec-p256', certificate: pem, not_before: new Date(now - 300 * DAY), not_after: new Date(now + notAfterDays * DAY), revoked_at: o.revoked ? new Date(now - DAY) : null,
    })
    await knex('pki_certificates').insert([cert('expired-in-window', -10), cert('valid-in-window', 10, { template: false }), cert('revoked', 12, { revoked: true }), cert('expired-long-ago', -30), cert('far-future', 100)])

    const eg = randomUUID()
    await knex('nac_endpoint_groups').insert({ id: eg, name: 'printers' })
    const ep = (mac: string, when: string, o: Record<string, unknown>) => ({ mac, first_seen_at: at(when), last_seen_at: at(when), ...o })
    await knex('nac_endpoints').insert([
      ep('00:11:22:33:44:01', '1T08:00:00', { vendor: 'HP Inc.', device_type: 'printer', endpoint_group_id: eg, last_nas_ip: '192.0.2.1', owner_user_id: alice }),
      ep('00:11:22:33:44:02', '2T08:00:00', { vendor: 'HP Inc.', device_type: 'printer', endpoint_group_id: eg, last_nas_ip: '198.51.100.1' }),
      ep('00:11:22:33:44:03', '2T09:00:00', { vendor: 'Apple, Inc.', last_nas_ip: '198.51.100.1' }),
      ep('00:11:22:33:44:04', '4T09:00:00', { vendor: 'Apple, Inc.' }), // after the range
      { mac: '00:11:22:33:44:05', description: 'added by hand, never seen' },
    ])

    const version = async (device: string, when: string, o: { first?: boolean; added?: number; removed?: number; secrets_only?: boolean } = {}) => {
      const raw = createHash('sha256').update(device + when).digest('hex')
      await knex('ncm_blobs').insert({ device_id: device, raw_sha256: raw, masked: 'x', masked_sha256: raw, sealed: 'x', bytes: 1, lines: 1 })
      await knex('ncm_versions').insert({
        device_id: device, raw_sha256: raw, previous_id: o.first ? null : randomUUID(), first_started_at: at(when), first_finished_at: at(when), fetch_ms: 5,
        last_seen_started_at: at(when), last_seen_at: at(when), added: o.added ?? 0, removed: o.removed ?? 0, secrets_only: o.secrets_only ?? false,
      })
    }
    await version(swA, '1T01:00:00', { first: true, added: 100 }) // the first version: no change
    await version(swA, '2T01:00:00', { added: 3, removed: 1 })
    await version(swA, '3T01:00:00', { added: 1, removed: 1, secrets_only: true })
    await version(swB, '2T02:00:00', { added: 2 })
  })
  after(async () => t?.stop())

  const run = (id: string, o: Partial<Omit<ReportQuery, 'reader'>> = {}): Promise<ReportSection> =>
    t.app.db.read((reader) =>
      sources.get(id)!.run({
        reader, from: FROM, to: TO, deviceGroupId: null, userGroupId: null, rowLimit: 100, signal: new AbortController().signal,
        actor: { id: randomUUID(), username: 'admin', isAdmin: true, permissions: new Set() },
        ...o,
      }),
    )
  const figures = (s: ReportSection) => Object.fromEntries(s.figures.map((f) => [f.label.en, f.value]))
  const chart = (s: ReportSection, title: string) => Object.fromEntries(s.charts.find((c) => c.title.en === title)!.points.map((p) => [p.label, p.value]))

  it('each is registered with its owner\'s read permission and the filters that apply', () => {
    const got = Object.fromEntries(['kernel.audit', 'pki.certificate-expiry', 'nac.endpoints-first-seen', 'ncm.configuration-changes'].map((id) => [id, [sources.get(id)?.permission, sources.get(id)?.filters]]))
    expect(got).to.deep.equal({
      'kernel.audit': ['audit.read', ['user_group']],
      'pki.certificate-expiry': ['pki.view', []],
      'nac.endpoints-first-seen': ['nac.read', ['device_group', 'user_group']],
      'ncm.configuration-changes': ['ncm.read', ['device_group']],
    })
  })

  it('audit trail: by action and outcome, rows newest first, the user-group filter, the row limit', async () => {
    const s = await run('kernel.audit')
    expect(figures(s)).to.deep.equal({ Entries: 4, 'Refused or failed': 2, Actors: 2 })
    expect(chart(s, 'Entries per day')).to.deep.equal({ '2026-11-01': 2, '2026-11-02': 1, '2026-11-03': 1 })
    expect(chart(s, 'By action')).to.deep.equal({ 'auth.login': 2, 'device.create': 1, 'device.update': 1 })
    expect(s.rows.map((r) => [r.actor, r.action, r.outcome, r.reason])).to.deep.equal([
      [null, 'auth.login', 'failure', 'unknown_user'],
      ['bob', 'auth.login', 'failure', 'wrong_password'],
      ['alice', 'device.update', 'success', null],
      ['alice', 'device.create', 'success', null],
    ])
    expect(JSON.stringify(s)).not.to.include('before')
    const mine = await run('kernel.audit', { userGroupId: staff })
    expect(mine.rows.map((r) => r.action)).to.deep.equal(['device.update', 'device.create'])
    const capped = await run('kernel.audit', { rowLimit: 1 })
    expect([capped.rows.length, capped.truncated, capped.totalRows, figures(capped).Entries]).to.deep.equal([1, true, 4, 4])
  })

  it('certificate expiry: the window, the expired flagged, revoked left out, by CA and template', async () => {
    const s = await run('pki.certificate-expiry', { from: new Date(now - 20 * DAY), to: new Date(now + 40 * DAY) })
    expect(figures(s)).to.deep.equal({ 'Expiring in the period': 2, 'Of them already expired': 1, 'Expired before the period, not revoked': 1 })
    expect(s.rows.map((r) => [r.subject, r.expired, r.issuer, r.template])).to.deep.equal([
      ['CN=expired-in-window', true, 'Corp Root', 'wifi-client'],
      ['CN=valid-in-window', false, 'Corp Root', null],
    ])
    expect(chart(s, 'By issuing CA')).to.deep.equal({ 'Corp Root': 2 })
    expect(chart(s, 'By template')).to.deep.equal({ 'wifi-client': 1, '—': 1 })
    expect(Object.values(chart(s, 'Expiring per day')).reduce((a, b) => a + b, 0)).to.equal(2)
    expect(JSON.stringify(s)).not.to.include('certificatebody')
    const capped = await run('pki.certificate-expiry', { from: new Date(now - 20 * DAY), to: new Date(now + 40 * DAY), rowLimit: 1 })
    expect([capped.rows.length, capped.truncated, capped.totalRows]).to.deep.equal([1, true, 2])
  })

  it('endpoints first seen: by device type, vendor and group; device-group and user-group filters', async () => {
    const s = await run('nac.endpoints-first-seen')
    expect(figures(s)).to.deep.equal({ 'New endpoints': 3, 'With a device type': 2, 'Device types': 1 })
    expect(chart(s, 'First seen per day')).to.deep.equal({ '2026-11-01': 1, '2026-11-02': 2, '2026-11-03': 0 })
    expect(chart(s, 'By device type')).to.deep.equal({ printer: 2, '—': 1 })
    expect(chart(s, 'By vendor')).to.deep.equal({ 'HP Inc.': 2, 'Apple, Inc.': 1 })
    expect(s.rows.map((r) => [r.mac, r.device_type, r.endpoint_group, r.last_nas])).to.deep.equal([
      ['00:11:22:33:44:03', null, null, '198.51.100.1'],
      ['00:11:22:33:44:02', 'printer', 'printers', '198.51.100.1'],
      ['00:11:22:33:44:01', 'printer', 'printers', '192.0.2.1'],
    ])
    expect(s.rows[2].owner).to.equal('alice')
    expect((await run('nac.endpoints-first-seen', { deviceGroupId: parent })).rows.map((r) => r.mac)).to.deep.equal(['00:11:22:33:44:01'])
    expect((await run('nac.endpoints-first-seen', { userGroupId: staff })).rows.map((r) => r.mac)).to.deep.equal(['00:11:22:33:44:01'])
    const capped = await run('nac.endpoints-first-seen', { rowLimit: 2 })
    expect([capped.rows.length, capped.truncated, capped.totalRows]).to.deep.equal([2, true, 3])
  })

  it('configuration changes: per device, a first version is no change, the device-group filter', async () => {
    const s = await run('ncm.configuration-changes')
    expect(figures(s)).to.deep.equal({ Changes: 3, 'Devices changed': 2, 'Lines added': 6, 'Lines removed': 2, 'Changes of secrets only': 1 })
    expect(chart(s, 'Changes per day')).to.deep.equal({ '2026-11-01': 0, '2026-11-02': 2, '2026-11-03': 1 })
    expect(chart(s, 'Most changed devices')).to.deep.equal({ 'sw-a': 2, 'sw-b': 1 })
    expect(s.rows.map((r) => [r.device, r.added, r.removed, r.secrets_only])).to.deep.equal([
      ['sw-a', 1, 1, true],
      ['sw-b', 2, 0, false],
      ['sw-a', 3, 1, false],
    ])
    const g = await run('ncm.configuration-changes', { deviceGroupId: parent })
    expect(figures(g)).to.include({ Changes: 2, 'Devices changed': 1 })
    const capped = await run('ncm.configuration-changes', { rowLimit: 1 })
    expect([capped.rows.length, capped.truncated, capped.totalRows]).to.deep.equal([1, true, 3])
  })

  it('a statement may outlast the requests\' statement timeout; an aborted run cancels the one it is running', async function () {
    if (t.app.db.engine !== 'postgres') skipBecause(this, 'the embedded engine has one connection: nothing can cancel its running statement')
    // Longer than the pool's statement_timeout (5 s): a report's statement is not cut by it.
    const slept = await t.app.db.read((reader) => reportStatement<{ ok: number }>({ reader, signal: new AbortController().signal }, 'SELECT 1 AS ok FROM pg_sleep(5.5)'))
    expect(slept).to.deep.equal([{ ok: 1 }])
    const c = new AbortController()
    const timer = setTimeout(() => c.abort(new Error('budget spent')), 300)
    let err: unknown = null
    await t.app.db.read((reader) => reportStatement({ reader, signal: c.signal }, 'SELECT pg_sleep(10)')).catch((e: unknown) => (err = e))
    clearTimeout(timer)
    expect((err as Error | null)?.message).to.equal('budget spent')
    const left = await t.app.db.knex.raw<{ rows: { n: string }[] }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%portcullis-report%' AND pid <> pg_backend_pid()`)
    expect(Number(left.rows[0].n)).to.equal(0)
  })
})
