/**
 * The update check end to end: the app asks the feed (nock stands in for it), verifies the signed
 * manifest with real Ed25519 keys, and keeps the last good one through every refusal.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import nock from 'nock'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { envelope, interceptFeed, manifest, releaseFeed, testKey } from './helpers.js'

const FEED = 'https://feed.example.test'
const FEED_PATH = '/v1/manifest.json'
const VERSION = '0.1.3'

describe('update feed: the check', function () {
  this.timeout(60_000)
  let t: TestApp
  let dir: string
  const trusted = testKey()
  const other = testKey()
  const good = manifest()

  const setSetting = async (key: string, value: unknown) => {
    const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    expect(r.status, `${key} → ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
  }
  const check = async () => {
    const r = await t.admin('POST', '/api/v1/update-feed/check')
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  /** The feed answers `body` once (200 unless said). */
  const serve = (body: string | Buffer | Readable, status = 200, headers: Record<string, string> = {}) => nock(FEED).get(FEED_PATH).query(true).reply(status, body as string, headers)

  /** After a refusal: the status says why, and the good manifest, its key and last_ok_at are what they were. */
  async function expectKept(body: any, status: string, reason: string, before: any) {
    expect(body.status).to.equal(status)
    expect(body.reason).to.equal(reason)
    expect(body.manifest).to.deep.equal(before.manifest)
    expect(body.key_id).to.equal(before.key_id)
    expect(body.last_ok_at).to.equal(before.last_ok_at)
    if (before.checked_at) expect(Date.parse(body.checked_at)).to.be.at.least(Date.parse(before.checked_at))
    const again = await t.admin('GET', '/api/v1/update-feed')
    expect(again.body.manifest).to.deep.equal(before.manifest)
  }

  before(async function () {
    // A boot on a loaded machine (a fresh PostgreSQL database, migrations) can take a while.
    this.timeout(180_000)
    dir = mkdtempSync(path.join(os.tmpdir(), 'update-feed-'))
    const keysFile = path.join(dir, 'keys.json')
    writeFileSync(keysFile, JSON.stringify({ 'test-a': trusted.publicB64 }))
    t = await startTestApp({ plugins: ['./plugins/update-feed'], options: { 'update-feed.trusted_keys_file': keysFile }, env: { SERVICE_VERSION: VERSION } })
    interceptFeed()
  })
  after(async () => {
    releaseFeed()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  afterEach(() => {
    expect(nock.pendingMocks(), 'every nock answer was asked for').to.deep.equal([])
    nock.cleanAll()
  })

  it('is off by default: status never, and an explicit check answers 409 UPDATE_FEED_DISABLED, then UPDATE_FEED_NOT_CONFIGURED without a URL', async () => {
    const r = await t.admin('GET', '/api/v1/update-feed')
    expect(r.status).to.equal(200)
    expect(r.body).to.include({ enabled: false, status: 'never', manifest: null, update_available: false, running_version: VERSION, edition: 'community' })
    const off = await t.admin('POST', '/api/v1/update-feed/check')
    expect(off.status).to.equal(409)
    expect(off.body.code).to.equal('UPDATE_FEED_DISABLED')
    await setSetting('update_feed.enabled', true)
    const noUrl = await t.admin('POST', '/api/v1/update-feed/check')
    expect(noUrl.status).to.equal(409)
    expect(noUrl.body.code).to.equal('UPDATE_FEED_NOT_CONFIGURED')
    await setSetting('update_feed.url', FEED + FEED_PATH)
  })

  it('a good manifest: stored with what it means for the running version; the query carries edition and version, no iid, and the User-Agent', async () => {
    let query: Record<string, unknown> = {}
    let ua: string | undefined
    nock(FEED)
      .get(FEED_PATH)
      .query((q) => {
        query = q
        return true
      })
      .reply(function () {
        ua = this.req.headers['user-agent'] as string | undefined
        return [200, envelope(good, trusted, 'test-a')]
      })
    const body = await check()
    expect(query).to.deep.equal({ edition: 'community', version: VERSION })
    expect(ua).to.equal(`portcullis/${VERSION}`)
    expect(body).to.include({ status: 'ok', reason: null, key_id: 'test-a', update_available: true, below_min_supported: false })
    expect(body.manifest).to.deep.equal(good)
    // The script is text, kept as sent: the console shows it escaped.
    expect(body.advisories_affecting.map((a: { id: string }) => a.id)).to.deep.equal(['PCS-2026-0001'])
    expect(body.advisories_affecting[0].title).to.equal('RADIUS proxy <script>alert(1)</script> loop')
    expect(body.last_ok_at).to.equal(body.checked_at)
  })

  it('refuses a tampered byte, another key under a known id, an unknown key id, another edition, malformed JSON and an invalid manifest, keeping the good one', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    const signed = JSON.parse(envelope(manifest({ latest: '9.9.9', issued_at: '2026-11-21T00:00:00Z' }), trusted, 'test-a'))
    const bytes = Buffer.from(signed.payload, 'base64')
    bytes[bytes.indexOf('9.9.9')] = '8'.charCodeAt(0) // 8.9.9: one byte changed after signing
    const cases: [string, string][] = [
      [JSON.stringify({ ...signed, payload: bytes.toString('base64') }), 'bad_signature'],
      [envelope(manifest({ latest: '9.9.9', issued_at: '2026-11-21T00:00:00Z' }), other, 'test-a'), 'bad_signature'],
      [envelope(manifest({ latest: '9.9.9', issued_at: '2026-11-21T00:00:00Z' }), other, 'test-z'), 'unknown_key'],
      [envelope(manifest({ edition: 'pro', issued_at: '2026-11-21T00:00:00Z' }), trusted, 'test-a'), 'wrong_edition'],
      ['{"key_id": "test-a", "payload": ', 'malformed_json'],
      [JSON.stringify({ key_id: 'test-a', payload: signed.payload }), 'bad_envelope'],
      [envelope(manifest({ release_notes_url: 'javascript:alert(1)', issued_at: '2026-11-21T00:00:00Z' }), trusted, 'test-a'), 'invalid_manifest'],
      [envelope({ ...manifest({ issued_at: '2026-11-21T00:00:00Z' }), extra: 1 }, trusted, 'test-a'), 'invalid_manifest'],
      [envelope(manifest({ advisories: [{ id: 'X-1', severity: 'high', title: 't', url: 'https://x.example/a', affected: 'not a range' }] }), trusted, 'test-a'), 'invalid_manifest'],
    ]
    for (const [answer, reason] of cases) {
      serve(answer)
      await expectKept(await check(), 'rejected', reason, before)
    }
  })

  it('refuses a replayed older manifest, and takes a newer one', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    serve(envelope(manifest({ latest: '0.1.9', issued_at: '2026-11-19T00:00:00Z' }), trusted, 'test-a'))
    await expectKept(await check(), 'rejected', 'replayed', before)
    const newer = manifest({ latest: '0.3.0', min_supported: '0.1.4', issued_at: '2026-11-22T00:00:00Z' })
    serve(envelope(newer, trusted, 'test-a'))
    const body = await check()
    expect(body).to.include({ status: 'ok', below_min_supported: true })
    expect(body.manifest).to.deep.equal(newer)
  })

  it('refuses a manifest dated more than a day ahead (it would make every later one a replay)', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    const ahead = new Date(Date.now() + 2 * 24 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    serve(envelope(manifest({ latest: '0.4.0', issued_at: ahead }), trusted, 'test-a'))
    await expectKept(await check(), 'rejected', 'issued_in_future', before)
  })

  it('stops reading a huge answer at the bound (with and without Content-Length)', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    serve(Buffer.alloc(1024 * 1024, 0x20))
    await expectKept(await check(), 'rejected', 'too_large', before)
    // No length announced: 4 MiB streamed in 64 KiB chunks.
    let n = 0
    serve(new Readable({ read() { this.push(n++ < 64 ? Buffer.alloc(65536, 0x20) : null) } }))
    await expectKept(await check(), 'rejected', 'too_large', before)
  })

  it('gives up on a slow feed at update_feed.timeout_seconds: unreachable (timeout)', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    await setSetting('update_feed.timeout_seconds', 1)
    nock(FEED).get(FEED_PATH).query(true).delay(3000).reply(200, envelope(manifest({ issued_at: '2026-12-01T00:00:00Z' }), trusted, 'test-a'))
    const t0 = Date.now()
    await expectKept(await check(), 'unreachable', 'timeout', before)
    expect(Date.now() - t0).to.be.below(2900)
    await setSetting('update_feed.timeout_seconds', 10)
  })

  it('refuses a redirect to another host unless update_feed.redirect_hosts names it; follows one on the same host', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    serve('', 302, { Location: 'https://mirror.example.test/m.json' })
    await expectKept(await check(), 'rejected', 'redirect_refused', before)
    // https → http is refused even to a listed host.
    await setSetting('update_feed.redirect_hosts', ['mirror.example.test'])
    serve('', 302, { Location: 'http://mirror.example.test/m.json' })
    await expectKept(await check(), 'rejected', 'redirect_refused', before)
    const mirrored = manifest({ latest: '0.3.1', issued_at: '2026-11-23T00:00:00Z' })
    serve('', 302, { Location: 'https://mirror.example.test/m.json' })
    nock('https://mirror.example.test').get('/m.json').reply(200, envelope(mirrored, trusted, 'test-a'))
    expect((await check()).manifest).to.deep.equal(mirrored)
    await setSetting('update_feed.redirect_hosts', [])
    const same = manifest({ latest: '0.3.2', issued_at: '2026-11-24T00:00:00Z' })
    serve('', 301, { Location: '/v2/manifest.json' })
    nock(FEED).get('/v2/manifest.json').reply(200, envelope(same, trusted, 'test-a'))
    expect((await check()).manifest).to.deep.equal(same)
  })

  it('follows at most 3 redirects', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    for (let i = 0; i < 4; i++) nock(FEED).get(i === 0 ? FEED_PATH : `/r${i}`).query(true).reply(302, '', { Location: `/r${i + 1}` })
    await expectKept(await check(), 'rejected', 'too_many_redirects', before)
  })

  it('an unreachable feed is a status, not an error: a connection error, an HTTP error, a closed port', async () => {
    const before = (await t.admin('GET', '/api/v1/update-feed')).body
    nock(FEED).get(FEED_PATH).query(true).replyWithError('connect ECONNRESET')
    await expectKept(await check(), 'unreachable', 'network_error', before)
    serve('down', 503)
    const http503 = await check()
    await expectKept(http503, 'unreachable', 'http_error', before)
    expect(http503.http_status).to.equal(503)
    // A real closed port on this machine (plain http is allowed to loopback only).
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    await setSetting('update_feed.url', `http://127.0.0.1:${port}/feed.json`)
    await expectKept(await check(), 'unreachable', 'network_error', before)
    await setSetting('update_feed.url', FEED + FEED_PATH)
  })
})
