/**
 * AaaLogsService.tacacsImpactRequests / radiusImpactRequests, as the change-impact routes call them:
 * the distinct requests of a window, grouped in the database with their counts, the last time seen
 * and the daemon's last logged answer, the most frequent first when the limit cuts. RADIUS rows are
 * the ingester's own (parseLine of real FreeRADIUS lines), so the NAC fields are read as ingested.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { aaaLogsServiceRef, type AaaLogsService } from '../api.js'
import { parseLine } from '../ingest/records.js'

const NODE = randomUUID()
let offset = 0
const base = (timestamp: string, username: string, nas_ip: string | null = '192.0.2.1') => ({ id: randomUUID(), timestamp: new Date(timestamp), username, nas_ip, node_id: NODE, source_file: '/var/log/x.log', source_offset: (offset += 10) })
const at = (s: string) => `2026-11-20T10:${s}Z`
const window = { from: new Date('2026-11-20T10:00:00Z'), to: new Date('2026-11-20T10:10:00Z') }

const authn = (ts: string, username: string, status: 'success' | 'failure', o: { authen_type?: string; rule?: string; code?: string; message?: string } = {}) => ({
  ...base(ts, username),
  status,
  authen_type: o.authen_type ?? 'ascii',
  rule_name: o.rule ?? null,
  result_code: o.code ?? null,
  message: o.message ?? null,
})
const authz = (ts: string, username: string, action: 'permit' | 'deny', command: string | null, o: { priv?: number; rule?: string; profile?: string; args?: string[]; nas_ip?: string } = {}) => ({
  ...base(ts, username, o.nas_ip ?? '192.0.2.1'),
  action,
  service: 'shell',
  command,
  priv_lvl: o.priv ?? 15,
  rule_name: o.rule ?? null,
  profile: o.profile ?? null,
  arguments: o.args ?? [],
})

/** A FreeRADIUS auth line as the detail module writes it (see ingest-parse.test.ts), at `ts` seconds. */
const radiusLine = (ts: number, result: 'accept' | 'reject', request: Record<string, string>, control: Record<string, string>) =>
  JSON.stringify({ v: 1, kind: 'auth', ts: String(ts), us: '0', src: '192.0.2.9', client: 'sw1', result, request, control, replies: [] })
const T0 = Date.parse('2026-11-20T10:00:00Z') / 1000
const ingested = (line: string) => {
  const p = parseLine('radius_authentication', Buffer.from(line))
  if (!p.ok) throw new Error(p.reason)
  const row = { ...p.row, id: randomUUID(), node_id: NODE, source_file: '/var/log/radius/auth.log', source_offset: (offset += 10) }
  // The row as COPY writes it (ingest/copy.ts): the parsed columns, checked by the database, not by knex's types.
  return { ...row, reply_attributes: JSON.stringify(p.row.reply_attributes) } as unknown as { timestamp: Date; username: string; status: 'accept' | 'reject'; node_id: string; source_file: string; source_offset: number }
}

