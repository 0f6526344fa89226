/**
 * The mobile contract's proof: the push service's own OpenAPI document (GET /openapi.json) checked
 * against REAL answers. A real core (test app with the mfa plugin, on the run's engine: the core's
 * answers must be alike on both), the real push service in front of it (queue sender), and scripted
 * phones with real key pairs (P-256 and Ed25519) drive every mobile route through the push service,
 * successes and refusals; each answer's status, required headers and body are validated against the
 * document's schema for that route and status (a status the document lacks fails). The last test
 * checks every route × status pair below was met.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import type { TestResponse } from '../kit/http.js'
import { ScriptedPhone, viaPushService, type PhoneAlgorithm, type PhoneChallenge } from '../kit/phone.js'
import { freeTcpPort, pushServerOptions, startPushService, type TestPushService } from '../kit/push.js'
import { answerChecker, call } from './support.js'

const PASSWORD = 'Tulip-Granite-Orbit-42'
const ANSWER = '/v1/challenges/{id}/answer'

/** Every route × status the real core and the push service must be seen answering, as documented. */
const MUST_SEE = [
  'GET /v1/service 200',
  'POST /v1/devices 201',
  'POST /v1/devices 401',
  'POST /v1/devices 422',
  'GET /v1/device 200',
  'GET /v1/device 401',
  'PATCH /v1/device 200',
  'PATCH /v1/device 422',
  'DELETE /v1/device 204',
  'DELETE /v1/device 401',
  'GET /v1/challenges 200',
  'GET /v1/challenges 401',
  `POST ${ANSWER} 200`,
  `POST ${ANSWER} 401`,
  `POST ${ANSWER} 404`,
  `POST ${ANSWER} 409`,
  `POST ${ANSWER} 422`,
]

