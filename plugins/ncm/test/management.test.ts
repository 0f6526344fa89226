/**
 * The management side of configuration tracking against the real core (one app, inventory + ncm):
 * credentials (write-only), profiles (built-in read only, unsafe patterns refused at the field),
 * schedules (nearest group wins), device overrides, the inventory guards, collectors' revoke and
 * re-enrollment, and what a reader with ncm.read alone sees (no secret, no raw hash).
 */
import { expect } from 'chai'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError } from '../../../test/kit/expect.js'
import { CISCO_IOS, enrollCollector, takeJob, TestCollector, trackDevice } from '../../../test/kit/ncm-collector.js'

describe('ncm: collectors, credentials, profiles, schedules and devices', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  const knex = () => t.app.db.knex
  const must = async (p: Promise<{ status: number; body: any; text: string }>, status: number) => {
    const r = await p
    expect(r.status, r.text).to.equal(status)
    return r.body
  }

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    col = await enrollCollector(t, 'mgmt')
  })
  after(async () => t?.stop())

  it('keeps credentials write-only: set, never answered, checked for the login method, 409 while used', async () => {
    expectError(await t.admin('POST', '/api/v1/ncm/credentials', { body: { name: 'nopw', username: 'u', auth: 'password' } }), 422, 'NCM_CREDENTIAL_SECRET_REQUIRED', 'password')
    expectError(await t.admin('POST', '/api/v1/ncm/credentials', { body: { name: 'badkey', username: 'u', auth: 'private_key', private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n' } }), 422, 'NCM_PRIVATE_KEY_INVALID', 'private_key')
    const pem = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey
    const key = await must(t.admin('POST', '/api/v1/ncm/credentials', { body: { name: 'keyed', username: 'backup', auth: 'private_key', private_key: pem, enable_secret: 'En-Secret-77' } }), 201)
    expect(key).to.include({ has_private_key: true, has_password: false, has_enable_secret: true })
    expect(JSON.stringify(key)).to.not.include('PRIVATE KEY').and.not.include('En-Secret-77')
    const row = await knex()('ncm_credentials').where({ id: key.id }).first()
    expect(row!.enable_secret_sealed).to.be.a('string').and.not.include('En-Secret-77')
    // Switching to a password needs one.
    expectError(await t.admin('PATCH', `/api/v1/ncm/credentials/${key.id}`, { body: { auth: 'password' } }), 422, 'NCM_CREDENTIAL_SECRET_REQUIRED', 'password')
    const changed = await must(t.admin('PATCH', `/api/v1/ncm/credentials/${key.id}`, { body: { auth: 'password', password: 'Pw-123456', private_key: null } }), 200)
    expect(changed).to.include({ auth: 'password', has_password: true, has_private_key: false })
    const dev = await trackDevice(t, col, { address: '198.51.100.7' })
    expectError(await t.admin('DELETE', `/api/v1/ncm/credentials/${dev.credentialId}`), 409, 'NCM_CREDENTIAL_IN_USE', 'credential_id')
    expect((await t.admin('DELETE', `/api/v1/ncm/credentials/${key.id}`)).status).to.equal(204)
  })

  it('lists the built-in profiles read only and refuses an unsafe pattern at its field', async () => {
    const list = await must(t.admin('GET', '/api/v1/ncm/profiles'), 200)
    expect(list.items.filter((p: { builtin: boolean }) => p.builtin).map((p: { name: string }) => p.name)).to.deep.equal(['cisco_ios', 'cisco_nxos', 'juniper_junos', 'arista_eos', 'aruba_aoscx', 'hpe_procurve', 'mikrotik_routeros'])
    expectError(await t.admin('PATCH', `/api/v1/ncm/profiles/${CISCO_IOS}`, { body: { command: 'show run' } }), 409, 'NCM_PROFILE_BUILTIN')
    expectError(await t.admin('DELETE', `/api/v1/ncm/profiles/${CISCO_IOS}`), 409, 'NCM_PROFILE_BUILTIN')
    const body = { name: 'lab-switch', prompt: '[a-z0-9-]+# ?', command: 'show running-config', strip_lines: ['! uptime .*', '(a+)+$'] }
    const unsafe = await t.admin('POST', '/api/v1/ncm/profiles', { body })
    expectError(unsafe, 422, 'NCM_REGEX_UNSAFE', 'strip_lines[1]')
    // Why, in words and in the caller's language: never the dialect's code (`nested_quantifier`).
    expect(unsafe.body.detail).to.match(/^This pattern is refused\. \S.{20,}\.$/).and.not.match(/_/)
    const unsafeRu = await t.admin('POST', '/api/v1/ncm/profiles', { body, headers: { 'accept-language': 'ru' } })
    expect(unsafeRu.body.detail).to.match(/^Этот шаблон не принят\. \S.{20,}\.$/).and.not.match(/_/)
    expect(await knex()('ncm_profiles').where({ name: 'lab-switch' })).to.have.length(0)
    expectError(await t.admin('POST', '/api/v1/ncm/profiles', { body: { ...body, name: 'CISCO_IOS', strip_lines: [] } }), 409, 'NCM_PROFILE_NAME_TAKEN', 'name')
    const p = await must(t.admin('POST', '/api/v1/ncm/profiles', { body: { ...body, strip_lines: ['! uptime .*'], pre_commands: ['terminal length 0'] } }), 201)
    expect(p).to.include({ builtin: false, mode: 'shell', pager_answer: ' ' })
    const patched = await must(t.admin('PATCH', `/api/v1/ncm/profiles/${p.id}`, { body: { secret_lines: ['snmp community'] } }), 200)
    expect(patched.secret_lines).to.deep.equal(['snmp community'])
    expect((await t.admin('DELETE', `/api/v1/ncm/profiles/${p.id}`)).status).to.equal(204)
  })

  it('tracks the devices of a scheduled group and its descendants, the nearest schedule winning; a deleted group takes its schedule', async () => {
    const cred = await must(t.admin('POST', '/api/v1/ncm/credentials', { body: { name: `c-${randomBytes(3).toString('hex')}`, username: 'u', auth: 'password', password: 'Pw-abcdef1' } }), 201)
    const parent = await must(t.admin('POST', '/api/v1/device-groups', { body: { name: 'site-a' } }), 201)
    const child = await must(t.admin('POST', '/api/v1/device-groups', { body: { name: 'site-a-core', parent_id: parent.id } }), 201)
    const d1 = await must(t.admin('POST', '/api/v1/devices', { body: { name: 'a-access-1', address: '203.0.113.1', device_group_id: parent.id } }), 201)
    const d2 = await must(t.admin('POST', '/api/v1/devices', { body: { name: 'a-core-1', address: '203.0.113.2', device_group_id: child.id } }), 201)
    const base = { collector_id: col.id, credential_id: cred.id, profile_id: CISCO_IOS }
    const sParent = await must(t.admin('POST', '/api/v1/ncm/schedules', { body: { ...base, device_group_id: parent.id, interval_minutes: 60 } }), 201)
    expectError(await t.admin('POST', '/api/v1/ncm/schedules', { body: { ...base, device_group_id: parent.id } }), 409, 'NCM_SCHEDULE_EXISTS', 'device_group_id')
    expectError(await t.admin('POST', '/api/v1/ncm/schedules', { body: { ...base, device_group_id: child.id, collector_id: '00000000-0000-4000-8000-000000000000' } }), 422, 'NCM_REFERENCE_NOT_FOUND', 'collector_id')
    const row = async (id: string) => (await t.admin('GET', `/api/v1/ncm/devices/${id}`)).body
    expect(await row(d1.id)).to.include({ schedule_id: sParent.id, collector_id: col.id, host: '203.0.113.1' })
    expect((await row(d2.id)).schedule_id).to.equal(sParent.id)
    const sChild = await must(t.admin('POST', '/api/v1/ncm/schedules', { body: { ...base, device_group_id: child.id, enabled: false } }), 201)
    // The child's own schedule wins for its device; disabled, nothing is fetched there.
    expect(await row(d2.id)).to.include({ schedule_id: sChild.id, collector_id: null })
    expect((await row(d1.id)).schedule_id).to.equal(sParent.id)
    // An empty group can go: its schedule goes with it (the guard clears it in the deleting transaction).
    await must(t.admin('PUT', `/api/v1/devices/${d2.id}`, { body: { device_group_id: parent.id } }), 200)
    expect((await t.admin('DELETE', `/api/v1/device-groups/${child.id}`)).status).to.equal(204)
    expect(await knex()('ncm_schedules').where({ id: sChild.id })).to.have.length(0)
    expect((await row(d2.id)).schedule_id).to.not.equal(sChild.id)
  })

  it('overrides a device: a network address needs a host (422 NCM_DEVICE_NOT_HOST); history blocks the inventory delete until it is deleted', async () => {
    const group = await must(t.admin('POST', '/api/v1/device-groups', { body: { name: 'nets' } }), 201)
    const net = await must(t.admin('POST', '/api/v1/devices', { body: { name: 'wlc-pool', address: '10.20.0.0/24', device_group_id: group.id } }), 201)
    expectError(await t.admin('PATCH', `/api/v1/ncm/devices/${net.id}`, { body: { port: 2222 } }), 422, 'NCM_DEVICE_NOT_HOST', 'host')
    const set = await must(t.admin('PATCH', `/api/v1/ncm/devices/${net.id}`, { body: { host: '10.20.0.5', port: 2222, aaa_address: '10.20.0.6' } }), 200)
    expect(set).to.include({ host: '10.20.0.5', host_override: '10.20.0.5', port: 2222, aaa_address: '10.20.0.6' })
    expect((await auditRows(t, net.id)).map((a) => a.action)).to.include('ncm_device.update')

    const dev = await trackDevice(t, col, { address: '198.51.100.9' })
    const job = await takeJob(t, col, dev.deviceId)
    expect((await col.upload(TestCollector.ok(job, 'hostname keep\n'))).body.outcome).to.equal('new_version')
    const refused = await t.admin('DELETE', `/api/v1/devices/${dev.deviceId}`)
    expect(refused.status, refused.text).to.equal(409)
    const gone = await must(t.admin('DELETE', `/api/v1/ncm/devices/${dev.deviceId}/history`), 200)
    expect(gone).to.deep.equal({ versions: 1, blobs: 1 })
    expect((await auditRows(t, dev.deviceId)).map((a) => a.action)).to.include('ncm_device.history_delete')
    expect((await t.admin('DELETE', `/api/v1/devices/${dev.deviceId}`)).status).to.equal(204)
    expect(await knex()('ncm_devices').where({ device_id: dev.deviceId })).to.have.length(0)
    expect(await knex()('ncm_fetches').where({ device_id: dev.deviceId })).to.have.length(0)
  })

  it('revokes a collector (its requests 401, its leases end) and re-enrolls it with a new token and new keys; 409 while a schedule names it', async () => {
    const other = await enrollCollector(t, 'to-revoke')
    const dev = await trackDevice(t, other, { address: '198.51.100.30' })
    await takeJob(t, other, dev.deviceId)
    expectError(await t.admin('DELETE', `/api/v1/ncm/collectors/${other.id}`), 409, 'NCM_COLLECTOR_IN_USE', 'collector_id')
    expect((await must(t.admin('POST', `/api/v1/ncm/collectors/${other.id}/revoke`), 200)).state).to.equal('revoked')
    expectError(await other.jobs(), 401, 'NCM_COLLECTOR_REVOKED')
    expect((await knex()('ncm_devices').where({ device_id: dev.deviceId }).first())!.lease_job_id).to.equal(null)
    const token = await must(t.admin('POST', `/api/v1/ncm/collectors/${other.id}/enrollment-token`), 201)
    const again = new TestCollector(t.url)
    expect((await again.enroll(token.enrollment_token)).status).to.equal(201)
    expect(again.id).to.equal(other.id)
    // The old key no longer signs for it; the new one does.
    expectError(await other.jobs(), 401, 'NCM_SIGNATURE_INVALID')
    expect((await again.jobs()).status).to.equal(200)
  })

  it('shows a reader with ncm.read alone no secret and no raw hash, and lets them change nothing', async () => {
    const dev = await trackDevice(t, col, { address: '198.51.100.40', tacacsKey: 'Reader-Tacacs-Key', password: 'Reader-Login-Pw' })
    const job = await takeJob(t, col, dev.deviceId)
    const answer = await col.upload(TestCollector.ok(job, 'hostname r1\nenable secret 5 $1$zzzz$ReaderHash\ntacacs-server key Reader-Tacacs-Key\n'))
    const blob = await knex()('ncm_blobs').where({ device_id: dev.deviceId }).first()
    const reader = await t.token({ permissions: ['ncm.read'] })
    const paths = ['/api/v1/ncm/collectors', '/api/v1/ncm/credentials', `/api/v1/ncm/credentials/${dev.credentialId}`, '/api/v1/ncm/profiles', '/api/v1/ncm/schedules', '/api/v1/ncm/devices', `/api/v1/ncm/devices/${dev.deviceId}`, `/api/v1/ncm/devices/${dev.deviceId}/fetches`]
    for (const p of paths) {
      const r = await t.req('GET', p, { token: reader })
      expect(r.status, `${p} ${r.text}`).to.equal(200)
      for (const secret of ['Reader-Tacacs-Key', 'Reader-Login-Pw', '$1$zzzz$ReaderHash', blob!.raw_sha256, blob!.sealed.slice(0, 40)]) expect(r.text, p).to.not.include(secret)
    }
    expect(blob!.masked).to.not.include('Reader-Tacacs-Key').and.not.include('$1$zzzz$ReaderHash')
    expect(answer.body.outcome).to.equal('new_version')
    expectError(await t.req('POST', `/api/v1/ncm/devices/${dev.deviceId}/fetch`, { token: reader }), 403, 'PERMISSION_DENIED')
    expectError(await t.req('POST', '/api/v1/ncm/collectors', { token: reader, body: { name: 'x' } }), 403, 'PERMISSION_DENIED')
  })
})