describe('aaa-logs: the distinct requests of a window (change impact)', function () {
  this.timeout(60000)
  let t: TestApp
  let logs: AaaLogsService
  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
    logs = t.app.resolveDeps('aaa-logs', { logs: aaaLogsServiceRef }).logs
    const knex = t.app.db.knex
    await knex('aaa_log_tacacs_authn').insert([
      authn(at('00:10'), 'alice', 'success', { rule: 'admins' }),
      authn(at('00:20'), 'alice', 'failure', { rule: 'admins', code: 'AUTHC-FAIL', message: 'password mismatch' }),
      authn(at('00:15'), 'alice', 'success', { authen_type: 'pap' }),
      authn('2026-11-20T09:59:00Z', 'alice', 'success'), // before the window
    ])
    await knex('aaa_log_tacacs_authz').insert([
      authz(at('01:00'), 'bob', 'permit', 'show version <cr>', { rule: 'ops', profile: 'ro' }),
      authz(at('02:00'), 'bob', 'permit', 'show version <cr>', { rule: 'ops', profile: 'ro' }),
      authz(at('03:00'), 'bob', 'deny', 'show version <cr>', { rule: 'lockdown', profile: 'none' }), // the last answer
      authz(at('01:30'), 'bob', 'permit', 'show version <cr>', { priv: 1 }), // another level: another request
      authz(at('01:40'), 'bob', 'permit', 'show version <cr>', { nas_ip: '192.0.2.2' }), // another device
      authz(at('04:00'), 'bob', 'permit', null, { args: ['service=shell', 'cmd*'] }), // the session's start
      authz(at('10:01'), 'bob', 'permit', 'after the window <cr>'),
    ])
    await knex('aaa_log_radius_auth').insert([
      // 802.1X PEAP: outer identity anonymous, inner alice (twice, one reject last).
      ingested(radiusLine(T0 + 60, 'accept', { 'User-Name': 'anonymous', 'Calling-Station-Id': '00-11-22-33-44-77', 'EAP-Type': 'PEAP', 'NAS-Port-Type': 'Ethernet' }, { 'Auth-Type': 'eap', 'Tmp-String-0': 'staff', 'Portcullis-NAC-Method': 'peap', 'Portcullis-NAC-User': 'alice' })),
      ingested(radiusLine(T0 + 120, 'reject', { 'User-Name': 'anonymous', 'Calling-Station-Id': '00-11-22-33-44-77', 'EAP-Type': 'PEAP', 'NAS-Port-Type': 'Ethernet', 'Module-Failure-Message': 'mschap: wrong password' }, { 'Auth-Type': 'eap', 'Tmp-String-2': 'wrong_password', 'Portcullis-NAC-Method': 'peap', 'Portcullis-NAC-User': 'alice' })),
      // MAB.
      ingested(radiusLine(T0 + 30, 'accept', { 'User-Name': '001122334466', 'Calling-Station-Id': '00:11:22:33:44:66', 'NAS-Port-Type': 'Ethernet', 'Service-Type': 'Call-Check' }, { 'Auth-Type': 'Accept', 'Tmp-String-0': 'printers', 'Portcullis-NAC-Method': 'mab' })),
      // Device administration: the MAC is no part of the request (two MACs, one request).
      ingested(radiusLine(T0 + 10, 'accept', { 'User-Name': 'carol', 'Calling-Station-Id': '10.9.9.1' }, { 'Auth-Type': 'PAP', 'Tmp-String-0': 'netops' })),
      ingested(radiusLine(T0 + 20, 'accept', { 'User-Name': 'carol', 'Calling-Station-Id': '10.9.9.2' }, { 'Auth-Type': 'PAP', 'Tmp-String-0': 'netops' })),
      ingested(radiusLine(T0 + 25, 'accept', { 'User-Name': 'carol', 'Calling-Station-Id': '10.9.9.2' }, { 'Auth-Type': 'PAP', 'Tmp-String-0': 'netops' })),
    ])
    // A row ingested before the NAC columns existed: the method comes from auth_type.
    await knex('aaa_log_radius_auth').insert({ ...base(at('05:00'), 'dave'), status: 'accept', auth_type: 'EAP-TLS', calling_station_id: 'aa-bb-cc-dd-ee-ff' })
  })
  after(async () => t?.stop())

  it('groups TACACS+ logins and authorizations by the request, counts them, keeps the last answer logged', async () => {
    const r = await logs.tacacsImpactRequests({ ...window, limit: 100 })
    expect(r.truncated).to.equal(false)
    expect(r.lag_ms).to.equal(null)
    expect(r.items).to.have.length(6)
    // The most frequent first.
    expect(r.items[0]).to.deep.include({ kind: 'authorization', username: 'bob', nas_ip: '192.0.2.1', service: 'shell', command: 'show version <cr>', priv_lvl: 15, events: 3, permitted: 2 })
    expect(r.items[0].last).to.deep.equal({ permitted: false, rule_name: 'lockdown', profile: 'none', result_code: null, message: null })
    expect(r.items[0].last_seen.toISOString()).to.equal('2026-11-20T10:03:00.000Z')
    const login = r.items.find((i) => i.kind === 'authentication' && i.authen_type === 'ascii')!
    expect(login).to.deep.include({ username: 'alice', events: 2, permitted: 1, command: null })
    expect(login.last).to.deep.equal({ permitted: false, rule_name: 'admins', profile: null, result_code: 'AUTHC-FAIL', message: 'password mismatch' })
    const session = r.items.find((i) => i.kind === 'authorization' && i.command === null)!
    expect(session).to.deep.include({ events: 1, permitted: 1 })
    expect(session.arguments).to.deep.equal(['service=shell', 'cmd*'])
    expect(r.items.filter((i) => i.command === 'show version <cr>').map((i) => [i.nas_ip, i.priv_lvl, i.events])).to.have.deep.members([
      ['192.0.2.1', 15, 3],
      ['192.0.2.1', 1, 1],
      ['192.0.2.2', 15, 1],
    ])
    expect(r.items.some((i) => i.command === 'after the window <cr>')).to.equal(false)
  })

  it('cuts at the limit keeping the most frequent, and says so', async () => {
    const r = await logs.tacacsImpactRequests({ ...window, limit: 2 })
    expect(r.truncated).to.equal(true)
    expect(r.items.map((i) => [i.kind, i.events])).to.deep.equal([
      ['authorization', 3],
      ['authentication', 2],
    ])
    expect((await logs.tacacsImpactRequests({ ...window, limit: 6 })).truncated).to.equal(false)
  })

  it('groups RADIUS requests with what an 802.1X or MAB request was, as ingested', async () => {
    const r = await logs.radiusImpactRequests({ ...window, limit: 100 })
    expect(r.truncated).to.equal(false)
    const by = (u: string) => r.items.filter((i) => i.username === u)
    expect(by('carol')).to.have.length(1)
    expect(by('carol')[0]).to.deep.include({ auth_type: 'PAP', nac_method: null, nac_user: null, calling_station_id: null, events: 3, permitted: 3 })
    expect(by('anonymous')).to.have.length(1)
    expect(by('anonymous')[0]).to.deep.include({ auth_type: 'PEAP', nac_method: 'peap', nac_user: 'alice', calling_station_id: '00-11-22-33-44-77', nas_port_type: 'Ethernet', events: 2, permitted: 1 })
    expect(by('anonymous')[0].last).to.deep.equal({ permitted: false, rule_name: null, profile: null, result_code: 'wrong_password', message: 'mschap: wrong password' })
    expect(by('001122334466')[0]).to.deep.include({ nac_method: 'mab', calling_station_id: '00:11:22:33:44:66', nas_ip: '192.0.2.9', events: 1, permitted: 1 })
    expect(by('001122334466')[0].last).to.deep.include({ permitted: true, rule_name: 'printers' })
    expect(by('dave')[0]).to.deep.include({ nac_method: 'eap-tls', nac_user: null, calling_station_id: 'aa-bb-cc-dd-ee-ff' })
    expect(r.items[0].username).to.equal('carol')
  })

  it('only: the requests of some users (any case) or of NAS addresses within some prefixes, and the window’s real requests', async () => {
    const names = (items: { username: string }[]) => [...new Set(items.map((i) => i.username))].sort()
    // By user name, lower-cased by the caller: ALICE's rows are alice's; no NAS prefix.
    await t.app.db.knex('aaa_log_tacacs_authn').insert(authn(at('06:00'), 'ALICE', 'success'))
    const alice = await logs.tacacsImpactRequests({ ...window, limit: 100, only: { usernames: ['alice'], prefixes: [] } })
    expect(names(alice.items)).to.deep.equal(['ALICE', 'alice'])
    // Every TACACS+ row of the window, logins and authorizations (the one before and the one after it are not).
    expect(alice.window_events).to.equal(10)
    // By NAS prefix: bob's request from 192.0.2.2 only; a mapped IPv6 NAS address is matched by its twin prefix.
    const nas = await logs.tacacsImpactRequests({ ...window, limit: 100, only: { usernames: [], prefixes: ['192.0.2.2/32', '::ffff:192.0.2.2/128'] } })
    expect(nas.items.map((i) => [i.username, i.nas_ip, i.command])).to.deep.equal([['bob', '192.0.2.2', 'show version <cr>']])
    // A name beyond ASCII is shipped whatever its case (lower() of the C collation lowers ASCII only).
    await t.app.db.knex('aaa_log_tacacs_authn').insert(authn(at('06:30'), 'ÉLODIE', 'success'))
    const accented = await logs.tacacsImpactRequests({ ...window, limit: 100, only: { usernames: ['élodie'], prefixes: [] } })
    expect(names(accented.items)).to.include('ÉLODIE')
    // Nothing in reach: no request shipped, the window still counted. RADIUS: device administration only (carol's 3 logins).
    const none = await logs.radiusImpactRequests({ ...window, limit: 100, only: { usernames: [], prefixes: [] } })
    expect(none).to.deep.include({ items: [], truncated: false, window_events: 3 })
    const carol = await logs.radiusImpactRequests({ ...window, limit: 100, only: { usernames: ['carol'], prefixes: [] } })
    expect(carol.items.map((i) => [i.username, i.events])).to.deep.equal([['carol', 3]])
    // Without `only`: no window count.
    expect((await logs.radiusImpactRequests({ ...window, limit: 100 })).window_events).to.equal(null)
    await t.app.db.knex('aaa_log_tacacs_authn').whereIn('username', ['ALICE', 'ÉLODIE']).delete()
  })

  it('answers what it grouped, truncated, when the time budget is spent', async () => {
    const spent = new AbortController()
    spent.abort(new Error('budget'))
    const r = await logs.radiusImpactRequests({ ...window, limit: 100, signal: spent.signal })
    expect(r).to.deep.include({ items: [], truncated: true })
    expect(await logs.tacacsImpactRequests({ ...window, limit: 0 })).to.deep.include({ items: [], truncated: false })
  })
})
