/**
 * POST /nac/policy/impact through the real ingester: FreeRADIUS-format NAC lines (as the rendered tree
 * logs them: sdk/logs/freeradius.ts) written into radius.log_directory and ingested by aaa-logs, a
 * deploy keeping the NAC inputs in the FreeRADIUS release, an edit, and the impact of deploying it:
 * what flips, what gets other attributes, what cannot be replayed (named), each change's policy-test
 * body answering what the change says; nothing differs once the edit is deployed or put back.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { activeReleaseDir } from '../../../sdk/index.js'
import { created, uniq } from '../../../test/kit/expect.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createEndpoint, createGroup, freshMac, waitFor } from './helpers.js'
import { createDeviceGroup, createProfile, createRule, createUserGroup, RULES, TEST } from './policy-helpers.js'

const IMPACT = '/api/v1/nac/policy/impact'
const PASSWORD = 'Impact-Secret-123-xyz'
const AUTH_FILE = `radius-auth-${new Date().toISOString().slice(0, 10)}.jsonl`

/** One auth line as the tree's linelog writes it for 802.1X and MAB (control: the NAC method, user, rule, reject reason). */
function nacLine(o: { ts: number; method: 'peap' | 'eap-tls' | 'mab'; mac: string; nas: string; user?: string; result: 'accept' | 'reject'; rule?: string; reason?: string }): string {
  const control: Record<string, string> = { 'Auth-Type': o.method === 'mab' ? 'Accept' : 'eap', 'Portcullis-NAC-Method': o.method }
  if (o.user) control['Portcullis-NAC-User'] = o.user
  if (o.rule) control['Tmp-String-0'] = o.rule
  if (o.reason) control['Tmp-String-2'] = o.reason
  const request: Record<string, string> = {
    'User-Name': o.method === 'mab' ? o.mac.replace(/:/g, '') : 'anonymous',
    'Calling-Station-Id': o.mac.toUpperCase().replace(/:/g, '-'),
    'NAS-Port-Type': 'Ethernet',
    ...(o.method === 'mab' ? { 'Service-Type': 'Call-Check' } : { 'EAP-Type': o.method === 'peap' ? 'PEAP' : 'EAP-TLS' }),
  }
  return JSON.stringify({ v: 1, kind: 'auth', ts: String(o.ts), us: '0', src: o.nas, client: 'sw', result: o.result, request, control, replies: [] }) + '\n'
}

