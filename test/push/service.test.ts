/**
 * The push service (push/): its version, its OpenAPI document checked against its real answers,
 * the mobile routes relayed to a core over the signed channel (a stand-in core that verifies the
 * signature; the document against the real core's answers is test/push/contract.test.ts), the core's signed
 * notify into the queue sender, and every refusal in the envelope.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto'
import { request } from 'node:http'
import { Validator } from '@seriousme/openapi-schema-validator'
import { expect } from 'chai'
import { signRequest } from '../../sdk/signed-request.js'
import { PUSH_SERVICE_VERSION } from '../../push/version.js'
import { freeTcpPort, PUSH_KEY, startPushService, type TestPushService } from '../kit/push.js'
import { runsOn } from '../kit/app.js'
import { answerChecker, call, startStandInCore, type Answer, type StandInCore } from './support.js'

const b64u = (b: Buffer) => b.toString('base64url')
const CORE = '/api/v1/mfa/internal/app'

/** A phone's key pair and the bodies and headers it sends (shapes only matter here: the core checks meaning). */
function phone() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const pub = b64u(publicKey.export({ type: 'spki', format: 'der' }))
  const token = b64u(randomBytes(32))
  const sig = (text: string) => b64u(sign('sha256', Buffer.from(text), { key: privateKey, dsaEncoding: 'ieee-p1363' }))
  const deviceId = randomUUID()
  return {
    enroll: { token, name: 'Alice’s phone', algorithm: 'p256', public_key: pub, push: { kind: 'queue', queue: 'alice' }, signature: sig(`portcullis-push-enroll\n${token}\n${pub}`) },
    headers(method: string, path: string, body = '') {
      const ts = String(Math.floor(Date.now() / 1000))
      const hash = body ? createHash('sha256').update(body).digest('hex') : ''
      return { 'x-device-id': deviceId, 'x-device-timestamp': ts, 'x-device-signature': sig(`portcullis-push-request\n${method}\n${path}\n${ts}\n${hash}`) }
    },
    sig,
    deviceId,
  }
}

const challenge = (id: string) => ({
  id,
  nonce: b64u(randomBytes(16)),
  origin: 'radius',
  context: { username: 'alice', ip: '192.0.2.10', client: 'sw-core-1' },
  created_at: new Date().toISOString(),
  expires_at: new Date(Date.now() + 30_000).toISOString(),
  number_matching: false,
  burst: { id: randomUUID(), count: 1 },
})

function expectEnvelope(r: Answer, status: number, code: string, field: string | null) {
  expect(r.status, r.text).to.equal(status)
  expect(r.body, r.text).to.deep.equal({ detail: r.body?.detail, code, field })
  expect(r.body.detail).to.be.a('string').and.not.equal('')
  expect(r.headers.get('x-push-service-version')).to.equal(PUSH_SERVICE_VERSION)
}

