/**
 * Profiling and sessions end to end through the real ingester: FreeRADIUS-format lines written into
 * the folder of `radius.log_directory`, tailed by the aaa-logs ingester, handed to the nac plugin by
 * its record listener, read back through the API. Device-sensor AVPairs type the endpoints (the
 * highest certainty wins, an admin's type stays, evidence adds up across records), groups' placement
 * rules place them (static membership wins), the change reaches the authorization listeners; accounting
 * makes sessions (Start, Interim-Update, Stop, Accounting-On) with the VLAN and ACL of the accept.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createEndpoint, createGroup, freshMac, importCsv, waitFor } from './helpers.js'
import { ACCT_FILE, acctLine, AUTH_FILE, authLine, sensorTlv } from './radius-lines.js'

const CONSUMER = './plugins/nac/test/fixtures/consumer'
const now = () => Math.floor(Date.now() / 1000)


describe('nac: profiling and sessions through the ingester', function () {
  this.timeout(120000)
  let t: TestApp
  let dir: string
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nac-e2e-'))
    t = await startTestApp({ plugins: ['inventory', 'radius', 'aaa-logs', 'nac', CONSUMER], settings: { 'aaa-logs.poll_ms': 20 }, options: { 'radius.log_directory': dir } })
  })
  after(async () => {
    await t?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const auth = (...lines: string[]) => appendFileSync(path.join(dir, AUTH_FILE), lines.join(''))
  const acct = (...lines: string[]) => appendFileSync(path.join(dir, ACCT_FILE), lines.join(''))
  const endpoint = (mac: string) => waitFor(async () => (await t.admin('GET', `/api/v1/nac/endpoints?mac=${mac}`)).body.items[0], `endpoint ${mac}`)
  const typed = (mac: string, type: string) =>
    waitFor(async () => {
      const e = (await t.admin('GET', `/api/v1/nac/endpoints?mac=${mac}`)).body.items[0]
      return e?.device_type === type ? e : null
    }, `${mac} typed ${type}`)
  const changes = async () => (await t.admin('POST', '/api/v1/nac-consumer/changes')).body.changes as any[]

  it('records sightings: the endpoint appears with its NAS, port (NAS-Port-Id) and result', async () => {
    const mac = freshMac()
    auth(authLine({ ts: now(), mac, nas: '10.9.0.1', portId: 'GigabitEthernet1/0/7', portType: 'Ethernet' }))
    const e = await endpoint(mac)
    expect(e).to.include({ last_nas_ip: '10.9.0.1', last_nas_port: 'GigabitEthernet1/0/7', last_auth_result: 'accept' })
    expect(e.first_seen_at).to.be.a('string')
    expect(e.vendor).to.match(/^Cisco/)
  })

  it('profiles from device-sensor attributes: the highest certainty wins, with the rule and the evidence as reason', async () => {
    const win = freshMac()
    const phone = freshMac()
    acct(
      acctLine({ ts: now(), mac: win, status: 'Start', sid: `w-${win}`, avpairs: [sensorTlv('dhcp-option', 60, 'MSFT 5.0'), sensorTlv('dhcp-option', 12, 'PC-042'), sensorTlv('dhcp-option', 55, [1, 3, 6, 15, 31, 33])] }),
      // The CDP rule (90) beats the DHCP one (85).
      acctLine({ ts: now(), mac: phone, status: 'Start', sid: `p-${phone}`, avpairs: [sensorTlv('dhcp-option', 60, 'Cisco Systems, Inc. IP Phone CP-8845'), sensorTlv('cdp-tlv', 6, 'Cisco IP Phone 8845')] }),
    )
    const w = await typed(win, 'windows')
    expect(w).to.include({ device_type_confidence: 70 })
    expect(w.device_type_reason).to.equal('rule "windows-dhcp": dhcp_class_id starts with "MSFT" (seen "MSFT 5.0")')
    const p = await typed(phone, 'ip-phone')
    expect(p.device_type_confidence).to.equal(90)
    expect(p.device_type_reason).to.contain('ip-phone-cdp').and.contain('Cisco IP Phone 8845')
    const ev = await t.app.db.knex('nac_endpoint_evidence').where({ endpoint_id: w.id }).first()
    expect(ev!.evidence).to.deep.equal({ dhcp_class_id: 'MSFT 5.0', dhcp_hostname: 'PC-042', dhcp_parameter_list: '1,3,6,15,31,33' })
  })

  it('adds evidence up across records and re-decides; an admin-set type is never overridden', async () => {
    const mac = freshMac()
    auth(authLine({ ts: now(), mac, avpairs: [sensorTlv('http-tlv', 2, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0')] }))
    await typed(mac, 'linux')
    auth(authLine({ ts: now(), mac, avpairs: [sensorTlv('dhcp-option', 60, 'android-dhcp-13')] }))
    const e = await typed(mac, 'android')
    expect(e.device_type_confidence).to.equal(80)
    // By hand: profiling leaves it.
    const manual = await createEndpoint(t)
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${manual.id}/device-type`, { body: { device_type: 'printer' } })).status).to.equal(200)
    const marker = freshMac()
    auth(authLine({ ts: now(), mac: manual.mac, avpairs: [sensorTlv('dhcp-option', 60, 'MSFT 5.0')] }), authLine({ ts: now(), mac: marker }))
    await endpoint(marker) // the batch after it is in
    const m = (await t.admin('GET', `/api/v1/nac/endpoints/${manual.id}`)).body
    expect(m).to.include({ device_type: 'printer', device_type_confidence: 100, last_auth_result: 'accept' })
  })

  it('applies changed rules to every endpoint on request (not to hand-typed ones), telling the listeners', async () => {
    const mac = freshMac()
    auth(authLine({ ts: now(), mac, avpairs: [sensorTlv('dhcp-option', 60, 'Hewlett-Packard JetDirect')] }))
    const e = await typed(mac, 'printer')
    const rules = (await t.admin('GET', '/api/v1/nac/profiling-rules?search=printer-jetdirect')).body.items
    expect(rules).to.have.length(1)
    expect((await t.admin('PUT', `/api/v1/nac/profiling-rules/${rules[0].id}`, { body: { device_type: 'mfp-printer', certainty: 88 } })).status).to.equal(200)
    // Not before the apply: a rule change waits for new evidence or the apply.
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body.device_type).to.equal('printer')
    const writer = await t.token({ permissions: ['nac.read', 'nac.write'] })
    expect((await t.req('POST', '/api/v1/nac/profiling-rules/apply', { token: writer })).status).to.equal(403)
    expect((await t.req('POST', '/api/v1/nac/profiling-rules/apply')).status).to.equal(401)
    const hand = await createEndpoint(t)
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${hand.id}/device-type`, { body: { device_type: 'camera' } })).status).to.equal(200)
    await changes()
    const r = await t.admin('POST', '/api/v1/nac/profiling-rules/apply')
    expect(r.status, r.text).to.equal(200)
    expect(r.body.changed).to.be.at.least(1)
    expect(r.body.evaluated).to.be.at.least(r.body.changed)
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${e.id}`)).body).to.include({ device_type: 'mfp-printer', device_type_confidence: 88 })
    expect((await changes()).find((c) => c.mac === mac)).to.deep.include({ cause: 'profiling', after: { device_type: 'mfp-printer', endpoint_group_id: null } })
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${hand.id}`)).body).to.include({ device_type: 'camera', device_type_confidence: 100 })
    // Applying again changes nothing.
    expect((await t.admin('POST', '/api/v1/nac/profiling-rules/apply')).body.changed).to.equal(0)
    expect((await t.admin('PUT', `/api/v1/nac/profiling-rules/${rules[0].id}`, { body: { device_type: 'printer', certainty: 85 } })).status).to.equal(200)
    expect((await t.admin('POST', '/api/v1/nac/profiling-rules/apply')).status).to.equal(200)
  })

  it('places profiled endpoints by the groups\' placement rules (static membership wins) and tells the authorization listeners', async () => {
    const phones = await createGroup(t, { placement_device_types: ['ip-phone'] })
    const fixed = await createGroup(t)
    const staticOne = await createEndpoint(t, { endpoint_group_id: fixed.id })
    const placed = freshMac()
    await changes()
    acct(
      acctLine({ ts: now(), mac: placed, status: 'Start', sid: `pl-${placed}`, nas: '10.9.0.5', portId: 'Gi1/0/9', avpairs: [sensorTlv('lldp-tlv', 6, 'Yealink SIP IP Phone T54W')] }),
      acctLine({ ts: now(), mac: staticOne.mac, status: 'Start', sid: `st-${staticOne.mac}`, avpairs: [sensorTlv('cdp-tlv', 6, 'Cisco IP Phone 7975')] }),
    )
    const p = await typed(placed, 'ip-phone')
    expect(p.endpoint_group_id).to.equal(phones.id)
    const s = await typed(staticOne.mac, 'ip-phone')
    expect(s.endpoint_group_id).to.equal(fixed.id)
    const got = await waitFor(async () => {
      const list = await changes()
      return list.length ? list : null
    }, 'authorization changes')
    const mine = got.find((c) => c.mac === placed)
    expect(mine).to.deep.include({ cause: 'profiling', last_nas_ip: '10.9.0.5', last_nas_port: 'Gi1/0/9' })
    expect(mine.before).to.deep.equal({ device_type: null, endpoint_group_id: null })
    expect(mine.after).to.deep.equal({ device_type: 'ip-phone', endpoint_group_id: phones.id })
    expect(got.find((c) => c.mac === staticOne.mac).after).to.deep.equal({ device_type: 'ip-phone', endpoint_group_id: fixed.id })
    // The group stops placing phones: the placed endpoint leaves it, the static one stays; the listeners hear of it.
    expect((await t.admin('PUT', `/api/v1/nac/endpoint-groups/${phones.id}`, { body: { placement_device_types: [] } })).status).to.equal(200)
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${p.id}`)).body.endpoint_group_id).to.equal(null)
    expect((await t.admin('GET', `/api/v1/nac/endpoints/${staticOne.id}`)).body.endpoint_group_id).to.equal(fixed.id)
    const moved = await changes()
    expect(moved.map((c) => [c.mac, c.cause, c.after.endpoint_group_id])).to.deep.include([placed, 'admin', null])
    // An admin's move of an endpoint is an authorization change too.
    expect((await t.admin('PUT', `/api/v1/nac/endpoints/${staticOne.id}`, { body: { endpoint_group_id: null } })).status).to.equal(200)
    expect((await changes()).map((c) => [c.mac, c.cause])).to.deep.equal([[staticOne.mac, 'admin']])
    // So is a group set by the import.
    const g2 = await createGroup(t)
    const imp = await importCsv(t, `mac,endpoint_group\n${staticOne.mac},${g2.name}\n`)
    expect(imp.status, imp.text).to.equal(200)
    expect((await changes()).map((c) => [c.mac, c.cause, c.before.endpoint_group_id, c.after.endpoint_group_id])).to.deep.equal([[staticOne.mac, 'admin', null, g2.id]])
  })

  it('builds sessions from accounting: Start/Interim opens and updates, Stop ends, with the VLAN and ACL of the accept', async () => {
    const mac = freshMac()
    // Started 100 s ago with an interim interval of 60 s: live (stale after 120 s without an update).
    const ts = now() - 100
    const sid = `s-${mac}`
    // Accounting first, then the accept (another file): the session still gets what the accept gave.
    acct(acctLine({ ts, mac, user: 'alice', status: 'Start', sid, portId: 'Gi1/0/3', portType: 'Ethernet', framedIp: '10.20.0.5' }))
    auth(authLine({ ts: ts - 1, mac, user: 'alice', vlan: '120', filterId: 'corp-acl', interim: 60 }))
    const list = (q: string) => t.admin('GET', `/api/v1/nac/sessions?${q}`)
    const started = await waitFor(async () => {
      const s = (await list(`mac=${mac}`)).body.items[0]
      return s?.vlan ? s : null
    }, 'session with VLAN')
    expect(started).to.include({ mac, username: 'alice', nas_ip: '10.9.0.1', nas_port: 'Gi1/0/3', nas_port_type: 'Ethernet', acct_session_id: sid, framed_ip: '10.20.0.5', vlan: '120', acl: 'corp-acl', state: 'live', interim_interval: 60, stopped_at: null })
    acct(acctLine({ ts: ts + 60, mac, user: 'alice', status: 'Interim-Update', sid, time: 60, inOctets: 1000, outOctets: 2000 }))
    await waitFor(async () => (await list(`mac=${mac}`)).body.items[0]?.input_octets === 1000, 'interim')
    acct(acctLine({ ts: ts + 120, mac, user: 'alice', status: 'Stop', sid, time: 120, inOctets: 5, inGiga: 1, outOctets: 4000 }))
    const ended = await waitFor(async () => {
      const s = (await list(`mac=${mac}`)).body.items[0]
      return s?.state === 'ended' ? s : null
    }, 'stop')
    expect(ended).to.include({ input_octets: 2 ** 32 + 5, output_octets: 4000, session_time: 120 })
    expect(ended.started_at).to.equal(new Date(ts * 1000).toISOString())
    expect(ended.stopped_at).to.equal(new Date((ts + 120) * 1000).toISOString())
    // A replayed Interim after the Stop does not reopen it.
    acct(acctLine({ ts: ts + 60, mac, user: 'alice', status: 'Interim-Update', sid, time: 60, inOctets: 1000, outOctets: 2000 }))
    const marker = freshMac()
    acct(acctLine({ ts: now(), mac: marker, status: 'Start', sid: `m-${marker}` }))
    await waitFor(async () => (await list(`mac=${marker}`)).body.items.length === 1, 'marker')
    expect((await list(`mac=${mac}`)).body.items[0]).to.include({ state: 'ended', input_octets: 2 ** 32 + 5 })
  })

  it('marks silent sessions stale, ends a NAS\'s sessions on Accounting-On, filters, authorizes and exports', async () => {
    const old = freshMac()
    const fresh = freshMac()
    const onNas = freshMac()
    const user = `bob-${fresh.replace(/:/g, '')}`
    acct(
      // An interim interval of 60 s seen between two updates, then silence for an hour: stale.
      acctLine({ ts: now() - 3700, mac: old, status: 'Start', sid: `o-${old}` }),
      acctLine({ ts: now() - 3640, mac: old, status: 'Interim-Update', sid: `o-${old}`, time: 60 }),
      acctLine({ ts: now(), mac: fresh, user, status: 'Start', sid: `f-${fresh}` }),
      acctLine({ ts: now() - 10, mac: onNas, status: 'Start', sid: `n-${onNas}`, nas: '10.9.0.2' }),
    )
    acct(acctLine({ ts: now(), mac: onNas, status: 'Accounting-On', nas: '10.9.0.2' }))
    const list = async (q: string) => (await t.admin('GET', `/api/v1/nac/sessions?${q}`)).body
    await waitFor(async () => (await list(`mac=${onNas}&state=ended`)).items.length === 1, 'Accounting-On')
    expect((await list(`mac=${old}`)).items[0]).to.include({ state: 'stale', interim_interval: 60 })
    expect((await list(`mac=${fresh}`)).items[0].state).to.equal('live')
    const stale = await list('state=stale&per_page=100')
    expect(stale.items.map((s: any) => s.mac)).to.include(old).and.not.include(fresh)
    expect((await list(`username=${user.toUpperCase()}`)).items.map((s: any) => s.mac)).to.deep.equal([fresh])
    expect((await list('nas_ip=10.9.0.2')).items.map((s: any) => s.mac)).to.deep.equal([onNas])
    expect((await list(`search=${fresh.slice(9)}`)).items.map((s: any) => s.mac)).to.include(fresh)
    const since = new Date(Date.now() - 60_000).toISOString()
    const active = await list(`active_from=${encodeURIComponent(since)}&per_page=100`)
    expect(active.items.map((s: any) => s.mac)).to.include(fresh).and.include(old)
    const before = new Date((now() - 3000) * 1000).toISOString()
    expect((await list(`active_to=${encodeURIComponent(before)}&per_page=100`)).items.map((s: any) => s.mac)).to.include(old).and.not.include(fresh)
    const page = await list('per_page=2&page=1')
    expect(page).to.include({ per_page: 2, page: 1 })
    expect(page.items).to.have.length(2)
    // Bad filters: clear 422s.
    const bad = await t.admin('GET', '/api/v1/nac/sessions?mac=zz:zz')
    expect([bad.status, bad.body.code, bad.body.field]).to.deep.equal([422, 'MAC_INVALID', 'mac'])
    expect((await t.admin('GET', '/api/v1/nac/sessions?state=zombie')).status).to.equal(422)
    expect((await t.admin('GET', '/api/v1/nac/sessions?active_from=yesterday')).status).to.equal(422)
    // Authorization: sessions need nac.sessions.read.
    const reader = await t.token({ permissions: ['nac.read'] })
    const sessions = await t.token({ permissions: ['nac.sessions.read'] })
    expect((await t.req('GET', '/api/v1/nac/sessions', { token: reader })).status).to.equal(403)
    expect((await t.req('GET', '/api/v1/nac/sessions/export', { token: reader })).status).to.equal(403)
    expect((await t.req('GET', '/api/v1/nac/sessions')).status).to.equal(401)
    expect((await t.req('GET', '/api/v1/nac/sessions/export')).status).to.equal(401)
    const one = (await t.req('GET', `/api/v1/nac/sessions?mac=${fresh}`, { token: sessions })).body.items[0]
    expect((await t.req('GET', `/api/v1/nac/sessions/${one.id}`, { token: sessions })).body).to.deep.equal(one)
    expect((await t.admin('GET', '/api/v1/nac/sessions/00000000-0000-4000-8000-000000000000')).status).to.equal(404)
    // Export: the filtered set, csv and xlsx.
    const download = (q: string) => fetch(`${t.url}/api/v1/nac/sessions/export?${q}`, { headers: { authorization: `Bearer ${sessions}` } })
    const csv = await download(`format=csv&username=${user}`)
    expect(csv.status).to.equal(200)
    expect(csv.headers.get('content-disposition')).to.match(/^attachment; filename="nac-sessions-\d{8}-\d{6}\.csv"$/)
    expect(csv.headers.get('x-service-export-rows')).to.equal('1')
    const text = Buffer.from(await csv.arrayBuffer()).toString('utf8')
    expect(text.startsWith('\uFEFFmac,username,nas_ip,nas_port,nas_port_type,acct_session_id,')).to.equal(true)
    expect(text).to.contain(fresh).and.contain(user).and.contain('live')
    const xlsx = await download('sort_by=mac')
    expect(xlsx.status).to.equal(200)
    expect(xlsx.headers.get('content-type')).to.contain('spreadsheetml')
    expect((await xlsx.arrayBuffer()).byteLength).to.be.greaterThan(1000)
  })
})
