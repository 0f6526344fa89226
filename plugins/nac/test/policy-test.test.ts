/**
 * POST /api/v1/nac/policy/test: a simulated request resolved from the database (user groups,
 * endpoint group and device type by MAC, the switch's device groups) and evaluated on the compiled
 * policy; bad input refused; authorization. With the radius plugin loaded, so the policy source's
 * registration is exercised at boot.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { created } from '../../../test/kit/expect.js'
import { createEndpoint, createGroup, expectError, freshMac, uniq } from './helpers.js'
import { createDeviceGroup, createProfile, createRule, createUserGroup, PROFILES, RULES, TEST } from './policy-helpers.js'

const CONSUMER = './plugins/nac/test/fixtures/consumer'
const PASSWORD = 'Nac-Policy-Test-123'

describe('nac: policy test', () => {
  let t: TestApp
  let staff: any, printers: any, campus: any, device: any, user: any, olga: any, printer: any
  let vlanStaff: any, vlanPrinters: any, vlanCert: any, guest: any
  let rStaff: any, rPrinters: any, rCert: any, rNight: any

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'radius', 'nac', CONSUMER] })
    staff = await createUserGroup(t)
    printers = await createGroup(t)
    const top = await createDeviceGroup(t)
    campus = await createDeviceGroup(t, { parent_id: top.id })
    device = await created(t, '/api/v1/devices', { name: uniq('sw'), address: '10.77.0.0/24', radius_secret: 'rad-secret-1', device_group_id: campus.id })
    user = await created(t, '/api/v1/users', { username: uniq('alice'), password: PASSWORD, network_login: true, group_ids: [staff.id] })
    olga = await created(t, '/api/v1/users', { username: uniq('olga'), password: PASSWORD, network_login: true })
    printer = await createEndpoint(t, { endpoint_group_id: printers.id })
    ;[vlanStaff, vlanPrinters, vlanCert, guest] = await Promise.all([
      createProfile(t, { vlan: 100 }),
      createProfile(t, { vlan: 'PRINTERS', acl: 'PRN' }),
      createProfile(t, { vlan: 300 }),
      createProfile(t, { vlan: 999 }),
    ])
    rNight = await createRule(t, { authorization_profile_id: vlanStaff.id, conditions: [{ type: 'time_window', days: ['sun'], start: '01:00', end: '02:00' }], enabled: false })
    rCert = await createRule(t, { authorization_profile_id: vlanCert.id, conditions: [{ type: 'method', methods: ['eap-tls'] }, { type: 'certificate', field: 'issuer_cn', values: ['Corp CA'] }] })
    rStaff = await createRule(t, {
      authorization_profile_id: vlanStaff.id,
      conditions: [{ type: 'method', methods: ['peap', 'eap-tls'] }, { type: 'user_group', group_ids: [staff.id] }, { type: 'device_group', group_ids: [top.id] }],
    })
    rPrinters = await createRule(t, { authorization_profile_id: vlanPrinters.id, conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [printers.id] }] })
    const def = (await t.admin('GET', RULES)).body.find((r: any) => r.is_default)
    expect((await t.admin('PUT', `${RULES}/${def.id}`, { body: { authorization_profile_id: guest.id } })).status).to.equal(200)
  })
  after(async () => t?.stop())

  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body })
    expect(r.status, r.text).to.equal(200)
    return r.body
  }

  it('PEAP: a staff user on a switch below the group gets the staff VLAN; the trace explains the rules before', async () => {
    const r = await test({ method: 'peap', username: user.username, nas: '10.77.0.9', mac: freshMac() })
    expect(r.decision).to.equal('accept')
    expect(r.rule).to.include({ id: rStaff.id, name: rStaff.name, is_default: false })
    expect(r.authorization_profile).to.deep.equal({ id: vlanStaff.id, name: vlanStaff.name, deny: false })
    expect(r.reply).to.deep.equal(vlanStaff.reply)
    // The disabled rule is not considered.
    expect(r.trace.map((s: any) => s.rule_id)).to.deep.equal([rCert.id, rStaff.id])
    expect(r.trace[0]).to.include({ matched: false, reason: 'method is peap, not eap-tls' })
    expect(r.trace[0].failed_condition).to.deep.equal({ type: 'method', methods: ['eap-tls'] })
    expect(r.resolved.user).to.deep.equal({ id: user.id, username: user.username })
    expect(r.resolved.user_groups).to.deep.equal([{ id: staff.id, name: staff.name }])
    expect(r.resolved.device).to.deep.equal({ id: device.id, name: device.name })
    expect(r.resolved.device_groups.map((g: any) => g.id)).to.include(campus.id)
    expect(r.resolved.endpoint).to.equal(null)
    // By device id too.
    expect((await test({ method: 'peap', username: user.username, nas: device.id })).rule.id).to.equal(rStaff.id)
  })

  it('PEAP: the username is compared exactly; an unknown user is refused before the policy (unknown_user), as the daemon does', async () => {
    for (const username of [user.username.toUpperCase(), 'nobody-here', undefined]) {
      const r = await test({ method: 'peap', username, nas: '10.77.0.9' })
      expect(r).to.deep.include({ decision: 'reject', rule: null, authorization_profile: null, reply: [], trace: [] })
      expect(r.refused.reason).to.equal('unknown_user')
      expect(r.resolved.user).to.equal(null)
    }
    // A user in no rule's group falls to the default.
    const r = await test({ method: 'peap', username: olga.username, nas: '10.77.0.9' })
    expect(r.refused).to.equal(null)
    expect(r.rule.is_default).to.equal(true)
    expect(r.authorization_profile.id).to.equal(guest.id)
    expect(r.trace.find((s: any) => s.rule_id === rStaff.id).failed_condition.type).to.equal('user_group')
  })

  it('MAB: a known MAC in any notation lands in its group\'s VLAN, an unknown MAC in the default', async () => {
    const dotted = printer.mac.replace(/:/g, '').replace(/(....)(....)(....)/, '$1.$2.$3').toUpperCase()
    const r = await test({ method: 'mab', mac: dotted })
    expect(r.rule.id).to.equal(rPrinters.id)
    expect(r.reply.map((a: any) => a.value)).to.deep.equal(['VLAN', 'IEEE-802', 'PRINTERS', 'PRN'])
    expect(r.resolved).to.include({ mac: printer.mac })
    expect(r.resolved.endpoint_groups).to.deep.equal([{ id: printers.id, name: printers.name }])
    const u = await test({ method: 'mab', mac: freshMac() })
    expect(u.rule.is_default).to.equal(true)
    expect(u.trace.find((s: any) => s.rule_id === rPrinters.id).reason).to.match(/is in none of the endpoint groups/)
  })

  it('EAP-TLS: the certificate issuer decides, case-insensitively', async () => {
    const r = await test({ method: 'eap-tls', username: user.username, certificate: { issuer_cn: 'corp ca' } })
    expect(r.rule.id).to.equal(rCert.id)
    const other = await test({ method: 'eap-tls', username: user.username, nas: '10.77.0.9', certificate: { issuer_cn: 'Evil CA' } })
    expect(other.rule.id).to.equal(rStaff.id)
    expect(other.trace[0]).to.include({ reason: 'certificate issuer_cn is "Evil CA", not "Corp CA"' })
  })

  it('reads the device type profiling set, and the time given for time windows', async () => {
    const e = await createEndpoint(t)
    const set = await t.admin('POST', '/api/v1/nac-consumer/call', { body: { method: 'setDeviceType', args: [e.id, { device_type: 'ip-phone', confidence: 90, reason: 'test' }] } })
    expect(set.status, set.text).to.equal(200)
    const phones = await createProfile(t, { vlan: 400 })
    const r1 = await createRule(t, { authorization_profile_id: phones.id, conditions: [{ type: 'device_type', device_types: ['ip-phone'] }], position: 0 })
    const r = await test({ method: 'mab', mac: e.mac })
    expect(r.rule.id).to.equal(r1.id)
    expect(r.resolved.endpoint).to.deep.equal({ id: e.id, mac: e.mac, device_type: 'ip-phone' })
    // A Sunday 01:30 local time matches the (now enabled) night rule placed first.
    expect((await t.admin('PUT', `${RULES}/${rNight.id}`, { body: { enabled: true, position: 0 } })).status).to.equal(200)
    const sunday = new Date(2026, 10, 29, 1, 30)
    const n = await test({ method: 'peap', username: olga.username, time: sunday.toISOString() })
    expect(n.rule.id).to.equal(rNight.id)
    expect(n.resolved.local_time).to.deep.equal({ day: 0, minute: 90 })
    const monday = await test({ method: 'peap', username: olga.username, time: new Date(2026, 10, 30, 1, 30).toISOString() })
    expect(monday.trace[0]).to.include({ rule_id: rNight.id, reason: 'Mon 01:30 is outside Sun 01:00-02:00' })
    await t.admin('PUT', `${RULES}/${rNight.id}`, { body: { enabled: false } })
    await t.admin('DELETE', `${RULES}/${r1.id}`)
  })

  it('answers what the compiled policy (the renderer\'s input) decides', async () => {
    const c = await t.admin('POST', '/api/v1/nac-consumer/call', { body: { method: 'compilePolicy' } })
    const compiled = c.body.result
    expect(compiled.rules.map((r: any) => r.id)).to.deep.equal([rCert.id, rStaff.id, rPrinters.id])
    expect(compiled.default.authorization).to.deep.include({ profile_id: guest.id, deny: false })
    expect(compiled.rules[1].conditions[1]).to.deep.equal({ type: 'user_group', groups: [{ id: staff.id, name: staff.name }] })
  })

  it('sees every change at once: rules, profiles and group renames (the cached compiled policy follows the version)', async () => {
    const mac = printer.mac
    expect((await test({ method: 'mab', mac })).rule.id).to.equal(rPrinters.id)
    await t.admin('PUT', `${PROFILES}/${vlanPrinters.id}`, { body: { vlan: 555, acl: null } })
    expect((await test({ method: 'mab', mac })).reply.map((a: any) => a.value)).to.deep.equal(['VLAN', 'IEEE-802', '555'])
    const renamed = `${printers.name}-renamed`
    await t.admin('PUT', `/api/v1/nac/endpoint-groups/${printers.id}`, { body: { name: renamed } })
    const other = await test({ method: 'mab', mac: freshMac() })
    expect(other.trace.find((x: any) => x.rule_id === rPrinters.id).failed_condition.groups).to.deep.equal([{ id: printers.id, name: renamed }])
    const ugName = `${staff.name}-renamed`
    expect((await t.admin('PUT', `/api/v1/user-groups/${staff.id}`, { body: { name: ugName } })).status).to.equal(200)
    const p = await test({ method: 'peap', username: olga.username })
    expect(p.trace.find((x: any) => x.rule_id === rStaff.id).failed_condition.groups).to.deep.equal([{ id: staff.id, name: ugName }])
    await t.admin('PUT', `${RULES}/${rPrinters.id}`, { body: { enabled: false } })
    expect((await test({ method: 'mab', mac })).rule.is_default).to.equal(true)
    await t.admin('PUT', `${RULES}/${rPrinters.id}`, { body: { enabled: true } })
    await t.admin('PUT', `${PROFILES}/${vlanPrinters.id}`, { body: { vlan: 'PRINTERS', acl: 'PRN' } })
  })

  it('refuses before the policy who the daemon refuses: PEAP and EAP-TLS account states, each with the log\'s reason; a device certificate has no user; an expiry caps Session-Timeout', async () => {
    const make = async (username: string, body: Record<string, unknown>, change?: Record<string, unknown>) => {
      const u = await created(t, '/api/v1/users', { username, network_login: true, group_ids: [staff.id], ...body })
      if (change) expect((await t.admin('PUT', `/api/v1/users/${u.id}`, { body: change })).status).to.equal(200)
      return u
    }
    const at = '2030-06-03T10:00:00Z'
    const dis = await make(uniq('dis'), { password: PASSWORD }, { enabled: false })
    const off = await make(uniq('off'), { password: PASSWORD }, { network_login: false })
    const old = await make(uniq('old'), { password: PASSWORD, expires_at: '2030-06-01T00:00:00Z' })
    const nopw = await make(uniq('nopw'), {})
    const soon = await make(uniq('soon'), { password: PASSWORD, expires_at: '2030-06-03T10:30:00Z' })
    const cases: [string, string, string | null][] = [
      ['peap', dis.username, 'disabled'], ['peap', off.username, 'network_login_off'], ['peap', old.username, 'expired'], ['peap', nopw.username, 'no_network_password'],
      ['eap-tls', dis.username.toUpperCase(), 'disabled'], ['eap-tls', off.username, 'network_login_off'], ['eap-tls', old.username, 'expired'], ['eap-tls', nopw.username, null],
    ]
    for (const [method, username, reason] of cases) {
      const r = await test({ method, username, nas: '10.77.0.9', time: at })
      expect(r.refused?.reason ?? null, `${method} ${username}`).to.equal(reason)
      if (reason) expect(r, `${method} ${username}`).to.deep.include({ decision: 'reject', rule: null, reply: [] })
      else expect(r.rule.id, `${method} ${username}`).to.equal(rStaff.id)
    }
    // EAP-TLS: a CN in any case names its user (and brings the user's groups); a CN naming no user is a device certificate.
    const tls = await test({ method: 'eap-tls', username: user.username.toUpperCase(), nas: '10.77.0.9' })
    expect(tls.resolved.user).to.deep.equal({ id: user.id, username: user.username })
    expect(tls.rule.id).to.equal(rStaff.id)
    const device = await test({ method: 'eap-tls', username: 'printer-7.example', nas: '10.77.0.9' })
    expect(device).to.deep.include({ refused: null, decision: 'accept' })
    expect(device.resolved.user).to.equal(null)
    expect(device.rule.is_default).to.equal(true)
    expect(device.trace.find((s: any) => s.rule_id === rStaff.id).reason).to.match(/^no user \(eap-tls\)/)
    // 30 minutes left: Session-Timeout 1800, added after the profile's attributes (FreeRADIUS's expiration module does the same).
    for (const method of ['peap', 'eap-tls']) {
      const r = await test({ method, username: soon.username, nas: '10.77.0.9', time: at })
      expect(r.reply, method).to.deep.equal([...vlanStaff.reply, { attribute: 'Session-Timeout', value: '1800' }])
    }
  })

  it('refuses bad input with 422 at the field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ method: 'pap' }, 'VALIDATION_FAILED', 'method'],
      [{}, 'FIELD_REQUIRED', 'method'],
      [{ method: 'mab', mac: 'zz:zz' }, 'MAC_INVALID', 'mac'],
      [{ method: 'mab', mac: 'ff:ff:ff:ff:ff:ff' }, 'MAC_GROUP_ADDRESS', 'mac'],
      [{ method: 'mab' }, 'VALIDATION_FAILED', 'mac'],
      [{ method: 'mab', mac: freshMac(), username: 'u' }, 'VALIDATION_FAILED', 'username'],
      [{ method: 'peap', certificate: { issuer_cn: 'x' } }, 'VALIDATION_FAILED', 'certificate'],
      [{ method: 'peap', nas: '192.0.2.77' }, 'REFERENCE_NOT_FOUND', 'nas'],
      [{ method: 'peap', nas: randomUUID() }, 'REFERENCE_NOT_FOUND', 'nas'],
      [{ method: 'peap', nas: 'switch-1' }, 'REFERENCE_NOT_FOUND', 'nas'],
      [{ method: 'peap', nas_port_type: 'Copper' }, 'VALIDATION_FAILED', 'nas_port_type'],
      [{ method: 'peap', time: 'yesterday' }, 'VALIDATION_FAILED', 'time'],
      [{ method: 'peap', username: 'a\nb' }, 'VALIDATION_FAILED', 'username'],
      [{ method: 'eap-tls', certificate: { serial: '1' } }, 'UNKNOWN_FIELD', 'certificate.serial'],
    ]
    for (const [body, code, field] of cases) expectError(await t.admin('POST', TEST, { body }), 422, code, field)
  })

  it('needs nac.policy.read (403), and a token (401)', async () => {
    const endpoints = await t.token({ permissions: ['nac.read', 'nac.write'] })
    const reader = await t.token({ permissions: ['nac.policy.read'] })
    expect((await t.req('POST', TEST, { token: endpoints, body: { method: 'peap' } })).status).to.equal(403)
    expect((await t.req('POST', TEST, { token: reader, body: { method: 'peap' } })).status).to.equal(200)
    expect((await t.req('POST', TEST, { body: { method: 'peap' } })).status).to.equal(401)
  })
})
