/**
 * Who may read and trigger the update check, hostile settings, the Pro edition's installation id,
 * the schedule, and the signing tool.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import nock from 'nock'
import { coreServices, type Logger, type PlatformInfo } from '../../../sdk/index.js'
import { silentLogger, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { UpdateChecker } from '../check.js'
import { keygenCommand, signCommand } from '../cli.js'
import { startSchedule } from '../schedule.js'
import { feedEnabled, feedIntervalHours, feedUrl } from '../settings.js'
import { trustedKeys, verifyAnswer } from '../verify.js'
import { envelope, interceptFeed, manifest, releaseFeed, testKey } from './helpers.js'
import { commandArgs } from '../../../test/kit/cli.js'

const FEED = 'https://feed.example.test'

describe('update feed: access, settings, editions, schedule, tool', function () {
  this.timeout(60_000)
  let t: TestApp
  let dir: string
  const key = testKey()

  before(async function () {
    // A boot on a loaded machine (a fresh PostgreSQL database, migrations) can take a while.
    this.timeout(180_000)
    dir = mkdtempSync(path.join(os.tmpdir(), 'update-feed-'))
    const keysFile = path.join(dir, 'keys.json')
    writeFileSync(keysFile, JSON.stringify({ 'test-a': key.publicB64 }))
    t = await startTestApp({ plugins: ['./plugins/update-feed'], options: { 'update-feed.trusted_keys_file': keysFile }, settings: { 'update_feed.enabled': true, 'update_feed.url': `${FEED}/m.json` } })
    interceptFeed()
  })
  after(async () => {
    releaseFeed()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('GET needs system.info.read; POST check needs an administrator (401, 403 ADMIN_REQUIRED) and sends nothing for anyone else', async () => {
    const scope = nock(FEED).get('/m.json').query(true).reply(200, envelope(manifest(), key, 'test-a'))
    expect((await t.req('GET', '/api/v1/update-feed')).status).to.equal(401)
    expect((await t.req('POST', '/api/v1/update-feed/check')).status).to.equal(401)
    const reader = await t.token({ permissions: ['system.info.read'] })
    const none = await t.token({ permissions: ['settings.read'] })
    expect((await t.req('GET', '/api/v1/update-feed', { token: reader })).status).to.equal(200)
    expect((await t.req('GET', '/api/v1/update-feed', { token: none })).status).to.equal(403)
    const everything = await t.token({ permissions: [...t.app.registry.permissions.keys()] })
    for (const token of [reader, everything]) {
      const r = await t.req('POST', '/api/v1/update-feed/check', { token })
      expect(r.status).to.equal(403)
      expect(r.body.code).to.equal('ADMIN_REQUIRED')
    }
    expect(scope.isDone(), 'no request reached the feed').to.equal(false)
    const ok = await t.admin('POST', '/api/v1/update-feed/check')
    expect(ok.status).to.equal(200)
    expect(ok.body.status).to.equal('ok')
    expect(scope.isDone()).to.equal(true)
    const audit = await t.admin('GET', '/api/v1/audit?action=update_feed.check')
    expect(audit.body.items.map((e: { action: string; after: unknown }) => [e.action, e.after])).to.deep.equal([['update_feed.check', { status: 'ok', reason: null }]])
  })

  it('refuses hostile settings at the field and changes nothing', async () => {
    const bad: [string, unknown][] = [
      ['update_feed.url', 'http://feed.example.test/m.json'], // plain http off this machine
      ['update_feed.url', 'https://user:secret@feed.example.test/m.json'],
      ['update_feed.url', 'javascript:alert(1)'],
      ['update_feed.url', 'file:///etc/passwd'],
      ['update_feed.url', 'https://feed.example.test/m.json\nX-Injected: 1'],
      ['update_feed.url', 'http://127.0.0.1.evil.example/m.json'],
      ['update_feed.interval_hours', 0],
      ['update_feed.interval_hours', 169],
      ['update_feed.interval_hours', 1.5],
      ['update_feed.timeout_seconds', 0],
      ['update_feed.redirect_hosts', ['bad host']],
      ['update_feed.redirect_hosts', ['a.example', 'a.example']],
      ['update_feed.enabled', 'yes'],
    ]
    for (const [k, value] of bad) {
      const r = await t.admin('PUT', `/api/v1/settings/${k}`, { body: { value } })
      expect(r.status, `${k} = ${JSON.stringify(value)}`).to.equal(422)
      expect(r.body).to.have.keys(['detail', 'code', 'field'])
      expect(r.body.field, k).to.match(/^value/)
    }
    const s = await t.app.resolveDeps('update-feed', { settings: coreServices.settings }).settings
    expect(await s.get(feedUrl)).to.equal(`${FEED}/m.json`)
    expect(await s.get(feedIntervalHours)).to.equal(24)
    // The address decides where the installation id goes: a settings.write holder may not change it.
    const writer = await t.token({ permissions: ['settings.write', 'settings.read'] })
    const r = await t.req('PUT', '/api/v1/settings/update_feed.url', { token: writer, body: { value: 'https://elsewhere.example/m.json' } })
    expect(r.status).to.equal(403)
    expect(await s.get(feedUrl)).to.equal(`${FEED}/m.json`)
  })

  it('sends the installation id (iid) for Pro only, and takes only a manifest of its own edition', async () => {
    const { settings } = t.app.resolveDeps('update-feed', { settings: coreServices.settings })
    const keys = trustedKeys({ 'test-a': key.publicB64 })
    const base: Omit<PlatformInfo, 'edition' | 'installationId'> = { version: '0.1.0', dataDir: t.dataDir, startedAt: new Date() }
    const pro: PlatformInfo = { ...base, edition: { id: 'pro', name: 'Pro' }, installationId: '7b0f5c7e-3c1e-4c55-9d0c-1f7d1f0e9a11' }
    const community: PlatformInfo = { ...base, edition: { id: 'community', name: 'Community' }, installationId: null }
    for (const platform of [pro, community]) {
      let query: Record<string, unknown> = {}
      let ua: unknown
      nock(FEED)
        .get('/m.json')
        .query((q) => ((query = q), true))
        .reply(function () {
          ua = this.req.headers['user-agent']
          return [200, envelope(manifest({ edition: platform.edition.id, issued_at: '2026-11-25T00:00:00Z' }), key, 'test-a')]
        })
      const checker = new UpdateChecker({ knex: t.app.db.knex, settings, platform, keys, log: silentLogger() })
      expect(await checker.check()).to.deep.equal({ status: 'ok', reason: null })
      expect(query).to.deep.equal(platform === pro ? { edition: 'pro', version: '0.1.0', iid: pro.installationId } : { edition: 'community', version: '0.1.0' })
      expect(ua).to.equal('portcullis/0.1.0')
    }
    // A Community manifest is another edition's for Pro.
    const body = Buffer.from(envelope(manifest(), key, 'test-a'))
    expect(verifyAnswer(body, keys, 'pro')).to.deep.equal({ ok: false, reason: 'wrong_edition' })
    expect(verifyAnswer(body, keys, 'community').ok).to.equal(true)
  })

  describe('the schedule', () => {
    const log = silentLogger() as Logger
    const fakeSettings = (values: Map<unknown, unknown>) => ({ get: async (ref: unknown) => values.get(ref), set: async () => undefined }) as never
    const run = async (o: { enabled: boolean; role: 'primary' | 'replica'; last: Date | null }) => {
      let checks = 0
      const values = new Map<unknown, unknown>([[feedEnabled, o.enabled], [feedUrl, 'https://x.example/m'], [feedIntervalHours, 24]])
      const stop = startSchedule({ settings: fakeSettings(values), cluster: { role: o.role }, log, check: async () => void checks++, lastCheckedAt: async () => o.last }, { tickMs: 20, firstTickMs: 5, random: () => 0.5 })
      await new Promise((r) => setTimeout(r, 120))
      await stop()
      const after = checks
      await new Promise((r) => setTimeout(r, 60))
      expect(checks, 'no check after stop').to.equal(after)
      return checks
    }
    it('checks when due, on the primary only, not when off, not again within the interval (plus jitter)', async () => {
      expect(await run({ enabled: true, role: 'primary', last: null })).to.be.at.least(1)
      expect(await run({ enabled: true, role: 'primary', last: new Date(Date.now() - 26 * 3_600_000) })).to.be.at.least(1)
      expect(await run({ enabled: true, role: 'replica', last: null })).to.equal(0)
      expect(await run({ enabled: false, role: 'primary', last: null })).to.equal(0)
      // 24 h plus a jitter of 5 % (random 0.5 → 0.05), 25.2 h: 25 h ago is not due yet, 26 h ago is.
      expect(await run({ enabled: true, role: 'primary', last: new Date(Date.now() - 25 * 3_600_000) })).to.equal(0)
    })
  })

  it('the tool: keygen writes a private key and prints the public one; sign makes an envelope the check accepts', async () => {
    const lines: string[] = []
    const io = { out: (s = '') => void lines.push(s), err: () => undefined, env: {}, signal: new AbortController().signal }
    const pem = path.join(dir, 'release.pem')
    expect(await keygenCommand.run(['--out', pem, '--key-id', 'rel-1'], io, {})).to.equal(0)
    expect(readFileSync(pem, 'utf8')).to.match(/^-----BEGIN PRIVATE KEY-----/)
    const pub = lines.find((l) => l.startsWith('public key: '))!.slice('public key: '.length)
    // Never overwrites a key.
    const again = await keygenCommand.run(['--out', pem], io, {}).then(() => null, (e: Error) => e)
    expect(again?.message).to.match(/exists/)
    const m = path.join(dir, 'manifest.json')
    writeFileSync(m, JSON.stringify(manifest(), null, 2))
    lines.length = 0
    expect(await signCommand.run(['--key', pem, '--key-id', 'rel-1', m], io, {})).to.equal(0)
    const v = verifyAnswer(Buffer.from(lines[0]), trustedKeys({ 'rel-1': pub }), 'community')
    expect(v).to.deep.equal({ ok: true, manifest: manifest(), keyId: 'rel-1' })
    // An invalid manifest is not signed, nor one dated ahead (it would make every later one a replay).
    writeFileSync(m, JSON.stringify({ ...manifest(), latest: 'soon' }))
    expect(await signCommand.run(['--key', pem, '--key-id', 'rel-1', m], io, {})).to.equal(1)
    writeFileSync(m, JSON.stringify(manifest({ issued_at: new Date(Date.now() + 86_400_000).toISOString() })))
    expect(await signCommand.run(['--key', pem, '--key-id', 'rel-1', m], io, {})).to.equal(1)
  })

  it('the command line reads `portcullis update-feed sign …` as the plugin command update-feed-sign', function () {
    this.timeout(120_000)
    const pem = path.join(dir, 'cli.pem')
    const env = { ...process.env, PLUGINS: 'update-feed' }
    const r = spawnSync(process.execPath, commandArgs(['update-feed', 'keygen', '--out', pem], env), { env, encoding: 'utf8' })
    expect(r.status, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/^key id: ed25519-[0-9a-f]{16}$/m)
    expect(readFileSync(pem, 'utf8')).to.match(/PRIVATE KEY/)
  })
})
