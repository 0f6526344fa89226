/** /api/v1/nac/authorization-profiles: CRUD, the reply each gives, every bad value refused at its field, delete while in use, authorization. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from './helpers.js'
import { createProfile, createRule, policySnapshot, PROFILES, RULES, startPolicyApp } from './policy-helpers.js'

describe('nac: authorization profiles API', () => {
  let t: TestApp
  before(async () => {
    t = await startPolicyApp()
  })
  after(async () => t?.stop())

  it('creates a profile with every attribute and answers the reply it gives, in order', async () => {
    const p = await createProfile(t, {
      vlan: 100,
      acl: 'EMPLOYEE-ACL',
      cisco_acl: ['permit ip any 10.0.0.0 0.255.255.255', 'deny ip any any'],
      cisco_url_redirect: 'https://portal.example.com/guest?x=1',
      cisco_url_redirect_acl: 'REDIRECT-ACL',
      aruba_user_role: 'employee',
      session_timeout: 3600,
      reauthenticate: true,
    })
    expect(p).to.include({ vlan: '100', deny: false, session_timeout: 3600, reauthenticate: true })
    expect(p.reply).to.deep.equal([
      { attribute: 'Tunnel-Type', value: 'VLAN' },
      { attribute: 'Tunnel-Medium-Type', value: 'IEEE-802' },
      { attribute: 'Tunnel-Private-Group-Id', value: '100' },
      { attribute: 'Filter-Id', value: 'EMPLOYEE-ACL' },
      { attribute: 'Cisco-AVPair', value: 'ip:inacl#1=permit ip any 10.0.0.0 0.255.255.255' },
      { attribute: 'Cisco-AVPair', value: 'ip:inacl#2=deny ip any any' },
      { attribute: 'Cisco-AVPair', value: 'url-redirect=https://portal.example.com/guest?x=1' },
      { attribute: 'Cisco-AVPair', value: 'url-redirect-acl=REDIRECT-ACL' },
      { attribute: 'Aruba-User-Role', value: 'employee' },
      { attribute: 'Session-Timeout', value: '3600' },
      { attribute: 'Termination-Action', value: 'RADIUS-Request' },
    ])
    const named = await createProfile(t, { vlan: 'GUESTS' })
    expect(named.reply.map((a: any) => a.value)).to.deep.equal(['VLAN', 'IEEE-802', 'GUESTS'])
    expect((await t.admin('GET', `${PROFILES}/${p.id}`)).body).to.deep.equal(p)
    expect((await auditRows(t, p.id)).map((a) => a.action)).to.deep.equal(['nac_authorization_profile.create'])
  })

  it('portal_redirect: off by default; on, the url-redirect is marked as carrying the signed session and the platform key is made once; refused without a short enough URL or with deny', async () => {
    const plain = await createProfile(t, { cisco_url_redirect: 'https://portal.example.com/lobby', cisco_url_redirect_acl: 'R' })
    expect(plain.portal_redirect).to.equal(false)
    expect(plain.reply.find((a: any) => a.value.startsWith('url-redirect='))).to.deep.equal({ attribute: 'Cisco-AVPair', value: 'url-redirect=https://portal.example.com/lobby' })
    const key = async () => (await t.app.db.knex('settings').where({ key: 'nac.portal_redirect_key' }).first('value'))?.value ?? null
    expect(await key(), 'no key before a portal profile').to.equal(null)
    const before = await policySnapshot(t)
    expectError(await t.admin('POST', PROFILES, { body: { name: uniq('p'), portal_redirect: true } }), 422, 'VALIDATION_FAILED', 'portal_redirect')
    expectError(await t.admin('POST', PROFILES, { body: { name: uniq('p'), portal_redirect: true, cisco_url_redirect: `https://portal.example.com/${'x'.repeat(80)}`, cisco_url_redirect_acl: 'R' } }), 422, 'VALIDATION_FAILED', 'cisco_url_redirect')
    expectError(await t.admin('POST', PROFILES, { body: { name: uniq('p'), deny: true, portal_redirect: true, cisco_url_redirect: null } }), 422, 'VALIDATION_FAILED', 'portal_redirect')
    expectError(await t.admin('PUT', `${PROFILES}/${plain.id}`, { body: { deny: true, cisco_url_redirect: null, cisco_url_redirect_acl: null, portal_redirect: true } }), 422, 'VALIDATION_FAILED', 'portal_redirect')
    expect(await policySnapshot(t)).to.equal(before)
    expect(await key(), 'a refused write makes no key').to.equal(null)

    const on = await t.admin('PUT', `${PROFILES}/${plain.id}`, { body: { portal_redirect: true } })
    expect(on.status, on.text).to.equal(200)
    expect(on.body.portal_redirect).to.equal(true)
    expect(on.body.reply.find((a: any) => a.value.startsWith('url-redirect='))).to.deep.equal({ attribute: 'Cisco-AVPair', value: 'url-redirect=https://portal.example.com/lobby', portal_session: true })
    const made = await key()
    expect(made, 'sealed at rest').to.have.property('sealed')
    // A second portal profile keeps the key; the key is shown to nobody.
    await createProfile(t, { cisco_url_redirect: 'https://portal.example.com/lobby?site=2', cisco_url_redirect_acl: 'R', portal_redirect: true })
    expect(await key()).to.deep.equal(made)
    expect(JSON.stringify((await t.admin('GET', '/api/v1/settings/nac.portal_redirect_key')).body)).to.not.match(/[A-Za-z0-9_-]{43}/)
    // The URL cannot go while the redirection needs it.
    expectError(await t.admin('PUT', `${PROFILES}/${plain.id}`, { body: { cisco_url_redirect: null, cisco_url_redirect_acl: null } }), 422, 'VALIDATION_FAILED', 'portal_redirect')
    const off = await t.admin('PUT', `${PROFILES}/${plain.id}`, { body: { portal_redirect: false } })
    expect(off.body.reply.find((a: any) => a.value.startsWith('url-redirect='))).to.deep.equal({ attribute: 'Cisco-AVPair', value: 'url-redirect=https://portal.example.com/lobby' })
  })

  it('changes partially, clears with null, and audits before and after', async () => {
    const p = await createProfile(t, { vlan: '20', acl: 'A' })
    const u = await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { acl: null, vlan: 4094, description: 'x' } })
    expect(u.status, u.text).to.equal(200)
    expect(u.body).to.include({ acl: null, vlan: '4094', description: 'x' })
    const d = await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { vlan: null, deny: true } })
    expect(d.body).to.include({ deny: true, vlan: null })
    expect(d.body.reply).to.deep.equal([])
    const audit = await auditRows(t, p.id)
    expect(audit.map((a) => a.action)).to.deep.equal(['nac_authorization_profile.create', 'nac_authorization_profile.update', 'nac_authorization_profile.update'])
    expect(audit[1].before.acl).to.equal('A')
  })

  it('refuses every unsafe or meaningless value with 422 at its field and writes nothing', async () => {
    const taken = await createProfile(t)
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ vlan: 0 }, 422, 'VLAN_INVALID', 'vlan'],
      [{ vlan: 4095 }, 422, 'VLAN_INVALID', 'vlan'],
      [{ vlan: '0100' }, 422, 'VLAN_INVALID', 'vlan'],
      [{ vlan: 'bad name' }, 422, 'VLAN_INVALID', 'vlan'],
      [{ vlan: '%{User-Name}' }, 422, 'VLAN_INVALID', 'vlan'],
      [{ acl: 'a"b' }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ acl: "a'b" }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ acl: 'a\\b' }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ acl: 'a\nb' }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ acl: 'a\u0085b' }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ aruba_user_role: '%{control:Cleartext-Password}' }, 422, 'VALIDATION_FAILED', 'aruba_user_role'],
      [{ aruba_user_role: '${confdir}' }, 422, 'VALIDATION_FAILED', 'aruba_user_role'],
      [{ aruba_user_role: '$ENV{HOME}' }, 422, 'VALIDATION_FAILED', 'aruba_user_role'],
      [{ acl: 'x}' }, 422, 'VALIDATION_FAILED', 'acl'],
      [{ cisco_acl: ['permit ip any any', 'deny {'] }, 422, 'VALIDATION_FAILED', 'cisco_acl[1]'],
      [{ cisco_url_redirect: 'ftp://x', cisco_url_redirect_acl: 'R' }, 422, 'VALIDATION_FAILED', 'cisco_url_redirect'],
      [{ cisco_url_redirect: 'https://x' }, 422, 'VALIDATION_FAILED', 'cisco_url_redirect_acl'],
      [{ cisco_url_redirect_acl: 'R' }, 422, 'VALIDATION_FAILED', 'cisco_url_redirect'],
      [{ reauthenticate: true }, 422, 'VALIDATION_FAILED', 'reauthenticate'],
      [{ deny: true, vlan: 10 }, 422, 'VALIDATION_FAILED', 'vlan'],
      [{ session_timeout: 10 }, 422, 'VALIDATION_FAILED', 'session_timeout'],
      [{ colour: 'red' }, 422, 'UNKNOWN_FIELD', 'colour'],
      [{ name: 'with space' }, 422, 'VALIDATION_FAILED', 'name'],
      [{ name: taken.name.toUpperCase() }, 409, 'AUTHORIZATION_PROFILE_NAME_TAKEN', 'name'],
    ]
    const before = await policySnapshot(t)
    for (const [body, status, code, field] of cases) expectError(await t.admin('POST', PROFILES, { body: { name: uniq('bad'), ...body } }), status, code, field)
    const r = await t.admin('POST', PROFILES, { body: { name: uniq('x'), acl: '%{User-Password}' } })
    expect(r.body.detail).to.include('%')
    // A change that would make the whole wrong names the field: deny over a profile with a VLAN.
    const p = await createProfile(t, { vlan: 5 })
    const mid = await policySnapshot(t)
    expectError(await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { deny: true } }), 422, 'VALIDATION_FAILED', 'deny')
    expectError(await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { acl: 'a"' } }), 422, 'VALIDATION_FAILED', 'acl')
    expectError(await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { name: taken.name } }), 409, 'AUTHORIZATION_PROFILE_NAME_TAKEN', 'name')
    expect(await policySnapshot(t)).to.equal(mid)
    expect(before).to.not.equal(mid)
  })

  it('refuses control, line-break and direction characters in every value, as names are refused, and writes nothing', async () => {
    // A bidi override makes `EMPLOYEE\u202ELCA-TSEUG` read as another ACL on every screen and in the audit trail.
    const chars = ['\u202E', '\u202A', '\u2066', '\u2069', '\u200E', '\u200F', '\u061C', '\u2028', '\u0085']
    const before = await policySnapshot(t)
    for (const c of chars) {
      const v = `STAFF${c}ACL`
      const cases: [Record<string, unknown>, string][] = [
        [{ acl: v }, 'acl'],
        [{ cisco_acl: ['permit ip any any', `deny ip any host 10.0.0.1${c}`] }, 'cisco_acl[1]'],
        [{ cisco_url_redirect: `https://portal.example.com/${c}x`, cisco_url_redirect_acl: 'R' }, 'cisco_url_redirect'],
        [{ cisco_url_redirect: 'https://portal.example.com/', cisco_url_redirect_acl: v }, 'cisco_url_redirect_acl'],
        [{ aruba_user_role: v }, 'aruba_user_role'],
      ]
      for (const [body, field] of cases) {
        const r = await t.admin('POST', PROFILES, { body: { name: uniq('bidi'), ...body } })
        expectError(r, 422, 'VALIDATION_FAILED', field)
        expect(r.body.detail, JSON.stringify(c)).to.match(/direction/)
      }
      // The rule values written into FreeRADIUS beside them: device types and certificate values.
      const profile = (await t.admin('GET', `${PROFILES}?per_page=1`)).body.items[0]
      const rules: [Record<string, unknown>, string][] = [
        [{ type: 'device_type', device_types: ['printer', v] }, 'conditions[0].device_types[1]'],
        [{ type: 'certificate', field: 'san_dns', values: [`host${c}.example.com`] }, 'conditions[0].values[0]'],
      ]
      for (const [condition, field] of rules) {
        expectError(await t.admin('POST', RULES, { body: { name: uniq('bidi'), authorization_profile_id: profile.id, conditions: [condition] } }), 422, 'VALIDATION_FAILED', field)
      }
      // And profiling's compared text, which an operator reads in the rule list.
      const pr = await t.admin('POST', '/api/v1/nac/profiling-rules', { body: { name: uniq('bidi'), device_type: 'printer', certainty: 50, conditions: [{ attribute: 'dhcp_class_id', operator: 'equals', value: `MSFT${c}5.0` }] } })
      expectError(pr, 422, 'VALIDATION_FAILED', 'conditions[0].value')
    }
    expect(await policySnapshot(t)).to.equal(before)
    const p = await createProfile(t, { acl: 'EMPLOYEE-ACL' })
    expectError(await t.admin('PUT', `${PROFILES}/${p.id}`, { body: { acl: 'EMPLOYEE\u202ELCA' } }), 422, 'VALIDATION_FAILED', 'acl')
    expect((await t.admin('GET', `${PROFILES}/${p.id}`)).body.acl).to.equal('EMPLOYEE-ACL')
    // Letters of every script stay allowed.
    expect((await createProfile(t, { aruba_user_role: 'сотрудник', acl: 'موظف' })).aruba_user_role).to.equal('сотрудник')
  })

  it('lists paginated, searches and filters', async () => {
    const tag = uniq('lst')
    await createProfile(t, { name: `${tag}-a`, deny: true })
    await createProfile(t, { name: `${tag}-b`, vlan: 7 })
    const all = await t.admin('GET', `${PROFILES}?search=${tag}&per_page=1`)
    expect(all.body).to.include({ total_by_filter: 2, per_page: 1, pages: 2 })
    expect(all.body.items[0].name).to.equal(`${tag}-a`)
    const deny = await t.admin('GET', `${PROFILES}?search=${tag}&deny=true`)
    expect(deny.body.items.map((p: any) => p.name)).to.deep.equal([`${tag}-a`])
  })

  it('refuses to delete a profile a rule gives (409 naming the rule), then deletes it', async () => {
    const p = await createProfile(t, { vlan: 30 })
    const rule = await createRule(t, { authorization_profile_id: p.id })
    // Asked before the delete (the console's confirmation lists it): the rule, blocking.
    expect((await t.admin('GET', `${PROFILES}/${p.id}/references`)).body).to.deep.equal({ blocking: [{ type: 'nac_policy_rule', id: rule.id, name: rule.name }], auto_clearing: [] })
    expectError(await t.admin('GET', `${PROFILES}/${randomUUID()}/references`), 404, 'NOT_FOUND', 'profile_id')
    const r = await t.admin('DELETE', `${PROFILES}/${p.id}`)
    expectError(r, 409, 'PROFILE_IN_USE', 'profile_id')
    expect(r.body.detail).to.include(rule.name)
    expect((await t.admin('DELETE', `/api/v1/nac/policy/rules/${rule.id}`)).status).to.equal(204)
    expect((await t.admin('DELETE', `${PROFILES}/${p.id}`)).status).to.equal(204)
    expectError(await t.admin('GET', `${PROFILES}/${p.id}`), 404, 'NOT_FOUND', 'profile_id')
    expectError(await t.admin('DELETE', `${PROFILES}/${randomUUID()}`), 404, 'NOT_FOUND', 'profile_id')
    // The default rule's own profile, too.
    const def = (await t.admin('GET', '/api/v1/nac/policy/rules')).body.find((x: any) => x.is_default)
    expectError(await t.admin('DELETE', `${PROFILES}/${def.authorization_profile_id}`), 409, 'PROFILE_IN_USE', 'profile_id')
  })

  it('reads with nac.policy.read, writes with nac.policy.write, 401 without a token', async () => {
    const reader = await t.token({ permissions: ['nac.policy.read'] })
    const writer = await t.token({ permissions: ['nac.policy.write'] })
    const endpoints = await t.token({ permissions: ['nac.read', 'nac.write'] })
    const p = await createProfile(t)
    expect((await t.req('GET', PROFILES, { token: endpoints })).status).to.equal(403)
    expect((await t.req('GET', `${PROFILES}/${p.id}`, { token: reader })).status).to.equal(200)
    expect((await t.req('POST', PROFILES, { token: reader, body: { name: uniq('r') } })).status).to.equal(403)
    expect((await t.req('PUT', `${PROFILES}/${p.id}`, { token: reader, body: {} })).status).to.equal(403)
    expect((await t.req('DELETE', `${PROFILES}/${p.id}`, { token: reader })).status).to.equal(403)
    expect((await t.req('POST', PROFILES, { token: writer, body: { name: uniq('w') } })).status).to.equal(201)
    expect((await t.req('GET', PROFILES)).status).to.equal(401)
    expect((await t.req('DELETE', `${PROFILES}/${p.id}`)).status).to.equal(401)
  })
})