describe(`push service and the real core: the mobile OpenAPI document holds for real answers (${process.env.TEST_ENGINE || 'postgres'})`, function () {
  this.timeout(120_000)
  let t: TestApp
  let push: TestPushService
  let check: ReturnType<typeof answerChecker>
  const seen = new Set<string>()

  /** Validates the answer against the document (route template `path`) and records the pair; returns it. */
  function checked(method: string, path: string, res: TestResponse): TestResponse {
    check(method, path, res)
    seen.add(`${method} ${path} ${res.status}`)
    return res
  }

  function refused(res: TestResponse, status: number, code: string, field: string | null) {
    expect(res.status, res.text).to.equal(status)
    expect(res.body, res.text).to.deep.equal({ detail: res.body.detail, code, field })
  }

  before(async () => {
    const port = await freeTcpPort()
    push = await startPushService({ coreUrl: `http://127.0.0.1:${port}` })
    t = await startTestApp({ plugins: ['mfa'], env: { PORT: String(port) }, options: pushServerOptions(push) })
    const r = await call(push.url, 'GET', '/openapi.json')
    expect(r.status).to.equal(200)
    check = answerChecker(r.body)
  })
  after(async () => {
    await t?.stop()
    await push?.close()
  })
  beforeEach(async () => {
    // Many sign-ins from one address in a few seconds: the login limit is not what this file tests.
    await t.app.db.knex('rate_limit_hits').delete()
  })

  async function user() {
    const username = `contract-${randomUUID().slice(0, 8)}`
    const res = await t.admin('POST', '/api/v1/users', { body: { username, email: `${username}@example.test`, password: PASSWORD, must_change_password: false } })
    expect(res.status, res.text).to.equal(201)
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })
    expect(login.status, login.text).to.equal(200)
    return { username, session: login.body.access_token as string }
  }

  /** The enrollment QR code's URI, made by the user's own session. */
  async function qr(session: string): Promise<string> {
    const res = await t.req('POST', '/api/v1/mfa/push-enrollment', { token: session })
    expect(res.status, res.text).to.equal(200)
    return res.body.uri
  }

  async function enrolled(algorithm: PhoneAlgorithm) {
    const u = await user()
    const phone = new ScriptedPhone(viaPushService(push.url), { algorithm })
    const res = checked('POST', '/v1/devices', await phone.enroll(await qr(u.session)))
    expect(res.status, res.text).to.equal(201)
    return { ...u, phone }
  }

  /** A sign-in sends a push (POST /api/v1/mfa/verify method push); the phone's GET /v1/challenges lists it. */
  async function signInPush(u: { username: string; phone: ScriptedPhone }): Promise<{ challenge: PhoneChallenge; number: string }> {
    const login = await t.req('POST', '/api/v1/auth/login', { body: { username: u.username, password: PASSWORD } })
    expect(login.body.status, login.text).to.equal('mfa_required')
    const sent = await t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: login.body.mfa_token, method: 'push' } })
    expect(sent.status, sent.text).to.equal(202)
    const note = await push.queue.take(u.phone.queue, 10_000)
    expect(note?.payload, 'the push left the sender').to.deep.include({ type: 'challenge', challenge_id: sent.body.push_challenge })
    const list = checked('GET', '/v1/challenges', await u.phone.request('GET', '/v1/challenges'))
    expect(list.status, list.text).to.equal(200)
    const challenge = (list.body.challenges as PhoneChallenge[]).find((c) => c.id === sent.body.push_challenge)
    expect(challenge, list.text).to.not.equal(undefined)
    return { challenge: challenge!, number: sent.body.number }
  }

  it('GET /v1/service', async () => {
    const r = checked('GET', '/v1/service', await call(push.url, 'GET', '/v1/service'))
    expect(r.body).to.deep.equal({ service_version: '1.0.0', delivery: 'queue', vapid_public_key: null })
  })

  for (const algorithm of ['p256', 'ed25519'] as const) {
    it(`a ${algorithm} phone: enroll 201, the device read and renamed, an empty then a pending challenge list, approve with the number, a second answer 409`, async () => {
      const u = await user()
      const uri = await qr(u.session)
      const phone = new ScriptedPhone(viaPushService(push.url), { algorithm })
      const enroll = checked('POST', '/v1/devices', await phone.enroll(uri, { name: 'Work phone' }))
      expect(enroll.status, enroll.text).to.equal(201)
      expect(enroll.body).to.deep.equal({ device_id: phone.deviceId, username: u.username, name: 'Work phone', service_version: '1.0.0' })

      const dev = checked('GET', '/v1/device', await phone.request('GET', '/v1/device'))
      expect(dev.status, dev.text).to.equal(200)
      expect(dev.body).to.include({ device_id: phone.deviceId, username: u.username, name: 'Work phone', algorithm, service_version: '1.0.0' })
      const renamed = checked('PATCH', '/v1/device', await phone.request('PATCH', '/v1/device', { name: 'Pocket' }))
      expect(renamed.status, renamed.text).to.equal(200)
      expect(renamed.body).to.include({ name: 'Pocket', algorithm })

      const none = checked('GET', '/v1/challenges', await phone.request('GET', '/v1/challenges'))
      expect(none.body).to.deep.equal({ service_version: '1.0.0', challenges: [] })

      const { challenge, number } = await signInPush({ username: u.username, phone })
      expect(challenge).to.include({ origin: 'sign_in', number_matching: true })
      const ok = checked('POST', ANSWER, await phone.answer(challenge, 'approve', number))
      expect(ok.body).to.deep.equal({ result: 'approved' })
      const twice = checked('POST', ANSWER, await phone.answer(challenge, 'approve', number))
      refused(twice, 409, 'PUSH_CHALLENGE_CLOSED', null)
    })
  }

  it('enroll refusals: a used and an unknown token 401, shapes and a bad proof 422 (the token stays usable)', async () => {
    const u = await user()
    const uri = await qr(u.session)
    const phone = new ScriptedPhone(viaPushService(push.url), { algorithm: 'ed25519' })
    const other = new ScriptedPhone(viaPushService(push.url))
    // Shapes, refused by the push service before the core.
    refused(checked('POST', '/v1/devices', await phone.enroll(uri, { tamper: (b) => delete b.name })), 422, 'FIELD_REQUIRED', 'name')
    refused(checked('POST', '/v1/devices', await phone.enroll(uri, { tamper: (b) => (b.algorithm = 'rsa') })), 422, 'VALIDATION_FAILED', 'algorithm')
    refused(checked('POST', '/v1/devices', await phone.enroll(uri, { tamper: (b) => (b.push = { kind: 'webpush', endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } }) })), 422, 'PUSH_ADDRESS_UNSUPPORTED', 'push.kind')
    // Meaning, refused by the core: a proof by another key, a public key that is no key.
    refused(checked('POST', '/v1/devices', await phone.enroll(uri, { tamper: (b) => (b.signature = other.sign(`portcullis-push-enroll\n${b.token}\n${b.public_key}`)) })), 422, 'PUSH_PROOF_INVALID', 'signature')
    refused(checked('POST', '/v1/devices', await phone.enroll(uri, { tamper: (b) => (b.public_key = 'A'.repeat(60)) })), 422, 'PUSH_PUBLIC_KEY_INVALID', 'public_key')
    refused(checked('POST', '/v1/devices', await phone.enroll(randomUUID().replace(/-/g, '') + 'abcdefgh')), 401, 'PUSH_ENROLLMENT_INVALID', 'token')
    // None of that spent the token; this does, once.
    expect(checked('POST', '/v1/devices', await phone.enroll(uri)).status).to.equal(201)
    refused(checked('POST', '/v1/devices', await other.enroll(uri)), 401, 'PUSH_ENROLLMENT_INVALID', 'token')
  })

  it('answers deny, the wrong number and report (200 each); an unknown id, another user\'s challenge 404; a malformed id 422', async () => {
    const a = await enrolled('p256')
    const b = await enrolled('ed25519')
    const first = await signInPush(a)
    expect(checked('POST', ANSWER, await a.phone.answer(first.challenge, 'deny')).body).to.deep.equal({ result: 'denied' })
    const second = await signInPush(a)
    const wrong = second.number === '42' ? '43' : '42'
    expect(checked('POST', ANSWER, await a.phone.answer(second.challenge, 'approve', wrong)).body).to.deep.equal({ result: 'wrong_number' })
    const third = await signInPush(a)
    // b's own key and device, a's challenge: not b's to see.
    refused(checked('POST', ANSWER, await b.phone.answer(third.challenge, 'approve', third.number)), 404, 'PUSH_CHALLENGE_NOT_FOUND', 'challenge_id')
    refused(checked('POST', ANSWER, await a.phone.answer({ id: randomUUID(), nonce: third.challenge.nonce }, 'deny')), 404, 'PUSH_CHALLENGE_NOT_FOUND', 'challenge_id')
    const bad = await a.phone.request('POST', '/v1/challenges/not-a-uuid/answer', a.phone.answerBody({ id: 'not-a-uuid', nonce: 'x' }, 'deny'))
    refused(checked('POST', ANSWER, bad), 422, 'VALIDATION_FAILED', 'id')
    expect(checked('POST', ANSWER, await a.phone.answer(third.challenge, 'report')).body).to.deep.equal({ result: 'reported' })
  })

  it('signature refusals 401: the answer signed by another key, the request signed by another key, an unknown device', async () => {
    const a = await enrolled('p256')
    const b = await enrolled('ed25519')
    const { challenge, number } = await signInPush(a)
    // a's device and request signature, but the answer's signature by b's key.
    const forged = { ...b.phone.answerBody(challenge, 'approve', number) }
    refused(checked('POST', ANSWER, await a.phone.request('POST', `/v1/challenges/${challenge.id}/answer`, forged)), 401, 'PUSH_SIGNATURE_INVALID', 'signature')
    // a's device id, b's key over the request.
    refused(checked('GET', '/v1/device', await a.phone.request('GET', '/v1/device', null, { signer: b.phone })), 401, 'PUSH_SIGNATURE_INVALID', null)
    refused(checked('GET', '/v1/challenges', await a.phone.request('GET', '/v1/challenges', null, { deviceId: randomUUID() })), 401, 'PUSH_DEVICE_UNKNOWN', null)
    // Still pending: none of that decided it.
    expect(checked('POST', ANSWER, await a.phone.answer(challenge, 'approve', number)).body).to.deep.equal({ result: 'approved' })
  })

  it('the phone\'s clock: within ±300 s taken, outside 401 PUSH_CLOCK_SKEW', async () => {
    const a = await enrolled('ed25519')
    for (const offset of [-290, 290]) {
      a.phone.clockOffsetSeconds = offset
      expect(checked('GET', '/v1/challenges', await a.phone.request('GET', '/v1/challenges')).status, `offset ${offset}`).to.equal(200)
    }
    for (const offset of [-310, 310]) {
      a.phone.clockOffsetSeconds = offset
      refused(checked('GET', '/v1/challenges', await a.phone.request('GET', '/v1/challenges')), 401, 'PUSH_CLOCK_SKEW', null)
      refused(checked('PATCH', '/v1/device', await a.phone.request('PATCH', '/v1/device', { name: 'late' })), 401, 'PUSH_CLOCK_SKEW', null)
    }
    a.phone.clockOffsetSeconds = 0
    refused(checked('PATCH', '/v1/device', await a.phone.request('PATCH', '/v1/device', { name: '' })), 422, 'VALIDATION_FAILED', 'name')
  })

  it('DELETE /v1/device 204 ends its pending challenge; the removed device is refused 401 everywhere', async () => {
    const a = await enrolled('p256')
    const { challenge, number } = await signInPush(a)
    const gone = checked('DELETE', '/v1/device', await a.phone.request('DELETE', '/v1/device'))
    expect(gone.status, gone.text).to.equal(204)
    expect(gone.text).to.equal('')
    expect((await t.app.db.knex('mfa_push_challenge').where({ id: challenge.id }).first())?.state).to.equal('cancelled')
    refused(checked('GET', '/v1/device', await a.phone.request('GET', '/v1/device')), 401, 'PUSH_DEVICE_UNKNOWN', null)
    refused(checked('PATCH', '/v1/device', await a.phone.request('PATCH', '/v1/device', { name: 'back' })), 401, 'PUSH_DEVICE_UNKNOWN', null)
    refused(checked('GET', '/v1/challenges', await a.phone.request('GET', '/v1/challenges')), 401, 'PUSH_DEVICE_UNKNOWN', null)
    refused(checked('POST', ANSWER, await a.phone.answer(challenge, 'approve', number)), 401, 'PUSH_DEVICE_UNKNOWN', null)
    refused(checked('DELETE', '/v1/device', await a.phone.request('DELETE', '/v1/device')), 401, 'PUSH_DEVICE_UNKNOWN', null)
  })

  it('met every route × status of the list, each as the document declares it', () => {
    expect([...seen].filter((s) => MUST_SEE.includes(s)).sort()).to.deep.equal([...MUST_SEE].sort())
  })
})
