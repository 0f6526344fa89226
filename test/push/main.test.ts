/**
 * The push service's entry point and configuration: `npm run push` starts it from its environment
 * and says where it listens; the VAPID keys are made once into a 0600 file and kept; a missing or
 * short setting stops the start with a message naming it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { readPushConfig } from '../../push/config.js'
import { DEFAULT_WEBPUSH_HOSTS } from '../../push/senders/web-push.js'
import { freeTcpPort, PUSH_KEY } from '../kit/push.js'
import { runsOn } from '../kit/app.js'

// No database: the push service is the same on either engine, so it runs in the PostgreSQL run of `npm test` only.
;(runsOn('postgres') ? describe : describe.skip)('push service: configuration and `npm run push`', function () {
  this.timeout(60_000)
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-push-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const env = (extra: Record<string, string> = {}) => ({ PUSH_CORE_URL: 'http://127.0.0.1:8080', PUSH_SHARED_KEY: PUSH_KEY, PUSH_VAPID_SUBJECT: 'mailto:noc@example.org', PUSH_DATA_DIR: dir, ...extra })

  it('generates the VAPID keys once into a 0600 file and reuses them on the next start', () => {
    const first = readPushConfig(env())
    const file = path.join(dir, 'vapid.json')
    expect(first.vapid?.source).to.equal(`${file} (generated)`)
    expect(statSync(file).mode & 0o777).to.equal(0o600)
    const second = readPushConfig(env())
    expect(second.vapid?.keys).to.deep.equal(first.vapid?.keys)
    expect(second.vapid?.source).to.equal(file)
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(first.vapid?.keys)
    // Keys given in the environment win, and nothing is written.
    const given = readPushConfig(env({ PUSH_VAPID_PUBLIC_KEY: 'pub', PUSH_VAPID_PRIVATE_KEY: 'priv', PUSH_DATA_DIR: path.join(dir, 'unused') }))
    expect(given.vapid).to.deep.equal({ keys: { publicKey: 'pub', privateKey: 'priv' }, source: 'environment' })
  })

  it('refuses a start without the core, the key, a long enough key, or a VAPID subject for webpush', () => {
    const without = (name: string) => Object.fromEntries(Object.entries(env()).filter(([k]) => k !== name))
    expect(() => readPushConfig(without('PUSH_CORE_URL'))).to.throw(/PUSH_CORE_URL is required/)
    expect(() => readPushConfig(without('PUSH_SHARED_KEY'))).to.throw(/PUSH_SHARED_KEY or PUSH_SHARED_KEY_FILE/)
    expect(() => readPushConfig(env({ PUSH_SHARED_KEY: 'short' }))).to.throw(/at least 32/)
    expect(() => readPushConfig(without('PUSH_VAPID_SUBJECT'))).to.throw(/PUSH_VAPID_SUBJECT/)
    expect(() => readPushConfig(env({ PUSH_SENDER: 'carrier-pigeon' }))).to.throw(/PUSH_SENDER/)
    expect(() => readPushConfig(env({ PUSH_CORE_URL: 'ftp://core' }))).to.throw(/PUSH_CORE_URL/)
    // The queue sender needs no VAPID at all.
    expect(readPushConfig({ ...without('PUSH_VAPID_SUBJECT'), PUSH_SENDER: 'queue' }).vapid).to.equal(null)
  })

  it('reads the Web Push allowlist (PUSH_WEBPUSH_ALLOWED_HOSTS): the public push networks by default, a bad entry stops the start', () => {
    expect(readPushConfig(env()).webPushAllowedHosts).to.deep.equal([...DEFAULT_WEBPUSH_HOSTS])
    expect(DEFAULT_WEBPUSH_HOSTS).to.include.members(['fcm.googleapis.com', 'updates.push.services.mozilla.com', 'web.push.apple.com', '*.notify.windows.com'])
    expect(readPushConfig(env({ PUSH_WEBPUSH_ALLOWED_HOSTS: 'push.corp.example, *.notify.windows.com' })).webPushAllowedHosts).to.deep.equal(['push.corp.example', '*.notify.windows.com'])
    expect(() => readPushConfig(env({ PUSH_WEBPUSH_ALLOWED_HOSTS: 'fcm.googleapis.com,http://10.0.0.1/' }))).to.throw(/PUSH_WEBPUSH_ALLOWED_HOSTS: "http:\/\/10\.0\.0\.1\/" is not a host name/)
  })

  it('`npm run push` starts the service, says where it listens, answers /healthz with 1.0.0 and stops on SIGTERM', async () => {
    const port = await freeTcpPort()
    const child = spawn('npm', ['run', '--silent', 'push'], {
      cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
      env: { ...process.env, ...env({ PUSH_PORT: String(port) }) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (out += c.toString()))
    // 'close', not 'exit': npm may exit before the node under it has written its last line to the shared pipes.
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    try {
      const deadline = Date.now() + 45_000
      while (!out.includes('listening on') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100))
      expect(out, out).to.include(`listening on http://127.0.0.1:${port}`)
      const r = await fetch(`http://127.0.0.1:${port}/healthz`)
      expect(r.status).to.equal(200)
      expect(await r.json()).to.deep.equal({ status: 'ok', version: '1.0.0' })
      expect(r.headers.get('x-push-service-version')).to.equal('1.0.0')
      expect(statSync(path.join(dir, 'vapid.json')).mode & 0o777).to.equal(0o600)
    } finally {
      // npm runs node in a shell: the whole group is stopped.
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
    }
    await exited
    expect(out).to.include('stopping')
  })
})