describe('nac: change impact (POST /nac/policy/impact) over ingested logs', function () {
  this.timeout(180_000)
  let t: TestApp
  let dir: string
  let device: any, ug: any, printers: any, printer: any, alice: any, carol: any, vlan10: any, vlan20: any, rPrinters: any, rStaff: any
  const nas = '10.66.0.7'
  let firstDeploy: string
  const now = Math.floor(Date.now() / 1000)

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nac-impact-'))
    t = await startTestApp({ plugins: ['inventory', 'radius', 'aaa-logs', 'aaa-policy', 'nac'], settings: { 'aaa-logs.poll_ms': 20 }, options: { 'radius.log_directory': dir } })
    ug = await createUserGroup(t)
    const dg = await createDeviceGroup(t)
    device = await created(t, '/api/v1/devices', { name: uniq('sw'), address: '10.66.0.0/24', radius_secret: 'impact-secret-1', device_group_id: dg.id })
    alice = await created(t, '/api/v1/users', { username: uniq('alice'), password: PASSWORD, network_login: true, group_ids: [ug.id] })
    carol = await created(t, '/api/v1/users', { username: uniq('carol'), password: PASSWORD, network_login: true, group_ids: [ug.id] })
    printers = await createGroup(t)
    printer = await createEndpoint(t, { endpoint_group_id: printers.id })
    ;[vlan10, vlan20] = await Promise.all([createProfile(t, { vlan: 10 }), createProfile(t, { vlan: 20 })])
    rPrinters = await createRule(t, { authorization_profile_id: vlan10.id, conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [printers.id] }] })
    rStaff = await createRule(t, { authorization_profile_id: vlan20.id, conditions: [{ type: 'method', methods: ['peap'] }, { type: 'user_group', group_ids: [ug.id] }] })
    // Nothing deployed yet: the policy test cannot answer against it.
    const none = await t.admin('POST', TEST, { body: { method: 'mab', mac: printer.mac, against: 'deployed' } })
    expect(none.status, none.text).to.equal(409)
    expect(none.body).to.include({ code: 'POLICY_TEST_NOT_DEPLOYED', field: 'against' })
    const deployed = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'impact base' } })
    expect(deployed.status, deployed.text).to.equal(201)
    firstDeploy = deployed.body.deploys[0].id
    const lines = [
      // The printer by MAB, three times: VLAN 10 by rPrinters.
      ...[1, 2, 3].map((i) => nacLine({ ts: now - 600 * i, method: 'mab', mac: printer.mac, nas, result: 'accept', rule: rPrinters.name })),
      // alice by PEAP, twice, staff VLAN 20.
      ...[1, 2].map((i) => nacLine({ ts: now - 700 * i, method: 'peap', mac: freshMac(), nas, user: alice.username, result: 'accept', rule: rStaff.name })),
      // carol's PEAP login rejected for its password: whether it would pass is not known.
      nacLine({ ts: now - 800, method: 'peap', mac: freshMac(), nas, user: carol.username, result: 'reject', reason: 'eap_failed' }),
      // An EAP-TLS certificate refused in the TLS exchange.
      nacLine({ ts: now - 900, method: 'eap-tls', mac: freshMac(), nas, result: 'reject', reason: 'eap_failed' }),
      // An unknown MAC by MAB: the default rule (deny) on both sides.
      nacLine({ ts: now - 1000, method: 'mab', mac: freshMac(), nas, result: 'reject', reason: 'nac_denied' }),
    ]
    appendFileSync(path.join(dir, AUTH_FILE), lines.join(''))
    await waitFor(async () => Number((await t.app.db.knex('aaa_log_radius_auth').count({ n: '*' }).first())?.n) >= lines.length, 'the lines ingested')
  })
  after(async () => {
    await t?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const impact = async (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const r = await t.admin('POST', IMPACT, { body, headers })
    expect(r.status, r.text).to.equal(200)
    return r.body
  }

  it('keeps the NAC inputs in the FreeRADIUS release: mode 0600, no secret, users without any password material', async () => {
    const file = path.join(activeReleaseDir(t.dataDir, 'freeradius'), 'nac-policy-inputs.json')
    expect(statSync(file).mode & 0o777).to.equal(0o600)
    const text = readFileSync(file, 'utf8')
    expect(text).to.not.contain('impact-secret-1')
    const kept = JSON.parse(text)
    expect(kept.clients.map((c: any) => c.id)).to.deep.equal([device.id])
    expect(kept.endpoints.find((e: any) => e.mac === printer.mac)).to.deep.equal({ mac: printer.mac, endpoint_group_ids: [printers.id], device_type: null })
    const a = kept.users.find((u: any) => u.username === alice.username)
    expect(a).to.deep.equal({ username: alice.username, group_ids: [ug.id], network_password: true })
    expect(kept.policy.rules.map((r: any) => r.id)).to.deep.equal([rPrinters.id, rStaff.id])
  })

  it('with nothing edited, every replayable request is answered alike; what cannot be replayed is named', async () => {
    const r = await impact()
    expect(r.compared.deployed[0]).to.include({ daemon: 'freeradius' })
    expect(r.compared.deployed[0].release).to.be.a('string')
    expect(r.requests).to.deep.include({ distinct: 6, events: 8, evaluated: 4, unchanged: 4 })
    expect(r.requests.unreplayable.by_reason.map((x: any) => [x.reason, x.requests, x.events])).to.have.deep.members([
      ['password_unknown', 1, 1],
      ['certificate_refused', 1, 1],
    ])
    expect(r.changes_total).to.equal(0)
    expect(r.summary.text).to.equal('No replayed request is answered differently')
    expect(r.limits).to.deep.equal({ reached: null, max_requests: 1_500_000, time_budget_seconds: 60 })
    expect(r.replica_lag_ms).to.equal(null)
  })

  it('an edit not yet deployed: the flips and the attribute changes, with the rule, grouped, and a policy-test body that answers the same', async () => {
    const deny = await createProfile(t, { deny: true })
    expect((await t.admin('PUT', `${RULES}/${rStaff.id}`, { body: { authorization_profile_id: deny.id } })).status).to.equal(200)
    expect((await t.admin('PUT', `${RULES}/${rPrinters.id}`, { body: { authorization_profile_id: vlan20.id } })).status).to.equal(200)
    try {
      const r = await impact()
      expect(r.summary.permit_to_deny).to.deep.equal({ requests: 2, events: 2 })
      expect(r.summary.attributes).to.deep.equal({ requests: 1, events: 3 })
      expect(r.summary.users_losing_access).to.equal(1)
      expect(r.summary.devices_losing_access).to.equal(1)
      expect(r.summary.text).to.match(/^1 user loses access to 1 device; 3 requests get other attributes/)
      const lost = r.changes.filter((c: any) => c.change === 'permit_to_deny')
      expect(lost).to.have.length(2)
      for (const c of lost) {
        expect(c.request).to.include({ kind: 'nac_authentication', username: alice.username, method: 'peap', nas_ip: nas })
        expect(c.request.device).to.deep.equal({ id: device.id, name: device.name })
        expect(c.request.user_groups.map((g: any) => g.id)).to.deep.equal([ug.id])
        expect(c.before).to.include({ decision: 'permit' })
        expect(c.before.rule.id).to.equal(rStaff.id)
        expect(c.after).to.include({ decision: 'deny' })
        expect(c.after.profile.id).to.equal(deny.id)
        // The policy test, asked with the body the change gives, answers what the change says.
        expect(c.policy_test.path).to.equal('/api/v1/nac/policy/test')
        const asked = await t.admin('POST', TEST, { body: c.policy_test.pending })
        expect(asked.status, asked.text).to.equal(200)
        expect(asked.body.decision).to.equal('reject')
        expect(asked.body.rule.id).to.equal(rStaff.id)
        // And against the deployed release, what the change says it was.
        expect(c.policy_test.deployed).to.deep.equal({ ...c.policy_test.pending, against: 'deployed' })
        const was = await t.admin('POST', TEST, { body: c.policy_test.deployed })
        expect(was.status, was.text).to.equal(200)
        expect(was.body.decision).to.equal('accept')
        expect(was.body.authorization_profile.id).to.equal(vlan20.id)
        expect(was.body.resolved.user).to.deep.equal({ id: alice.id, username: alice.username })
        expect(was.body.resolved.user_groups).to.deep.equal([{ id: ug.id, name: ug.name }])
        expect(was.body.resolved.device).to.deep.equal({ id: device.id, name: device.name })
      }
      const moved = r.changes.find((c: any) => c.change === 'attributes')
      expect(moved.request).to.include({ mac: printer.mac, method: 'mab', events: 3, username: null })
      expect(moved.changed_attributes).to.deep.include({ name: 'Tunnel-Private-Group-Id', before: '10', after: '20' })
      const asked = await t.admin('POST', TEST, { body: moved.policy_test.pending })
      expect(asked.body.reply.find((a: any) => a.attribute === 'Tunnel-Private-Group-Id').value).to.equal('20')
      const before = await t.admin('POST', TEST, { body: moved.policy_test.deployed })
      expect(before.body.reply.find((a: any) => a.attribute === 'Tunnel-Private-Group-Id').value).to.equal('10')
      expect(before.body.resolved.endpoint).to.deep.equal({ id: printer.id, mac: printer.mac, device_type: null })
      // The reasons: in English by default, in Russian for a Russian caller (Accept-Language), the same changes.
      const staffRule = JSON.stringify(lost[0].before.rule.name)
      expect(lost[0].before.reason).to.equal(`rule ${lost[0].before.rule.position} ${staffRule} holds`)
      const ru = await impact({}, { 'Accept-Language': 'ru' })
      const ruLost = ru.changes.find((c: any) => c.change === 'permit_to_deny')
      expect(ruLost.before.reason).to.equal(`выполнено правило ${lost[0].before.rule.position} ${staffRule}`)
      expect(ru.changes.map((c: any) => [c.change, c.request])).to.deep.equal(r.changes.map((c: any) => [c.change, c.request]))
      // Grouped: the user, the user group, the switch, its device group, the rule.
      expect(r.groups.users[0]).to.include({ name: printer.mac, attributes: 1, events: 3 })
      expect(r.groups.user_groups[0]).to.include({ id: ug.id, name: ug.name, permit_to_deny: 2 })
      expect(r.groups.devices[0]).to.include({ id: device.id, events: 5 })
      expect(r.groups.rules.map((x: any) => x.id)).to.have.members([rStaff.id, rPrinters.id])
      // Bounds: the setting the AAA policy's impact shares, then one distinct request at most, stated.
      expect((await t.admin('PUT', '/api/v1/settings/policy_impact.max_requests', { body: { value: 2 } })).status).to.equal(200)
      try {
        expect((await impact()).limits).to.include({ reached: 'max_requests', max_requests: 2 })
      } finally {
        expect((await t.admin('PUT', '/api/v1/settings/policy_impact.max_requests', { body: { value: 1_500_000 } })).status).to.equal(200)
      }
      const cut = await impact({ max_requests: 1 })
      expect(cut.limits).to.include({ reached: 'max_requests', max_requests: 1 })
      expect(cut.requests.distinct).to.be.at.most(1)
      // Read-only: the rules are as edited, nothing deployed.
      expect((await t.admin('GET', `${RULES}`)).body.find((x: any) => x.id === rStaff.id).authorization_profile_id).to.equal(deny.id)
    } finally {
      expect((await t.admin('PUT', `${RULES}/${rStaff.id}`, { body: { authorization_profile_id: vlan20.id } })).status).to.equal(200)
      expect((await t.admin('PUT', `${RULES}/${rPrinters.id}`, { body: { authorization_profile_id: vlan10.id } })).status).to.equal(200)
    }
    // Put back: nothing differs.
    expect((await impact()).changes_total).to.equal(0)
  })

  it('a change deployed is no longer pending; the deployed side follows the release', async () => {
    expect((await t.admin('PUT', `${RULES}/${rPrinters.id}`, { body: { authorization_profile_id: vlan20.id } })).status).to.equal(200)
    expect((await impact()).summary.attributes.requests).to.equal(1)
    const d = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'printers to 20' } })
    expect(d.status, d.text).to.equal(201)
    const r = await impact()
    expect(r.changes_total).to.equal(0)
    expect(r.compared.deployed[0].release).to.equal(d.body.deploys[0].release)
    // The kept inputs name groups by id only: renaming a group the policy names leaves nothing to deploy.
    const pending = async () => (await t.admin('GET', '/api/v1/dashboard/system-info')).body.deploy.daemons.find((x: any) => x.daemon === 'freeradius').pending
    expect(await pending()).to.equal(false)
    expect((await t.admin('PUT', `/api/v1/user-groups/${ug.id}`, { body: { name: uniq('renamed') } })).status).to.equal(200)
    expect((await t.admin('PUT', `/api/v1/nac/endpoint-groups/${printers.id}`, { body: { name: uniq('renamed') } })).status).to.equal(200)
    expect(await pending()).to.equal(false)
    // A rollback brings its release's inputs back: the printers' VLAN 10 is deployed again, 20 pending.
    const back = await t.admin('POST', `/api/v1/deploys/${firstDeploy}/rollback`)
    expect(back.status, back.text).to.equal(200)
    const again = await impact()
    expect(again.summary.attributes).to.deep.equal({ requests: 1, events: 3 })
    expect(again.changes[0].changed_attributes).to.deep.include({ name: 'Tunnel-Private-Group-Id', before: '10', after: '20' })
  })

  it('needs the logs permission as well; bad bounds answer 422 at the field', async () => {
    const policyOnly = await t.token({ permissions: ['nac.policy.read'] })
    const logsOnly = await t.token({ permissions: ['aaa-logs.read'] })
    const both = await t.token({ permissions: ['nac.policy.read', 'aaa-logs.read'] })
    const r1 = await t.req('POST', IMPACT, { body: {}, token: policyOnly })
    expect(r1.status).to.equal(403)
    expect(r1.body).to.include({ code: 'FORBIDDEN', field: 'logs' })
    expect((await t.req('POST', IMPACT, { body: {}, token: logsOnly })).status).to.equal(403)
    const ok = await t.req('POST', IMPACT, { body: {}, token: both })
    expect(ok.status, ok.text).to.equal(200)
    for (const [body, field] of [
      [{ days: 0 }, 'days'],
      [{ days: 91 }, 'days'],
      [{ max_requests: 0 }, 'max_requests'],
      [{ time_budget_seconds: 301 }, 'time_budget_seconds'],
      [{ changes_limit: -1 }, 'changes_limit'],
      [{ group_limit: 'x' }, 'group_limit'],
      [{ against: 'deployed' }, 'against'],
      [{ max_requests: 2_000_001 }, 'max_requests'],
      [{ changes_limit: 5001 }, 'changes_limit'],
      [{ group_limit: 0 }, 'group_limit'],
      [{ days: 1.5 }, 'days'],
    ] as const) {
      const r = await t.admin('POST', IMPACT, { body })
      expect(r.status, JSON.stringify(body)).to.equal(422)
      expect(r.body.field, JSON.stringify(body)).to.equal(field)
    }
  })
})
