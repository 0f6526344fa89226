/**
 * The Web Push sender against a push endpoint of our own (RFC 8030), on HTTPS with a certificate
 * made for the test: the endpoint checks the VAPID JWT (RFC 8292: ES256 by the key in `k`, aud = its
 * origin, a near exp, sub) and decrypts the aes128gcm body (RFC 8291) with the subscriber's ECDH key
 * and auth secret, as a browser's push service and the browser would. The notification reaches it
 * through the whole service: the core's signed notify, the sender, the library.
 */
import { spawnSync } from 'node:child_process'
import { createECDH, createPublicKey, createDecipheriv, hkdfSync, randomBytes, randomUUID, verify, type ECDH } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { expect } from 'chai'
import { signRequest } from '../../sdk/signed-request.js'
import { createPushService, type PushService } from '../../push/app.js'
import { DEFAULT_WEBPUSH_HOSTS, endpointRefusal, generateVapidKeys, parseAllowedHosts, WebPushSender } from '../../push/senders/web-push.js'
import { PUSH_KEY } from '../kit/push.js'
import { runsOn } from '../kit/app.js'
import { skipBecause } from '../kit/skip.js'
import { answerChecker, call } from './support.js'

const SUBJECT = 'mailto:noc@example.org'

interface Delivered {
  path: string
  headers: Record<string, string | string[] | undefined>
  /** What the endpoint found wrong with the request (empty: a push it accepts). */
  faults: string[]
  payload: unknown
}

/** The subscriber (the phone's browser): an ECDH P-256 key pair and a 16-byte auth secret. */
function subscriber() {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16) }
}

/** RFC 8291 §3.4 and RFC 8188 §2: one record, the last, padding delimiter 0x02. */
function decryptAes128gcm(body: Buffer, ua: ECDH, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16)
  const idlen = body[20]
  const asPublic = body.subarray(21, 21 + idlen)
  const ciphertext = body.subarray(21 + idlen)
  const ecdhSecret = ua.computeSecret(asPublic)
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic])
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32))
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16))
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12))
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16))
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()])
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end--
  if (padded[end] !== 2) throw new Error('no last-record padding delimiter')
  return padded.subarray(0, end)
}