// No database: the push service is the same on either engine, so it runs in the PostgreSQL run of `npm test` only.
;(runsOn('postgres') ? describe : describe.skip)('push service: contract, relay to the core, notify', function () {
  this.timeout(30_000)
  let core: StandInCore
  let push: TestPushService
  let doc: Record<string, any>
  let check: ReturnType<typeof answerChecker>

  before(async () => {
    core = await startStandInCore(PUSH_KEY)
    push = await startPushService({ coreUrl: core.url, key: PUSH_KEY, sender: 'queue', coreTimeoutMs: 1500 })
    const r = await call(push.url, 'GET', '/openapi.json')
    expect(r.status).to.equal(200)
    doc = r.body
    check = answerChecker(doc)
    check('GET', '/openapi.json', r)
  })
  after(async () => {
    await push?.close()
    await core?.close()
  })
  beforeEach(() => {
    core.received.length = 0
    core.answers.clear()
    core.signAnswersWith = null
  })

  describe('version and document', () => {
    it('answers /healthz with status ok and the contract version 1.0.0, and the version header on every answer', async () => {
      const r = await call(push.url, 'GET', '/healthz')
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({ status: 'ok', version: '1.0.0' })
      expect(PUSH_SERVICE_VERSION).to.equal('1.0.0')
      check('GET', '/healthz', r)
      for (const [m, p] of [['GET', '/nowhere'], ['PUT', '/v1/device'], ['POST', '/internal/v1/notify']]) {
        const e = await call(push.url, m, p)
        expect(e.headers.get('x-push-service-version'), `${m} ${p}`).to.equal('1.0.0')
        expect(e.headers.get('x-content-type-options'), `${m} ${p}`).to.equal('nosniff')
        expect(e.headers.get('cache-control'), `${m} ${p}`).to.equal('no-store')
      }
    })

    it('serves a valid OpenAPI 3.1 document of its own, version 1.0.0, with every route and the envelope', async () => {
      const validator = new Validator()
      const result = await validator.validate(doc)
      expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
      expect(validator.version).to.equal('3.1')
      expect(doc.info.version).to.equal('1.0.0')
      const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      expect(ops).to.have.members([
        'GET /v1/service', 'POST /v1/devices', 'GET /v1/device', 'PATCH /v1/device', 'DELETE /v1/device', 'GET /v1/challenges',
        'POST /v1/challenges/{id}/answer', 'POST /internal/v1/notify', 'GET /healthz', 'GET /openapi.json',
      ])
      expect(doc.components.schemas.ErrorBody.required).to.have.members(['detail', 'code', 'field'])
      for (const id of ['PushEnrollRequest', 'PushAnswerRequest', 'PushDeviceUpdate', 'PushNotifyRequest', 'WebPushAddress']) expect(doc.components.schemas[id].additionalProperties, id).to.equal(false)
      // Every $ref resolves.
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? []
      for (const ref of refs) {
        const m = /#\/components\/(schemas|headers)\/([A-Za-z0-9-]+)/.exec(ref)
        expect(m, ref).to.not.equal(null)
        expect(doc.components[m![1]], ref).to.have.property(m![2])
      }
      // The device-signed routes name their headers; the mobile ones say their rate limit.
      const challenges = doc.paths['/v1/challenges'].get
      expect(challenges.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`)).to.have.members(['header:X-Device-Id:true', 'header:X-Device-Timestamp:true', 'header:X-Device-Signature:true'])
      expect(challenges.responses).to.include.keys('200', '401', '422', '429', '503')
      expect(doc.paths['/internal/v1/notify'].post.security).to.deep.equal([{ channel: [] }])
    })

    it('tells the app how it delivers (queue here: no VAPID key)', async () => {
      const r = await call(push.url, 'GET', '/v1/service')
      expect(r.body).to.deep.equal({ service_version: '1.0.0', delivery: 'queue', vapid_public_key: null })
      check('GET', '/v1/service', r)
    })
  })

  describe('mobile routes relayed to the core', () => {
    it('enrolls: the body bytes verbatim, signed for the core, the app address forwarded; the 201 comes back as the core gave it', async () => {
      const p = phone()
      const deviceId = randomUUID()
      core.answers.set(`POST ${CORE}/devices`, { status: 201, body: { device_id: deviceId, username: 'alice', name: 'Alice’s phone', service_version: '1.0.0' } })
      // Odd spacing and key order: the device's signatures cover the bytes, so they must arrive as sent.
      const raw = '{ "name":"Alice’s phone",\n "token": "' + p.enroll.token + '", "algorithm":"p256","public_key":"' + p.enroll.public_key + '","push":{"kind":"queue","queue":"alice"},"signature":"' + p.enroll.signature + '" }'
      const r = await call(push.url, 'POST', '/v1/devices', { raw, headers: { 'accept-language': 'ru' } })
      expect(r.status, r.text).to.equal(201)
      expect(r.body).to.deep.equal({ device_id: deviceId, username: 'alice', name: 'Alice’s phone', service_version: '1.0.0' })
      check('POST', '/v1/devices', r)
      expect(core.received).to.have.length(1)
      const got = core.received[0]
      expect(got.path).to.equal(`${CORE}/devices`)
      expect(got.body.toString('utf8')).to.equal(raw)
      expect(got.headers['content-type']).to.equal('application/json')
      expect(got.headers['x-forwarded-for']).to.equal('127.0.0.1')
      expect(got.headers['accept-language']).to.equal('ru')
      expect(got.headers['x-push-service-version']).to.equal('1.0.0')
    })

    it('relays device-signed reads, renames, removals and answers with the device headers; status, body and Retry-After back unchanged', async () => {
      const p = phone()
      const id = randomUUID()
      const device = { device_id: p.deviceId, username: 'alice', name: 'Work phone', algorithm: 'p256', created_at: new Date().toISOString(), service_version: '1.0.0' }
      core.answers.set(`GET ${CORE}/device`, { status: 200, body: device })
      core.answers.set(`PATCH ${CORE}/device`, { status: 200, body: { ...device, name: 'Old phone' } })
      core.answers.set(`DELETE ${CORE}/device`, { status: 204 })
      core.answers.set(`GET ${CORE}/challenges`, { status: 200, body: { service_version: '1.0.0', challenges: [challenge(id), { ...challenge(randomUUID()), number_matching: true, context: { username: 'alice' } }] } })
      core.answers.set(`POST ${CORE}/challenges/${id}/answer`, { status: 200, body: { result: 'approved' } })

      const rename = JSON.stringify({ name: 'Old phone' })
      const answer = JSON.stringify({ decision: 'approve', number: null, signature: p.sig(`portcullis-push-answer\n${id}\nn\napprove\n`) })
      const calls: [string, string, string | undefined, number][] = [
        ['GET', '/v1/device', undefined, 200],
        ['PATCH', '/v1/device', rename, 200],
        ['GET', '/v1/challenges', undefined, 200],
        ['POST', `/v1/challenges/${id}/answer`, answer, 200],
        ['DELETE', '/v1/device', undefined, 204],
      ]
      for (const [method, path, raw, status] of calls) {
        const headers = p.headers(method, path, raw)
        const r = await call(push.url, method, path, { raw, headers })
        expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status)
        check(method, path.startsWith('/v1/challenges/') ? '/v1/challenges/{id}/answer' : path, r)
        const got = core.received.at(-1)!
        expect(got.method).to.equal(method)
        expect(got.path).to.equal(CORE + path.slice(3))
        for (const h of Object.keys(headers)) expect(got.headers[h], `${method} ${path} ${h}`).to.equal(headers[h as keyof typeof headers])
        expect(got.body.toString('utf8')).to.equal(raw ?? '')
      }
      expect((await call(push.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })).body.challenges).to.have.length(2)

      // The core's refusals: the envelope and its headers as they are.
      core.answers.set(`POST ${CORE}/challenges/${id}/answer`, { status: 409, body: { detail: 'This challenge is closed.', code: 'PUSH_CHALLENGE_CLOSED', field: null } })
      const closed = await call(push.url, 'POST', `/v1/challenges/${id}/answer`, { raw: answer, headers: p.headers('POST', `/v1/challenges/${id}/answer`, answer) })
      expect(closed.status).to.equal(409)
      expect(closed.body).to.deep.equal({ detail: 'This challenge is closed.', code: 'PUSH_CHALLENGE_CLOSED', field: null })
      check('POST', '/v1/challenges/{id}/answer', closed)
      core.answers.set(`GET ${CORE}/challenges`, { status: 401, body: { detail: 'Clock skew.', code: 'PUSH_CLOCK_SKEW', field: null } })
      const skew = await call(push.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })
      expect(skew.body.code).to.equal('PUSH_CLOCK_SKEW')
      check('GET', '/v1/challenges', skew)
      core.answers.set(`GET ${CORE}/challenges`, { status: 429, body: { detail: 'Slow down.', retry_after: 7 }, headers: { 'retry-after': '7' } })
      const limited = await call(push.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })
      expect(limited.status).to.equal(429)
      expect(limited.headers.get('retry-after')).to.equal('7')
      expect(limited.body).to.deep.equal({ detail: 'Slow down.', retry_after: 7 })
    })

    it('verifies an answer the core signed, and refuses a forged one (503: the app retries, nothing of it is believed)', async () => {
      const p = phone()
      core.answers.set(`GET ${CORE}/challenges`, { status: 200, body: { service_version: '1.0.0', challenges: [] } })
      core.signAnswersWith = PUSH_KEY
      const ok = await call(push.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })
      expect(ok.status, ok.text).to.equal(200)
      core.signAnswersWith = 'someone-else-' + 'x'.repeat(40)
      const forged = await call(push.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })
      expectEnvelope(forged, 503, 'PUSH_CORE_UNAVAILABLE', null)
    })

    it('answers 503 PUSH_CORE_UNAVAILABLE when the core is down, answers no JSON, or does not answer in time', async () => {
      const p = phone()
      const downPort = await freeTcpPort()
      const lonely = await startPushService({ coreUrl: `http://127.0.0.1:${downPort}`, key: PUSH_KEY })
      try {
        const r = await call(lonely.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') })
        expectEnvelope(r, 503, 'PUSH_CORE_UNAVAILABLE', null)
        expect(r.headers.get('retry-after')).to.match(/^[0-9]+$/)
        check('GET', '/v1/challenges', r)
        const enroll = await call(lonely.url, 'POST', '/v1/devices', { body: p.enroll })
        expectEnvelope(enroll, 503, 'PUSH_CORE_UNAVAILABLE', null)
        check('POST', '/v1/devices', enroll)
      } finally {
        await lonely.close()
      }
      // A proxy's error page in front of a stopped core.
      core.answers.set(`GET ${CORE}/device`, { status: 502, raw: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } })
      expectEnvelope(await call(push.url, 'GET', '/v1/device', { headers: p.headers('GET', '/v1/device') }), 503, 'PUSH_CORE_UNAVAILABLE', null)
      // A core that hangs (the stand-in holds the request past the relay's timeout).
      const { createServer } = await import('node:http')
      const hanging = createServer(() => undefined)
      await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r))
      const slow = await startPushService({ coreUrl: `http://127.0.0.1:${(hanging.address() as { port: number }).port}`, key: PUSH_KEY, coreTimeoutMs: 300 })
      try {
        expectEnvelope(await call(slow.url, 'GET', '/v1/challenges', { headers: p.headers('GET', '/v1/challenges') }), 503, 'PUSH_CORE_UNAVAILABLE', null)
      } finally {
        await slow.close()
        hanging.closeAllConnections()
        hanging.close()
      }
    })
  })

  describe('bad requests: the envelope, and nothing reaches the core', () => {
    afterEach(() => expect(core.received, 'a refused request reached the core').to.deep.equal([]))

    it('refuses shapes at the field (422), malformed JSON (422) and a body that is not JSON (415)', async () => {
      const p = phone()
      const e = p.enroll
      const cases: [unknown, string, string | null][] = [
        [{ ...e, extra: 1 }, 'UNKNOWN_FIELD', 'extra'],
        [{ ...e, token: undefined }, 'FIELD_REQUIRED', 'token'],
        [{ ...e, name: '' }, 'VALIDATION_FAILED', 'name'],
        [{ ...e, name: 'x'.repeat(65) }, 'VALIDATION_FAILED', 'name'],
        [{ ...e, name: 'bell\u0007' }, 'VALIDATION_FAILED', 'name'],
        [{ ...e, algorithm: 'rsa' }, 'VALIDATION_FAILED', 'algorithm'],
        [{ ...e, public_key: 'not base64url!' }, 'VALIDATION_FAILED', 'public_key'],
        [{ ...e, push: { kind: 'webpush', endpoint: 'http://push.example/x', keys: { p256dh: 'A'.repeat(87), auth: 'B'.repeat(22) } } }, 'VALIDATION_FAILED', 'push.endpoint'],
        [{ ...e, push: { kind: 'webpush', endpoint: 'https://push.example/x', keys: { p256dh: 'A'.repeat(87) } } }, 'FIELD_REQUIRED', 'push.keys.auth'],
        [{ ...e, push: { kind: 'carrier-pigeon' } }, 'VALIDATION_FAILED', 'push'],
        [{ ...e, push: { queue: 'alice' } }, 'FIELD_REQUIRED', 'push.kind'],
        [[e], 'VALIDATION_FAILED', null],
        // A shape this service cannot deliver to: the phone would never be reached.
        [{ ...e, push: { kind: 'webpush', endpoint: 'https://push.example/x', keys: { p256dh: 'A'.repeat(87), auth: 'B'.repeat(22) } } }, 'PUSH_ADDRESS_UNSUPPORTED', 'push.kind'],
      ]
      for (const [body, code, field] of cases) {
        const r = await call(push.url, 'POST', '/v1/devices', { body })
        expectEnvelope(r, 422, code, field)
        check('POST', '/v1/devices', r)
      }
      expectEnvelope(await call(push.url, 'POST', '/v1/devices', { raw: '{"token": ' }), 422, 'BODY_MALFORMED_JSON', null)
      expectEnvelope(await call(push.url, 'POST', '/v1/devices', { raw: '' }), 422, 'BODY_REQUIRED', null)
      const form = await call(push.url, 'POST', '/v1/devices', { raw: 'token=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      expectEnvelope(form, 415, 'BODY_UNSUPPORTED_TYPE', null)
      check('POST', '/v1/devices', form)

      const path = `/v1/challenges/${randomUUID()}/answer`
      for (const [body, code, field] of [
        [{ decision: 'maybe', number: null, signature: 'A'.repeat(86) }, 'VALIDATION_FAILED', 'decision'],
        [{ decision: 'approve', number: 42, signature: 'A'.repeat(86) }, 'VALIDATION_FAILED', 'number'],
        [{ decision: 'approve', signature: 'A'.repeat(86) }, 'FIELD_REQUIRED', 'number'],
      ] as const) {
        const raw = JSON.stringify(body)
        expectEnvelope(await call(push.url, 'POST', path, { raw, headers: p.headers('POST', path, raw) }), 422, code, field)
      }
      const raw = JSON.stringify({ decision: 'deny', number: null, signature: 'A'.repeat(86) })
      expectEnvelope(await call(push.url, 'POST', '/v1/challenges/42/answer', { raw, headers: p.headers('POST', '/v1/challenges/42/answer', raw) }), 422, 'VALIDATION_FAILED', 'id')
      // Device headers: missing or malformed.
      expectEnvelope(await call(push.url, 'GET', '/v1/challenges'), 422, 'FIELD_REQUIRED', 'x-device-id')
      const bad = await call(push.url, 'GET', '/v1/challenges', { headers: { ...p.headers('GET', '/v1/challenges'), 'x-device-timestamp': 'yesterday' } })
      expectEnvelope(bad, 422, 'VALIDATION_FAILED', 'x-device-timestamp')
      check('GET', '/v1/challenges', bad)
    })

    it('refuses a body over 16 KiB with 413, declared or chunked, without reading it', async () => {
      const big = JSON.stringify({ ...phone().enroll, name: 'x'.repeat(17 * 1024) })
      const r = await call(push.url, 'POST', '/v1/devices', { raw: big })
      expectEnvelope(r, 413, 'BODY_TOO_LARGE', null)
      check('POST', '/v1/devices', r)
      // Chunked: no length to trust, counted as it arrives.
      const chunked = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(push.url + '/v1/devices', { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        })
        req.on('error', reject)
        for (let i = 0; i < 20; i++) req.write('x'.repeat(1024))
        req.end()
      })
      expect(chunked.status).to.equal(413)
      expect(JSON.parse(chunked.text).code).to.equal('BODY_TOO_LARGE')
      const notify = await call(push.url, 'POST', '/internal/v1/notify', { raw: big })
      expectEnvelope(notify, 413, 'BODY_TOO_LARGE', null)
    })

    it('speaks the language of Accept-Language (ru)', async () => {
      const r = await call(push.url, 'POST', '/v1/devices', { raw: '{', headers: { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.5' } })
      expect(r.body.code).to.equal('BODY_MALFORMED_JSON')
      expect(r.body.detail).to.match(/[а-я]/)
    })
  })

  describe('per-IP rate limit of the mobile routes', () => {
    it('answers 429 with Retry-After past the limit, on the mobile routes only', async () => {
      const limited = await startPushService({ coreUrl: core.url, key: PUSH_KEY, rateLimit: { max: 3, windowSeconds: 60 } })
      try {
        const ldoc = (await call(limited.url, 'GET', '/openapi.json')).body
        const lcheck = answerChecker(ldoc)
        for (let i = 0; i < 3; i++) expect((await call(limited.url, 'GET', '/v1/service')).status).to.equal(200)
        const r = await call(limited.url, 'GET', '/v1/service')
        expect(r.status).to.equal(429)
        expect(Number(r.headers.get('retry-after'))).to.be.within(1, 60)
        expect(r.body).to.deep.equal({ detail: r.body.detail, retry_after: Number(r.headers.get('retry-after')) })
        lcheck('GET', '/v1/service', r)
        // Another mobile route shares the address's budget; the core never sees the refused request.
        expect((await call(limited.url, 'POST', '/v1/devices', { body: phone().enroll })).status).to.equal(429)
        expect(core.received).to.deep.equal([])
        expect((await call(limited.url, 'GET', '/healthz')).status).to.equal(200)
        expect(ldoc.paths['/v1/service'].get.responses['429'].description).to.include('3 per 60 s per client IP')
      } finally {
        await limited.close()
      }
    })
  })

  describe('POST /internal/v1/notify (the core, over the signed channel)', () => {
    const PATH = '/internal/v1/notify'
    const body = (queue: string, ...ids: string[]) =>
      JSON.stringify({ notifications: ids.map((id, i) => ({ device_id: randomUUID(), address: { kind: 'queue', queue }, payload: { type: i === 0 ? 'challenge' : 'cancel', challenge_id: id, burst_count: i + 1 } })) })
    const signed = (raw: string, key = PUSH_KEY, opts: { path?: string; now?: number } = {}) => signRequest(key, { method: 'POST', path: opts.path ?? PATH, body: raw }, opts.now)

    it('hands each notification to the sender and answers 202 {accepted}; the queue records when each left', async () => {
      const [a, b] = [randomUUID(), randomUUID()]
      const raw = body('bob', a, b)
      const before = Date.now()
      const r = await call(push.url, 'POST', PATH, { raw, headers: signed(raw) })
      expect(r.status, r.text).to.equal(202)
      expect(r.body).to.deep.equal({ accepted: 2 })
      check('POST', PATH, r)
      const first = await push.queue.take('bob', 2000)
      const second = await push.queue.take('bob', 2000)
      expect(first?.payload).to.deep.equal({ type: 'challenge', challenge_id: a, burst_count: 1 })
      expect(second?.payload).to.deep.equal({ type: 'cancel', challenge_id: b, burst_count: 2 })
      expect(first!.sentAt).to.be.at.least(before - 1).and.at.most(Date.now() + 1)
      expect(push.queue.sent.filter((s) => s.queue === 'bob')).to.have.length(2)
      // A waiting phone is woken by the next one; none within the time: null.
      const waiting = push.queue.take('carol', 5000)
      const c = randomUUID()
      const raw2 = body('carol', c)
      expect((await call(push.url, 'POST', PATH, { raw: raw2, headers: signed(raw2) })).status).to.equal(202)
      expect((await waiting)?.payload.challenge_id).to.equal(c)
      expect(await push.queue.take('carol', 50)).to.equal(null)
    })

    it('does not count an address of a kind this service does not deliver', async () => {
      const raw = JSON.stringify({
        notifications: [
          { device_id: randomUUID(), address: { kind: 'webpush', endpoint: 'https://push.example/s/1', keys: { p256dh: 'A'.repeat(87), auth: 'B'.repeat(22) } }, payload: { type: 'challenge', challenge_id: randomUUID(), burst_count: 1 } },
          { device_id: randomUUID(), address: { kind: 'queue', queue: 'dave' }, payload: { type: 'challenge', challenge_id: randomUUID(), burst_count: 1 } },
        ],
      })
      const r = await call(push.url, 'POST', PATH, { raw, headers: signed(raw) })
      expect(r.body).to.deep.equal({ accepted: 1 })
      expect(await push.queue.take('dave', 2000)).to.not.equal(null)
    })

    it('refuses unsigned, stale, replayed, tampered, foreign-key and other-path requests with 401, and sends nothing', async () => {
      const raw = body('eve', randomUUID())
      const refusals: [string, Record<string, string>, string][] = [
        ['unsigned', {}, raw],
        ['stale', signed(raw, PUSH_KEY, { now: Date.now() - 120_000 }), raw],
        ['tampered', signed(raw), raw.replace('"challenge"', '"cancel"')],
        ['foreign key', signed(raw, 'another-key-' + 'k'.repeat(40)), raw],
        ['another path', signed(raw, PUSH_KEY, { path: '/v1/devices' }), raw],
      ]
      for (const [what, headers, sent] of refusals) {
        const r = await call(push.url, 'POST', PATH, { raw: sent, headers })
        expectEnvelope(r, 401, 'PUSH_CHANNEL_INVALID', null)
        expect(r.body.detail, what).to.be.a('string')
        check('POST', PATH, r)
      }
      const headers = signed(raw)
      expect((await call(push.url, 'POST', PATH, { raw, headers })).status).to.equal(202)
      expect(await push.queue.take('eve', 2000)).to.not.equal(null)
      const replay = await call(push.url, 'POST', PATH, { raw, headers })
      expectEnvelope(replay, 401, 'PUSH_CHANNEL_INVALID', null)
      // The refusal's code in words, in the caller's language.
      expect(replay.body.detail).to.equal('The request is not signed by the platform (the nonce was already used).')
      const ru = await call(push.url, 'POST', PATH, { raw, headers: { ...headers, 'accept-language': 'ru' } })
      expect(ru.body.detail).to.equal('Запрос не подписан платформой (одноразовое значение (nonce) уже использовано).')
      expect(await push.queue.take('eve', 200), 'a refused request sent a push').to.equal(null)
    })

    it('refuses a signed body of the wrong shape at its field (422)', async () => {
      const raw = JSON.stringify({ notifications: [{ device_id: randomUUID(), address: { kind: 'queue', queue: 'x' }, payload: { type: 'challenge', challenge_id: 'nope', burst_count: 1 } }] })
      const r = await call(push.url, 'POST', PATH, { raw, headers: signed(raw) })
      expectEnvelope(r, 422, 'VALIDATION_FAILED', 'notifications[0].payload.challenge_id')
      check('POST', PATH, r)
      const empty = JSON.stringify({ notifications: [] })
      expectEnvelope(await call(push.url, 'POST', PATH, { raw: empty, headers: signed(empty) }), 422, 'VALIDATION_FAILED', 'notifications')
    })
  })
})
