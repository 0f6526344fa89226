/**
 * The AAA logs' report sources (device-administration activity, RADIUS/NAC authentications), run as
 * a report plugin runs them: from the registry, with a reader from `database.read`. Rows written
 * straight into the tables; devices, groups and users through the API.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { coreServices, type ReportQuery, type ReportSection, type ReportSource } from '../../../sdk/index.js'

const NODE = randomUUID()
let offset = 0
const DEVICE_KEY = 'Tk-Device-Key-4417'
const TYPED_SECRET = 'Hunter2-Typed-Pw'
const common = (timestamp: string, username: string, nas_ip: string, device_name: string) => ({
  id: randomUUID(),
  timestamp: new Date(timestamp),
  username,
  nas_ip,
  node_id: NODE,
  device_name,
  client_address: '203.0.113.5',
  source_file: '/var/log/x.log',
  source_offset: (offset += 10),
})
const A = ['192.0.2.1', 'sw-a'] as const // in the child group
const B = ['198.51.100.1', 'sw-b'] as const // in no group
const FROM = new Date('2026-11-01T00:00:00Z')
const TO = new Date('2026-11-04T00:00:00Z')

describe('aaa-logs: report sources', function () {
  this.timeout(120000)
  let t: TestApp
  let sources: Map<string, ReportSource>
  let parent: string
  let child: string
  let staff: string
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
    const rs = t.app.resolveDeps('aaa-logs', { rs: coreServices.reportSources }).rs
    sources = new Map(rs.list().map((s) => [s.id, s]))
    parent = (await t.admin('POST', '/api/v1/device-groups', { body: { name: 'emea' } })).body.id
    child = (await t.admin('POST', '/api/v1/device-groups', { body: { name: 'emea-core', parent_id: parent } })).body.id
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw-a', address: '192.0.2.1/32', device_group_id: child, tacacs_key: DEVICE_KEY } })).status).to.equal(201)
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw-b', address: '198.51.100.1/32' } })).status).to.equal(201)
    staff = (await t.admin('POST', '/api/v1/user-groups', { body: { name: 'staff', role_ids: [] } })).body.id
    expect((await t.admin('POST', '/api/v1/users', { body: { username: 'alice', group_ids: [staff] } })).status).to.equal(201)
    const knex = t.app.db.knex
    await knex('aaa_log_tacacs_authn').insert([
      { ...common('2026-11-01T08:00:00Z', 'alice', ...A), status: 'success' },
      { ...common('2026-11-01T09:00:00Z', 'alice', ...B), status: 'failure', message: 'password incorrect' },
      { ...common('2026-11-02T10:00:00Z', 'bob', ...A), status: 'success' },
      { ...common('2026-11-04T00:00:00Z', 'alice', ...A), status: 'success' }, // `to` is exclusive
      { ...common('2026-10-31T23:59:59Z', 'alice', ...A), status: 'failure' }, // before `from`
    ])
    await knex('aaa_log_tacacs_authz').insert([
      { ...common('2026-11-01T08:01:00Z', 'alice', ...A), action: 'permit', priv_lvl: 15, command: `username carol secret 0 ${TYPED_SECRET} <cr>` },
      { ...common('2026-11-01T08:02:00Z', 'alice', ...A), action: 'permit', priv_lvl: 1, command: 'show version <cr>' },
      { ...common('2026-11-02T10:01:00Z', 'bob', ...A), action: 'permit', priv_lvl: 15, command: `banner motd ${DEVICE_KEY} <cr>` },
      { ...common('2026-11-03T11:00:00Z', 'bob', ...B), action: 'deny', priv_lvl: 15, command: 'reload <cr>' },
      { ...common('2026-11-03T11:00:01Z', 'bob', ...B), action: 'permit', priv_lvl: 15, command: null }, // the shell's start: no command
    ])
    const vlan = (v: string) => [{ name: 'Tunnel-Type', value: 'VLAN' }, { name: 'Tunnel-Private-Group-Id', value: v }]
    await knex('aaa_log_radius_auth').insert([
      { ...common('2026-11-01T07:00:00Z', 'alice', ...A), status: 'accept', auth_type: 'PEAP', calling_station_id: '00-11-22-33-44-55', reply_attributes: JSON.stringify(vlan('10')) },
      { ...common('2026-11-01T07:05:00Z', 'alice', ...A), status: 'accept', auth_type: 'PEAP', calling_station_id: '00-11-22-33-44-55', reply_attributes: JSON.stringify(vlan('10')) },
      { ...common('2026-11-02T07:00:00Z', '001122334466', ...B), status: 'accept', auth_type: 'MAB', calling_station_id: '00-11-22-33-44-66', reply_attributes: JSON.stringify(vlan('20')) },
      { ...common('2026-11-03T07:00:00Z', 'bob', ...B), status: 'reject', auth_type: 'PAP', reject_reason: 'wrong_password', reason: `pap: password ${TYPED_SECRET}` },
    ] as never)
  })
  after(async () => t?.stop())

  const run = (id: string, o: Partial<Omit<ReportQuery, 'reader'>> = {}): Promise<ReportSection> =>
    t.app.db.read((reader) =>
      sources.get(id)!.run({
        reader,
        from: FROM,
        to: TO,
        deviceGroupId: null,
        userGroupId: null,
        rowLimit: 100,
        signal: new AbortController().signal,
        actor: { id: randomUUID(), username: 'admin', isAdmin: true, permissions: new Set() },
        ...o,
      }),
    )
  const figures = (s: ReportSection) => Object.fromEntries(s.figures.map((f) => [f.label.en, f.value]))
  const chart = (s: ReportSection, title: string) => Object.fromEntries(s.charts.find((c) => c.title.en === title)!.points.map((p) => [p.label, p.value]))

  it('are registered with the logs read permission and their filters', () => {
    for (const id of ['aaa-logs.tacacs-activity', 'aaa-logs.radius-authentications']) {
      const s = sources.get(id)!
      expect(s.permission).to.equal('aaa-logs.read')
      expect(s.filters).to.have.members(['device_group', 'user_group'])
      expect(s.title.ru).to.be.a('string').and.not.equal(s.title.en)
    }
  })

  it('device administration: figures, charts and rows over the range', async () => {
    const s = await run('aaa-logs.tacacs-activity')
    expect(figures(s)).to.deep.equal({ Logins: 2, 'Failed logins': 1, Commands: 4, 'Privileged commands (level 15)': 2, 'Refused commands': 1, Users: 2, Devices: 2 })
    expect(chart(s, 'Logins per day')).to.deep.equal({ '2026-11-01': 1, '2026-11-02': 1, '2026-11-03': 0 })
    expect(chart(s, 'Commands per day')).to.deep.equal({ '2026-11-01': 2, '2026-11-02': 1, '2026-11-03': 1 })
    expect(s.charts.find((c) => c.title.en === 'Most active users')!.points).to.deep.equal([{ label: 'alice', value: 4 }, { label: 'bob', value: 3 }])
    expect(s.charts.find((c) => c.title.en === 'Most used devices')!.points[0]).to.deep.equal({ label: 'sw-a (192.0.2.1)', value: 5 })
    expect(s.rows.map((r) => [r.event, r.user, r.result])).to.deep.equal([
      ['command', 'bob', 'deny'],
      ['command', 'bob', 'permit'],
      ['login', 'bob', 'success'],
      ['login', 'alice', 'failure'],
      ['command', 'alice', 'permit'],
      ['command', 'alice', 'permit'],
      ['login', 'alice', 'success'],
    ])
    expect(s.rows[0]).to.include({ time: '2026-11-03T11:00:00.000Z', device: 'sw-b', device_address: '198.51.100.1', client: '203.0.113.5', privilege: 15, detail: 'reload <cr>' })
    expect(s.truncated).to.equal(false)
    expect(s.totalRows).to.equal(7)
  })

  it('never shows a secret typed in a command or a device key', async () => {
    const s = await run('aaa-logs.tacacs-activity')
    const text = JSON.stringify(s)
    expect(text).not.to.include(TYPED_SECRET)
    expect(text).not.to.include(DEVICE_KEY)
    expect(s.rows.map((r) => r.detail)).to.include('username carol secret <secret hidden>')
    expect(s.rows.map((r) => r.detail)).to.include('show version <cr>')
    expect(s.rows.find((r) => r.event === 'login' && r.result === 'failure')!.detail).to.equal('password incorrect') // a message is no command
  })

  it('stops at the row limit, saying how many matched', async () => {
    const s = await run('aaa-logs.tacacs-activity', { rowLimit: 2 })
    expect(s.rows).to.have.length(2)
    expect(s.truncated).to.equal(true)
    expect(s.totalRows).to.equal(7)
    expect(figures(s).Logins).to.equal(2) // the summary still covers everything
  })

  it('filters by device group (with its descendants) and by user group', async () => {
    const g = await run('aaa-logs.tacacs-activity', { deviceGroupId: parent })
    expect(g.rows.map((r) => r.device)).to.deep.equal(['sw-a', 'sw-a', 'sw-a', 'sw-a', 'sw-a'])
    expect(figures(g)).to.include({ Logins: 2, 'Failed logins': 0, Devices: 1 })
    const u = await run('aaa-logs.tacacs-activity', { userGroupId: staff })
    expect(new Set(u.rows.map((r) => r.user))).to.deep.equal(new Set(['alice']))
    expect(figures(u)).to.include({ Logins: 1, 'Failed logins': 1, Commands: 2, Users: 1 })
    const both = await run('aaa-logs.radius-authentications', { deviceGroupId: child, userGroupId: staff })
    expect(figures(both)).to.include({ Authentications: 2, Accepted: 2, Rejected: 0 })
  })

  it('RADIUS/NAC authentications: by result, VLAN and method', async () => {
    const s = await run('aaa-logs.radius-authentications')
    expect(figures(s)).to.deep.equal({ Authentications: 4, Accepted: 3, Rejected: 1, Users: 3, 'Endpoints (MAC addresses)': 2 })
    expect(chart(s, 'Accepted per day')).to.deep.equal({ '2026-11-01': 2, '2026-11-02': 1, '2026-11-03': 0 })
    expect(chart(s, 'Accepts by VLAN')).to.deep.equal({ '10': 2, '20': 1 })
    expect(chart(s, 'By method')).to.deep.equal({ PEAP: 2, MAB: 1, PAP: 1 })
    expect(chart(s, 'Rejects by reason')).to.deep.equal({ wrong_password: 1 })
    expect(s.rows[0]).to.include({ user: 'bob', result: 'reject', reject_reason: 'wrong_password', vlan: null })
    expect(s.rows[3]).to.include({ user: 'alice', mac: '00-11-22-33-44-55', vlan: '10', method: 'PEAP', device: 'sw-a' })
    expect(JSON.stringify(s)).not.to.include(TYPED_SECRET)
    const capped = await run('aaa-logs.radius-authentications', { rowLimit: 3 })
    expect([capped.rows.length, capped.truncated, capped.totalRows]).to.deep.equal([3, true, 4])
  })

  it('stops when the run is aborted', async () => {
    const c = new AbortController()
    c.abort(new Error('budget spent'))
    let err: unknown
    await run('aaa-logs.tacacs-activity', { signal: c.signal }).catch((e) => (err = e))
    expect((err as Error).message).to.equal('budget spent')
  })
})
