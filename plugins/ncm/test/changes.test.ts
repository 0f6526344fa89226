/**
 * GET /ncm/devices/{id}/versions/{vid}/changes, "who changed it": the TACACS+ records of the device
 * between the two fetches (rows written into the AAA log tables, as the ingester stores them), the
 * commands that match the diff marked, the address override, the 500-record cut, the permission of
 * the logs (403 at `logs`), and `logs_available: false` without the AAA logs plugin.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { enrollCollector, trackDevice, type TestCollector } from '../../../test/kit/ncm-collector.js'
import { ncmDeps } from '../deps.js'
import { versionChanges } from '../services/changes.js'
import type { NcmContext } from '../services/context.js'
import { putVersion } from './read-side-kit.js'

const NODE = randomUUID()
let offset = 0
const V1 = 'hostname core3\nno ip http server\ninterface Gi0/1\n description old\n shutdown\n!\nend\n'
const V2 = 'hostname core3\nip http server\ninterface Gi0/1\n description new uplink\n!\nend\n'

describe('ncm read side: who changed it', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  let device: string
  let v1: string
  let v2: string
  let window: { from: Date; to: Date }
  let reader: string
  const changes = (vid: string, token?: string) => t.req('GET', `/api/v1/ncm/devices/${device}/versions/${vid}/changes`, { token: token ?? reader })
  const acct = (at: Date, command: string, o: { username?: string; nas_ip?: string } = {}) => ({
    id: randomUUID(),
    timestamp: at,
    username: o.username ?? 'alice',
    nas_ip: o.nas_ip ?? '192.0.2.61',
    node_id: NODE,
    device_name: 'core3',
    client_address: '198.51.100.7',
    session_id: 'sess-1',
    source_file: '/var/log/tacacs/accounting.log',
    source_offset: (offset += 10),
    action: 'stop' as const,
    command,
  })

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'aaa-logs', 'ncm'], settings: { 'aaa-logs.ingest_enabled': false } })
    col = await enrollCollector(t)
    device = (await trackDevice(t, col, { address: '192.0.2.61/32' })).deviceId
    v1 = await putVersion(t, col, device, V1)
    v2 = await putVersion(t, col, device, V2)
    const rows = await t.app.db.knex('ncm_versions').whereIn('id', [v1, v2]).select('id', 'last_seen_started_at', 'first_finished_at')
    const r1 = rows.find((r) => r.id === v1)!
    const r2 = rows.find((r) => r.id === v2)!
    // The window with the default slack of 60 s on both sides.
    window = { from: new Date(new Date(r1.last_seen_started_at).getTime() - 60_000), to: new Date(new Date(r2.first_finished_at).getTime() + 60_000) }
    const at = (ms: number) => new Date(window.from.getTime() + ms)
    await t.app.db.knex('aaa_log_tacacs_acct').insert([
      acct(at(1000), 'configure terminal <cr>'),
      acct(at(2000), 'ip http server <cr>'),
      acct(at(3000), 'interface GigabitEthernet0/1 <cr>'),
      acct(at(4000), '  description   new uplink <cr>', { username: 'bob' }),
      acct(at(4500), 'no shutdown <cr>', { username: 'bob' }), // removes the line ` shutdown`
      acct(at(5000), 'ip http server <cr>', { nas_ip: '192.0.2.99' }), // another device
      acct(new Date(window.from.getTime() - 1000), 'hostname before <cr>'), // before the window
      acct(new Date(window.to.getTime() + 1000), 'hostname after <cr>'), // after it
    ])
    await t.app.db.knex('aaa_log_tacacs_authz').insert({ ...acct(at(1500), 'no ip http server <cr>', { username: 'carol' }), action: 'permit', priv_lvl: 15 })
    reader = await t.token({ permissions: ['ncm.read', 'aaa-logs.read'] })
  })
  after(async () => t?.stop())

  it('lists the commands the device sent between the two fetches, newest first, marking those that match the diff', async () => {
    const r = await changes(v2)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ version_id: v2, previous_version_id: v1, logs_available: true, truncated: false, window_from: window.from.toISOString(), window_to: window.to.toISOString() })
    expect(r.body.nas_addresses).to.deep.equal(['192.0.2.61'])
    expect(r.body.items.map((i: any) => [i.username, i.command, i.matches_diff])).to.deep.equal([
      ['bob', 'no shutdown <cr>', true],
      ['bob', '  description   new uplink <cr>', true],
      ['alice', 'interface GigabitEthernet0/1 <cr>', false],
      ['alice', 'ip http server <cr>', true],
      ['carol', 'no ip http server <cr>', true],
      ['alice', 'configure terminal <cr>', false],
    ])
    expect(r.body.items[4]).to.include({ kind: 'authorization', action: 'permit', priv_lvl: 15 })
    expect(r.body.items[1]).to.include({ kind: 'accounting', action: 'stop', nas_ip: '192.0.2.61', client_address: '198.51.100.7', session_id: 'sess-1' })
  })

  it('has no window for a first version', async () => {
    const r = await changes(v1)
    expect(r.body).to.include({ previous_version_id: null, window_from: null, window_to: null, logs_available: true })
    expect(r.body.items).to.deep.equal([])
  })

  it('looks the records up by the TACACS+ address override when the device has one', async () => {
    expect((await t.admin('PATCH', `/api/v1/ncm/devices/${device}`, { body: { aaa_address: '192.0.2.99' } })).status).to.equal(200)
    try {
      const r = await changes(v2)
      expect(r.body.nas_addresses).to.deep.equal(['192.0.2.99'])
      expect(r.body.items.map((i: any) => i.command)).to.deep.equal(['ip http server <cr>'])
    } finally {
      await t.admin('PATCH', `/api/v1/ncm/devices/${device}`, { body: { aaa_address: null } })
    }
  })

  it('lists at most 500 records, the newest, and says so', async () => {
    const at = new Date(window.from.getTime() + 10_000)
    const ids = await t.app.db.knex('aaa_log_tacacs_acct').insert(Array.from({ length: 500 }, (_, i) => acct(new Date(at.getTime() + i), `show version ${i} <cr>`))).returning('id')
    try {
      const r = await changes(v2)
      expect(r.body.truncated).to.equal(true)
      expect(r.body.items).to.have.length(500)
      expect(r.body.items[0].command).to.equal('show version 499 <cr>')
    } finally {
      await t.app.db.knex('aaa_log_tacacs_acct').whereIn('id', ids.map((x) => x.id)).delete()
    }
  })

  it('needs aaa-logs.read as well (403 at logs), and ncm.read', async () => {
    expectError(await changes(v2, await t.token({ permissions: ['ncm.read'] })), 403, 'FORBIDDEN', 'logs')
    expect((await changes(v2, await t.token({ permissions: ['aaa-logs.read'] }))).status).to.equal(403)
    expectError(await t.req('GET', `/api/v1/ncm/devices/${device}/versions/${randomUUID()}/changes`, { token: reader }), 404, 'NCM_VERSION_NOT_FOUND', 'version_id')
    expectError(await t.req('GET', `/api/v1/ncm/devices/${device}/versions/x/changes`, { token: reader }), 422, 'VALIDATION_FAILED', 'version_id')
  })

  it('says logs_available: false without the AAA logs plugin', async () => {
    // The plugin's own deps with the optional AAA logs service absent, as in an edition without it.
    const c = { ...t.app.resolveDeps('ncm', ncmDeps), aaaLogs: undefined } as unknown as NcmContext
    const r = await versionChanges(c, device, v2)
    expect(r).to.include({ logs_available: false, truncated: false, window_from: null })
    expect(r.items).to.deep.equal([])
  })
})