/** RFC 8292 §2 and §3: `Authorization: vapid t=<JWT>, k=<public key>`. */
function vapidFaults(authorization: string | undefined, origin: string, expectedKey: string): string[] {
  const m = /^vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '')
  if (!m) return [`no vapid Authorization: ${authorization}`]
  const [, jwt, k] = m
  const faults: string[] = []
  if (k !== expectedKey) faults.push('k is not the VAPID key the service advertises')
  const [h, c, s] = jwt.split('.')
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string; typ?: string }
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as { aud?: string; exp?: number; sub?: string }
  if (header.alg !== 'ES256') faults.push(`alg ${header.alg}`)
  const point = Buffer.from(k, 'base64url')
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, format: 'jwk' })
  if (!verify('sha256', Buffer.from(`${h}.${c}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) faults.push('JWT signature does not verify with k')
  if (claims.aud !== origin) faults.push(`aud ${claims.aud}, not ${origin}`)
  const now = Date.now() / 1000
  if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + 24 * 3600) faults.push(`exp ${claims.exp}`)
  if (claims.sub !== SUBJECT) faults.push(`sub ${claims.sub}`)
  return faults
}

// No database: the push service is the same on either engine, so it runs in the PostgreSQL run of `npm test` only.
;(runsOn('postgres') ? describe : describe.skip)('push service: the Web Push sender against a local push endpoint (RFC 8030, VAPID, aes128gcm)', function () {
  this.timeout(30_000)
  let dir: string
  let cert: string
  let endpoint: Server
  let origin: string
  let push: PushService<WebPushSender>
  const vapid = generateVapidKeys()
  const phone = subscriber()
  const delivered: Delivered[] = []
  let waiters: ((d: Delivered) => void)[] = []
  let answerStatus = 201
  const logLines: string[] = []

  before(async function () {
    if (spawnSync('openssl', ['version']).status !== 0) skipBecause(this, 'openssl is not installed (it makes the local push endpoint\'s certificate)')
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-webpush-'))
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { encoding: 'utf8' })
    expect(made.status, made.stderr).to.equal(0)
    cert = readFileSync(`${dir}/cert.pem`, 'utf8')
    endpoint = createServer({ key: readFileSync(`${dir}/key.pem`), cert }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const faults = vapidFaults(req.headers.authorization, origin, vapid.publicKey)
        if (req.method !== 'POST') faults.push(`method ${req.method}`)
        if (req.headers['content-encoding'] !== 'aes128gcm') faults.push(`content-encoding ${req.headers['content-encoding']}`)
        if (!/^[0-9]+$/.test(String(req.headers.ttl))) faults.push('no TTL')
        let payload: unknown = null
        try {
          payload = JSON.parse(decryptAes128gcm(Buffer.concat(chunks), phone.ecdh, phone.auth).toString('utf8'))
        } catch (err) {
          faults.push(`cannot decrypt: ${(err as Error).message}`)
        }
        const d = { path: req.url ?? '', headers: req.headers, faults, payload }
        delivered.push(d)
        for (const w of waiters.splice(0)) w(d)
        // RFC 8030 §5: 201 Created with the message's location; 410 Gone for an expired subscription.
        res.writeHead(faults.length ? 400 : answerStatus, { location: `${origin}/message/${randomUUID()}` }).end()
      })
    })
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r))
    origin = `https://127.0.0.1:${(endpoint.address() as { port: number }).port}`
    push = await createPushService({
      coreUrl: 'http://127.0.0.1:9',
      key: PUSH_KEY,
      // The local endpoint by its address only: the same endpoint as https://localhost:<port> (in its certificate too) is off the list.
      sender: new WebPushSender({ vapid, subject: SUBJECT, ca: cert, allowedHosts: ['127.0.0.1'] }),
      log: pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) }),
    })
  })
  after(async () => {
    await push?.close()
    endpoint?.closeAllConnections()
    endpoint?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const next = () => new Promise<Delivered>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('nothing reached the push endpoint')), 10_000)
    waiters.push((d) => {
      clearTimeout(t)
      resolve(d)
    })
  })

  const notify = async (subscription: string, payload: unknown, o: { origin?: string; deviceId?: string } = {}) => {
    const raw = JSON.stringify({ notifications: [{ device_id: o.deviceId ?? randomUUID(), address: { kind: 'webpush', endpoint: `${o.origin ?? origin}/push/${subscription}`, keys: { p256dh: phone.p256dh, auth: phone.auth.toString('base64url') } }, payload }] })
    return call(push.url, 'POST', '/internal/v1/notify', { raw, headers: signRequest(PUSH_KEY, { method: 'POST', path: '/internal/v1/notify', body: raw }) })
  }

  it('advertises its VAPID public key to the app', async () => {
    const r = await call(push.url, 'GET', '/v1/service')
    expect(r.body).to.deep.equal({ service_version: '1.0.0', delivery: 'webpush', vapid_public_key: vapid.publicKey })
  })

  it('delivers the core\'s notification: a VAPID JWT the endpoint verifies, a body only the subscriber decrypts, urgency high', async () => {
    waiters = []
    const payload = { type: 'challenge', challenge_id: randomUUID(), burst_count: 3 }
    const arriving = next()
    const r = await notify('sub-1', payload)
    expect(r.status, r.text).to.equal(202)
    expect(r.body).to.deep.equal({ accepted: 1 })
    const d = await arriving
    expect(d.faults).to.deep.equal([])
    expect(d.path).to.equal('/push/sub-1')
    expect(d.payload).to.deep.equal(payload)
    expect(d.headers.urgency).to.equal('high')
    expect(Number(d.headers.ttl)).to.be.within(1, 120)
  })

  it('is a real check: another subscriber cannot read the body, and a foreign VAPID key is caught', async () => {
    // The endpoint's own checks, shown to fail: the same message decrypted with another phone's keys, and verified for another key.
    const other = subscriber()
    const sender = new WebPushSender({ vapid: generateVapidKeys(), subject: SUBJECT, ca: cert, allowedHosts: ['127.0.0.1'] })
    waiters = []
    const arriving = next()
    await sender.send({ kind: 'webpush', endpoint: `${origin}/push/sub-2`, keys: { p256dh: other.p256dh, auth: other.auth.toString('base64url') } }, { type: 'cancel', challenge_id: randomUUID(), burst_count: 1 }).catch(() => undefined)
    const d = await arriving
    await sender.close()
    expect(d.faults.join('; ')).to.include('k is not the VAPID key').and.include('cannot decrypt')
  })

  it('rejects when the push network refuses (410 Gone: the subscription expired), without harming the service', async () => {
    answerStatus = 410
    try {
      const sender = push.sender
      const err = await sender.send({ kind: 'webpush', endpoint: `${origin}/push/gone`, keys: { p256dh: phone.p256dh, auth: phone.auth.toString('base64url') } }, { type: 'challenge', challenge_id: randomUUID(), burst_count: 1 }).then(() => null, (e: unknown) => e)
      expect((err as { statusCode?: number } | null)?.statusCode).to.equal(410)
      // Through notify: still 202 (delivery is asynchronous), and the service goes on.
      expect((await notify('gone-2', { type: 'challenge', challenge_id: randomUUID(), burst_count: 1 })).status).to.equal(202)
    } finally {
      answerStatus = 201
    }
    expect((await call(push.url, 'GET', '/healthz')).status).to.equal(200)
  })

  describe('only to the allowed push networks (PUSH_WEBPUSH_ALLOWED_HOSTS)', () => {
    const keys = () => ({ p256dh: phone.p256dh, auth: phone.auth.toString('base64url') })
    const sameEndpointByName = () => origin.replace('127.0.0.1', 'localhost')
    /** Whether anything reached the local endpoint within `ms`. */
    const reachedWithin = (ms: number) => new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), ms)
      waiters.push(() => {
        clearTimeout(t)
        resolve(true)
      })
    })

    it('the default list is the public push networks; a host matches as itself or a subdomain, `*.x` as a subdomain, an IP as itself', () => {
      const allowed = (endpoint: string, list = DEFAULT_WEBPUSH_HOSTS) => endpointRefusal(endpoint, list) === null
      for (const ok of ['https://fcm.googleapis.com/fcm/send/abc', 'https://updates.push.services.mozilla.com/wpush/v2/x', 'https://web.push.apple.com/QO', 'https://wns2-db5p.notify.windows.com/w/?token=x', 'https://FCM.googleapis.com./x', 'https://jmt17.google.com.push.api.chrome.google.com/x']) expect(allowed(ok), ok).to.equal(true)
      for (const bad of ['https://localhost/x', 'https://127.0.0.1/x', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/x', 'https://intranet.example/x', 'http://fcm.googleapis.com/x', 'https://fcm.googleapis.com.evil.example/x', 'https://evilfcm.googleapis.com/x', 'https://notify.windows.com/x', 'https://user@intranet.example/x?fcm.googleapis.com', 'not a url']) expect(allowed(bad), bad).to.equal(false)
      expect(allowed('https://10.0.0.1/x', ['0.0.1']), 'an IP is matched whole, never by suffix').to.equal(false)
      expect(allowed('https://push.corp.example/x', parseAllowedHosts(' Push.Corp.Example ,*.notify.windows.com'))).to.equal(true)
      expect(() => parseAllowedHosts('fcm.googleapis.com, https://x/')).to.throw(/not a host name/)
      expect(() => parseAllowedHosts(' , ')).to.throw(/names no host/)
    })

    it('refuses an enrollment whose endpoint is off the list: 422 PUSH_ADDRESS_UNSUPPORTED at push.endpoint, before the core', async () => {
      const check = answerChecker((await call(push.url, 'GET', '/openapi.json')).body)
      const body = (endpoint: string) => ({ token: 'A'.repeat(43), name: 'Phone', algorithm: 'ed25519', public_key: 'B'.repeat(59), push: { kind: 'webpush', endpoint, keys: keys() }, signature: 'C'.repeat(86) })
      for (const endpoint of [`${sameEndpointByName()}/push/x`, 'https://169.254.169.254/latest/meta-data/iam', 'https://intranet.example/push']) {
        const r = await call(push.url, 'POST', '/v1/devices', { body: body(endpoint), headers: { 'accept-language': 'ru' } })
        expect(r.status, `${endpoint}: ${r.text}`).to.equal(422)
        check('POST', '/v1/devices', r)
        expect(r.body).to.deep.equal({ detail: r.body.detail, code: 'PUSH_ADDRESS_UNSUPPORTED', field: 'push.endpoint' })
        expect(r.body.detail).to.include(new URL(endpoint).hostname).and.include('не входит')
      }
      // On the list: relayed (this test's core is not there: 503), so the check is the list, not the shape.
      const allowed = await call(push.url, 'POST', '/v1/devices', { body: body(`${origin}/push/x`) })
      expect(allowed.status, allowed.text).to.equal(503)
      check('POST', '/v1/devices', allowed)
      expect(allowed.body.code).to.equal('PUSH_CORE_UNAVAILABLE')
    })

    it('refuses to send off the list (an address the core holds from before): nothing leaves, the refusal is logged', async () => {
      waiters = []
      logLines.length = 0
      const deviceId = randomUUID()
      const reached = reachedWithin(1500)
      const r = await notify('by-name', { type: 'challenge', challenge_id: randomUUID(), burst_count: 1 }, { origin: sameEndpointByName(), deviceId })
      expect(r.status, r.text).to.equal(202)
      expect(r.body).to.deep.equal({ accepted: 0 })
      expect(await reached, 'nothing reached the endpoint').to.equal(false)
      expect(logLines.join('')).to.include(deviceId).and.include('localhost is not an allowed push network')
      // The sender itself refuses too, whoever calls it.
      waiters = []
      const again = reachedWithin(1500)
      const err = await push.sender.send({ kind: 'webpush', endpoint: `${sameEndpointByName()}/push/direct`, keys: keys() }, { type: 'cancel', challenge_id: randomUUID(), burst_count: 1 }).then(() => null, (e: unknown) => e as Error)
      expect(err?.message).to.match(/not sent: localhost is not an allowed push network/)
      expect(await again, 'nothing reached the endpoint').to.equal(false)
    })
  })
})
