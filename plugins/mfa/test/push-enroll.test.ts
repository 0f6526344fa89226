/**
 * Enrolling a phone and the device's own routes, through the real push service (queue sender) to
 * the real core: the one-time QR token, the proof of possession, the device key's signatures over
 * every request (a removed device's refused, a drifting clock within ±300 s taken), and the signed
 * channel that gates the core's routes for the push service.
 */
import { expect } from 'chai'
import { signRequest } from '../../../sdk/signed-request.js'
import { ScriptedPhone, viaCore, viaPushService } from '../../../test/kit/phone.js'
import { usePushWorld, type PushWorld } from './push-helpers.js'

describe('mfa push: enrollment and the device routes', function () {
  this.timeout(120_000)
  let w: PushWorld
  usePushWorld((world) => (w = world))

  async function qr(session: string): Promise<string> {
    const res = await w.t.req('POST', '/api/v1/mfa/push-enrollment', { token: session })
    expect(res.status, res.text).to.equal(200)
    expect(res.body.uri).to.match(/^portcullis-push:\/\/enroll\?v=1&url=http%3A%2F%2F127\.0\.0\.1%3A[0-9]+&token=[A-Za-z0-9_-]{43}$/)
    expect(res.body.qr_svg).to.match(/^data:image\/svg\+xml;base64,/)
    return res.body.uri
  }

  for (const algorithm of ['p256', 'ed25519'] as const) {
    it(`enrolls a ${algorithm} phone once per QR code, and the login then asks for the second factor`, async () => {
      const u = await w.user()
      const uri = await qr(u.session)
      const phone = new ScriptedPhone(viaPushService(w.push.url), { algorithm })
      const res = await phone.enroll(uri, { name: 'My phone' })
      expect(res.status, res.text).to.equal(201)
      expect(res.body).to.include({ username: u.username, name: 'My phone' })
      expect(res.body.device_id).to.be.a('string')
      // The token served once: a second phone with the same QR code is refused.
      const again = await new ScriptedPhone(viaPushService(w.push.url), { algorithm }).enroll(uri)
      expect(again.status, again.text).to.equal(401)
      expect(again.body.code).to.equal('PUSH_ENROLLMENT_INVALID')
      expect(await w.t.app.db.knex('mfa_push_device').where({ user_id: u.id })).to.have.length(1)
      await w.mfaToken(u.username)
      const dev = await phone.request('GET', '/v1/device')
      expect(dev.status, dev.text).to.equal(200)
      expect(dev.body).to.include({ device_id: phone.deviceId, username: u.username, name: 'My phone', algorithm })
      const audit = await w.t.app.db.knex('audit_log').where({ action: 'mfa.push_device_added', resource_id: u.id }).first()
      expect(audit, 'mfa.push_device_added audited').to.not.equal(undefined)
    })
  }

  it('refuses an expired token and a bad proof of possession (which leaves the token usable)', async () => {
    const u = await w.user()
    const uri = await qr(u.session)
    const phone = new ScriptedPhone(viaPushService(w.push.url))
    const other = new ScriptedPhone(viaPushService(w.push.url))
    // The proof signed by another key than the one sent.
    const bad = await phone.enroll(uri, { tamper: (b) => void (b.signature = other.sign(`portcullis-push-enroll\n${b.token}\n${b.public_key}`)) })
    expect(bad.status, bad.text).to.equal(422)
    expect(bad.body).to.include({ code: 'PUSH_PROOF_INVALID', field: 'signature' })
    // A key that is not the stated algorithm's.
    const ed = new ScriptedPhone(viaPushService(w.push.url), { algorithm: 'ed25519' })
    const wrongKind = await phone.enroll(uri, { tamper: (b) => void (b.public_key = ed.publicKey) })
    expect(wrongKind.status, wrongKind.text).to.equal(422)
    expect(wrongKind.body.code).to.equal('PUSH_PUBLIC_KEY_INVALID')
    expect(await w.t.app.db.knex('mfa_push_device').where({ user_id: u.id })).to.have.length(0)
    const ok = await phone.enroll(uri)
    expect(ok.status, ok.text).to.equal(201)

    const uri2 = await qr(u.session)
    await w.t.app.db.knex('mfa_push_enrollment').where({ user_id: u.id }).whereNull('used_at').update({ expires_at: new Date(Date.now() - 1000) })
    const late = await new ScriptedPhone(viaPushService(w.push.url)).enroll(uri2)
    expect(late.status, late.text).to.equal(401)
    expect(late.body.code).to.equal('PUSH_ENROLLMENT_INVALID')
  })

  it('renames and removes the device by its own signed requests; a removed device is refused', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const renamed = await phone.request('PATCH', '/v1/device', { name: 'Work phone' })
    expect(renamed.status, renamed.text).to.equal(200)
    expect(renamed.body.name).to.equal('Work phone')
    const gone = await phone.request('DELETE', '/v1/device')
    expect(gone.status, gone.text).to.equal(204)
    const after = await phone.request('GET', '/v1/challenges')
    expect(after.status, after.text).to.equal(401)
    expect(after.body.code).to.equal('PUSH_DEVICE_UNKNOWN')
    expect(await w.t.app.db.knex('audit_log').where({ action: 'mfa.push_device_removed', resource_id: u.id }).first()).to.not.equal(undefined)
  })

  it('takes a phone clock within ±300 s and refuses one further off (PUSH_CLOCK_SKEW)', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    for (const offset of [-290, 290]) {
      phone.clockOffsetSeconds = offset
      expect((await phone.request('GET', '/v1/challenges')).status, `offset ${offset}`).to.equal(200)
    }
    for (const offset of [-310, 310]) {
      phone.clockOffsetSeconds = offset
      const res = await phone.request('GET', '/v1/challenges')
      expect(res.status, `offset ${offset}`).to.equal(401)
      expect(res.body.code).to.equal('PUSH_CLOCK_SKEW')
    }
  })

  it("refuses a request signed by another device's key, or with the body changed after signing", async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const thief = new ScriptedPhone(viaPushService(w.push.url))
    const res = await phone.request('GET', '/v1/device', null, { signer: thief })
    expect(res.status, res.text).to.equal(401)
    expect(res.body.code).to.equal('PUSH_SIGNATURE_INVALID')
    // Signed over one body, another sent (straight to the core: the push service relays bytes as they come).
    const ts = String(Math.floor(Date.now() / 1000))
    const sig = phone.sign(`portcullis-push-request\nPATCH\n/v1/device\n${ts}\n${'0'.repeat(64)}`)
    const tampered = await viaCore(w.t.url, w.push.key).send('PATCH', '/v1/device', JSON.stringify({ name: 'x' }), { 'x-device-id': phone.deviceId!, 'x-device-timestamp': ts, 'x-device-signature': sig })
    expect(tampered.status, tampered.text).to.equal(401)
    expect(tampered.body.code).to.equal('PUSH_SIGNATURE_INVALID')
  })

  it('gates the core routes by the channel signature; X-Service-Core-Version only once it verified', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session, { direct: true })
    const ok = await phone.request('GET', '/v1/challenges')
    expect(ok.status, ok.text).to.equal(200)
    expect(ok.headers.get('x-service-core-version')).to.be.a('string').and.not.equal('')
    // Unsigned, signed with another key, replayed: refused, and the core says nothing of its version.
    const path = '/api/v1/mfa/internal/app/challenges'
    const unsigned = await fetch(w.t.url + path)
    expect(unsigned.status).to.equal(401)
    expect(((await unsigned.json()) as { code: string }).code).to.equal('PUSH_CHANNEL_INVALID')
    expect(unsigned.headers.get('x-service-core-version')).to.equal(null)
    const wrongKey = await fetch(w.t.url + path, { headers: signRequest('another-key-'.repeat(4), { method: 'GET', path, body: '' }) })
    expect(wrongKey.status).to.equal(401)
    expect(wrongKey.headers.get('x-service-core-version')).to.equal(null)
    const headers = signRequest(w.push.key, { method: 'GET', path, body: '' })
    const first = await fetch(w.t.url + path, { headers })
    expect(first.status, 'a signed request without a device passes the channel').to.equal(401)
    expect(((await first.json()) as { code: string }).code).to.equal('PUSH_DEVICE_UNKNOWN')
    expect(first.headers.get('x-service-core-version')).to.be.a('string')
    const replay = await fetch(w.t.url + path, { headers })
    expect(((await replay.json()) as { code: string }).code).to.equal('PUSH_CHANNEL_INVALID')
  })
})
