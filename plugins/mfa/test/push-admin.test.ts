/**
 * The push factor for people: a user's own phones, factor choice and push lock; an administrator's
 * routes under the manage-another-user rule; the administrators' push policy; a deleted user's push
 * rows; push off without the channel key.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp } from '../../../test/kit/app.js'
import { codeAt, enroll, freeTcpPort } from '../../../test/kit/mfa.js'
import { ScriptedPhone, viaCore } from '../../../test/kit/phone.js'
import { PASSWORD, pendingOf, poll, sendPush, usePushWorld, type PushWorld } from './push-helpers.js'

describe('mfa push: devices, factors and policy', function () {
  this.timeout(120_000)
  let w: PushWorld
  usePushWorld((world) => (w = world))

  async function role(permissions: string[]): Promise<string> {
    const r = await w.t.admin('POST', '/api/v1/roles', { body: { name: `r-${randomUUID().slice(0, 8)}`, permissions } })
    expect(r.status, r.text).to.equal(201)
    return r.body.id
  }

  it('an mfa.manage holder lists, renames and removes a user\'s phone (ending its pending push), sets factors and clears the lock', async () => {
    const manager = await w.t.token({ permissions: ['mfa.manage'] })
    const u = await w.user()
    const phone = await w.phone(u.session)
    const base = `/api/v1/users/${u.id}/mfa`
    expect((await w.t.req('POST', '/api/v1/mfa/recovery-codes', { token: u.session })).status, 'a phone is a factor codes back up').to.equal(200)
    const list = await w.t.req('GET', `${base}/push-devices`, { token: manager })
    expect(list.status, list.text).to.equal(200)
    expect(list.body.items.map((d: { id: string }) => d.id)).to.deep.equal([phone.deviceId])
    const renamed = await w.t.req('PATCH', `${base}/push-devices/${phone.deviceId}`, { token: manager, body: { name: 'Lost phone' } })
    expect(renamed.status, renamed.text).to.equal(200)
    expect(renamed.body.name).to.equal('Lost phone')
    const factors = await w.t.req('PUT', `${base}/factors`, { token: manager, body: { factors: 'push' } })
    expect(factors.status, factors.text).to.equal(200)
    expect(factors.body).to.include({ factors: 'push', push_devices: 1, totp_enrolled: false })
    expect((await w.t.req('PUT', `${base}/factors`, { token: manager, body: { factors: 'totp' } })).body.code).to.equal('MFA_FACTOR_NOT_ENROLLED')

    const token = await w.mfaToken(u.username)
    const sent = await sendPush(w.t, token)
    expect(sent.status).to.equal(202)
    const c = await pendingOf(phone, sent.body.push_challenge)
    const removed = await w.t.req('DELETE', `${base}/push-devices/${phone.deviceId}`, { token: manager })
    expect(removed.status, removed.text).to.equal(204)
    expect(await w.t.app.db.knex('mfa_recovery_code').where({ user_id: u.id }), 'the last factor gone, its recovery codes go too').to.have.length(0)
    expect((await phone.answer(c, 'approve', sent.body.number)).body.code).to.equal('PUSH_DEVICE_UNKNOWN')
    expect((await poll(w.t, token, sent.body.push_challenge)).body.detail).to.include('cancelled')
    expect((await w.t.req('DELETE', `${base}/push-devices/${phone.deviceId}`, { token: manager })).body.code).to.equal('MFA_PUSH_DEVICE_NOT_FOUND')
    const audit = await w.t.app.db.knex('audit_log').where({ resource_id: u.id }).whereIn('action', ['mfa.push_device_renamed', 'mfa.push_device_removed', 'mfa.factors_changed']).pluck('action')
    expect(new Set(audit)).to.deep.equal(new Set(['mfa.push_device_renamed', 'mfa.push_device_removed', 'mfa.factors_changed']))

    await w.t.app.db.knex('mfa_user_factors').where({ user_id: u.id }).update({ push_locked_at: new Date(), push_locked_reason: 'test' })
    expect((await w.t.req('GET', `${base}/factors`, { token: manager })).body.push_locked).to.equal(true)
    expect((await w.t.req('DELETE', `${base}/push-lock`, { token: manager })).status).to.equal(204)
    expect((await w.t.req('GET', `${base}/factors`, { token: manager })).body.push_locked).to.equal(false)
    expect(await w.t.app.db.knex('audit_log').where({ action: 'mfa.push_lock_cleared', resource_id: u.id })).to.have.length(1)
  })

  it('never on an administrator (ADMIN_REQUIRED) or a user holding a permission the actor lacks (USER_EXCEEDS_OWN_PERMISSIONS), and changes nothing', async () => {
    const manager = await w.t.token({ permissions: ['mfa.manage'] })
    const admin = await w.user({ admin: true })
    const adminPhone = await w.phone(admin.session)
    const strong = await w.user()
    const strongPhone = await w.phone(strong.session)
    const put = await w.t.admin('PUT', `/api/v1/users/${strong.id}`, { body: { role_ids: [await role(['mfa.manage', 'users.write'])] } })
    expect(put.status, put.text).to.equal(200)
    const cases: [string, string, string][] = [
      [admin.id, adminPhone.deviceId!, 'ADMIN_REQUIRED'],
      [strong.id, strongPhone.deviceId!, 'USER_EXCEEDS_OWN_PERMISSIONS'],
    ]
    for (const [id, device, code] of cases) {
      const base = `/api/v1/users/${id}/mfa`
      for (const [method, path, body] of [
        ['GET', `${base}/push-devices`, undefined],
        ['PATCH', `${base}/push-devices/${device}`, { name: 'mine now' }],
        ['DELETE', `${base}/push-devices/${device}`, undefined],
        ['GET', `${base}/factors`, undefined],
        ['PUT', `${base}/factors`, { factors: null }],
        ['DELETE', `${base}/push-lock`, undefined],
      ] as const) {
        const res = await w.t.req(method, path, { token: manager, body })
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(403)
        expect(res.body.code, `${method} ${path}`).to.equal(code)
      }
      const left = await w.t.app.db.knex('mfa_push_device').where({ id: device }).first()
      expect(left?.name, 'not renamed, not removed').to.match(/^Phone /)
    }
    // A holder without mfa.manage gets nothing at all.
    const nobody = await w.t.token({ permissions: ['users.read'] })
    expect((await w.t.req('GET', `/api/v1/users/${strong.id}/mfa/push-devices`, { token: nobody })).status).to.equal(403)
  })

  it('my own factors: choosing push refuses codes, choosing totp refuses pushes (no attempt charged); no choice offers both', async () => {
    const u = await w.user()
    const secret = await enroll(w.t, u.username, PASSWORD)
    await w.phone(u.session)
    const mine = await w.t.req('GET', '/api/v1/mfa/factors', { token: u.session })
    expect(mine.body).to.include({ factors: null, totp_enrolled: true, push_devices: 1 })
    expect(mine.body.allowed).to.deep.equal(['totp', 'push'])
    const factorsAtLogin = async () => (await w.t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: PASSWORD } })).body.factors
    expect(await factorsAtLogin(), 'the login says what the client may offer').to.deep.equal(['totp', 'push'])

    expect((await w.t.req('PUT', '/api/v1/mfa/factors', { token: u.session, body: { factors: 'push' } })).body.allowed).to.deep.equal(['push'])
    expect(await factorsAtLogin()).to.deep.equal(['push'])
    let token = await w.mfaToken(u.username)
    const code = await w.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: token, code: codeAt(secret, 1) } })
    expect(code.status, code.text).to.equal(403)
    expect(code.body).to.include({ code: 'MFA_FACTOR_NOT_CHOSEN', field: 'code' })

    expect((await w.t.req('PUT', '/api/v1/mfa/factors', { token: u.session, body: { factors: 'totp' } })).status).to.equal(200)
    token = await w.mfaToken(u.username)
    const before = w.sent()
    const push = await sendPush(w.t, token)
    expect(push.status, push.text).to.equal(403)
    expect(push.body.code).to.equal('MFA_FACTOR_NOT_CHOSEN')
    expect(w.sent()).to.equal(before)
    const ok = await w.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: token, code: codeAt(secret, 1) } })
    expect(ok.status, ok.text).to.equal(200)
    expect((await w.t.req('PUT', '/api/v1/mfa/factors', { token: u.session, body: { factors: 'sms' } })).status).to.equal(422)
  })

  it('setting mfa.push_admins_number_matching: an administrator with a phone must use push (MFA_PUSH_REQUIRED); a plain user may still use a code', async () => {
    const admin = await w.user({ admin: true })
    const secret = await enroll(w.t, admin.username, PASSWORD)
    await w.phone(admin.session)
    const user = await w.user()
    const userSecret = await enroll(w.t, user.username, PASSWORD)
    await w.phone(user.session)
    const on = await w.t.admin('PUT', '/api/v1/settings/mfa.push_admins_number_matching', { body: { value: true } })
    expect(on.status, on.text).to.equal(200)
    try {
      const token = await w.mfaToken(admin.username)
      const refused = await w.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: token, code: codeAt(secret, 1) } })
      expect(refused.status, refused.text).to.equal(403)
      expect(refused.body.code).to.equal('MFA_PUSH_REQUIRED')
      const push = await sendPush(w.t, token)
      expect(push.status).to.equal(202)
      expect(push.body.number, 'number matching').to.match(/^[0-9]{2}$/)
      const plain = await w.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: await w.mfaToken(user.username), code: codeAt(userSecret, 1) } })
      expect(plain.status, plain.text).to.equal(200)
    } finally {
      await w.t.admin('PUT', '/api/v1/settings/mfa.push_admins_number_matching', { body: { value: false } })
    }
    const off = await w.t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: await w.mfaToken(admin.username), code: codeAt(secret, 1) } })
    expect(off.status, off.text).to.equal(200)
  })

  it("deleting a user removes their phones, pushes and factor choice in the deleting transaction", async () => {
    const u = await w.user()
    await w.phone(u.session)
    await w.t.req('PUT', '/api/v1/mfa/factors', { token: u.session, body: { factors: 'push' } })
    expect((await sendPush(w.t, await w.mfaToken(u.username))).status).to.equal(202)
    const del = await w.t.admin('DELETE', `/api/v1/users/${u.id}`)
    expect(del.status, del.text).to.equal(204)
    for (const table of ['mfa_push_device', 'mfa_push_challenge', 'mfa_push_enrollment', 'mfa_user_factors'] as const) {
      expect(await w.t.app.db.knex(table).where({ user_id: u.id }), table).to.have.length(0)
    }
  })

  it('push is off without server option mfa.push_service_key: enrollment 404, the app routes 404', async () => {
    const t = await startTestApp({ plugins: ['mfa'] })
    try {
      const session = await t.token()
      const res = await t.req('POST', '/api/v1/mfa/push-enrollment', { token: session })
      expect(res.status, res.text).to.equal(404)
      expect(res.body.code).to.equal('MFA_PUSH_DISABLED')
      const app = await t.req('GET', '/api/v1/mfa/internal/app/challenges')
      expect(app.body.code).to.equal('MFA_PUSH_DISABLED')
    } finally {
      await t.stop()
    }
  })

  it('the push service down: a push sign-in answers 503 MFA_PUSH_UNAVAILABLE and sends nothing; a code still signs in', async () => {
    const dead = await freeTcpPort()
    const key = 'dead-push-' + randomUUID() + randomUUID()
    const t = await startTestApp({ plugins: ['mfa'], options: { 'mfa.push_service_url': `http://127.0.0.1:${dead}`, 'mfa.push_service_key': key } })
    try {
      const username = `down-${randomUUID().slice(0, 8)}`
      expect((await t.admin('POST', '/api/v1/users', { body: { username, password: PASSWORD, must_change_password: false } })).status).to.equal(201)
      const session = (await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })).body.access_token
      const started = await t.req('POST', '/api/v1/mfa/push-enrollment', { token: session })
      // The phone reaches the core as the push service would relay it (the service is down for notifications only).
      const phone = new ScriptedPhone(viaCore(t.url, key))
      expect((await phone.enroll(started.body.uri)).status).to.equal(201)
      const totp = await t.req('POST', '/api/v1/mfa/enrollment', { token: session })
      const secret = totp.body.secret as string
      expect((await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token: session, body: { code: codeAt(secret) } })).status).to.equal(200)
      const token = (await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })).body.mfa_token
      const res = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: token, method: 'push' } })
      expect(res.status, res.text).to.equal(503)
      expect(res.body.code).to.equal('MFA_PUSH_UNAVAILABLE')
      expect(await phone.pending(), 'nothing for the phone to approve').to.have.length(0)
      const ok = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: token, code: codeAt(secret, 1) } })
      expect(ok.status, ok.text).to.equal(200)
    } finally {
      await t.stop()
    }
  })
})
