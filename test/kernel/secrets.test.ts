/** Secrets at rest and the master key. */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createSecrets } from '../../kernel/security/secrets.js'
import { loadMasterKey, parseMasterKey, readMasterKey } from '../../kernel/security/master-key.js'
import { BootError } from '../../kernel/boot-error.js'
import { isPortcullisError } from '../../sdk/index.js'
import { testEngines } from '../../sdk/testing.js'

describe('secrets at rest', () => {
  const key = randomBytes(32)
  const s = createSecrets(key)

  it('round-trips, and never stores the plaintext or the same ciphertext twice', () => {
    const a = s.encrypt('radius.secret', 'testing123')
    const b = s.encrypt('radius.secret', 'testing123')
    expect(a).not.to.equal(b)
    expect(a).not.to.contain('testing123')
    expect(s.decrypt('radius.secret', a)).to.equal('testing123')
    expect(s.decrypt('radius.secret', s.encrypt('radius.secret', 'ключ ✓ "quote" $x'))).to.equal('ключ ✓ "quote" $x')
  })

  it('refuses a ciphertext under another purpose, another key, or altered', () => {
    const sealed = s.encrypt('radius.secret', 'testing123')
    expect(() => s.decrypt('mfa.totp_seed', sealed)).to.throw()
    expect(() => createSecrets(randomBytes(32)).decrypt('radius.secret', sealed)).to.throw()
    const parts = sealed.split('.')
    const ct = Buffer.from(parts[3], 'base64url')
    ct[0] ^= 1
    expect(() => s.decrypt('radius.secret', [...parts.slice(0, 3), ct.toString('base64url')].join('.'))).to.throw()
  })

  it('opens many at once in order, a large batch on a second thread too, with v1 and v2 envelopes mixed', async () => {
    const legacy = randomBytes(32)
    const mixed = createSecrets(key, legacy)
    const v1 = createSecrets(legacy) // v1 is the same cipher under the legacy bytes: re-label a v2 envelope of that key
    const plain = Array.from({ length: 25_000 }, (_, i) => `secret ${i} ✓`)
    const sealed = plain.map((p, i) => (i % 7 === 3 ? 'v1.' + v1.encrypt('identity.network_verifiers', p).slice(3) : mixed.encrypt('identity.network_verifiers', p)))
    expect(await mixed.decryptMany('identity.network_verifiers', sealed)).to.deep.equal(plain)
    expect(await mixed.decryptMany('identity.network_verifiers', sealed.slice(0, 10))).to.deep.equal(plain.slice(0, 10))
  })

  it('refuses the whole batch when one envelope in the second thread\'s half is altered, or sealed for another purpose', async () => {
    const plain = Array.from({ length: 20_001 }, (_, i) => `v${i}`)
    const sealed = plain.map((p) => s.encrypt('radius.secret', p))
    const parts = sealed[20_000].split('.')
    const ct = Buffer.from(parts[3], 'base64url')
    ct[0] ^= 1
    const altered = [...sealed.slice(0, 20_000), [...parts.slice(0, 3), ct.toString('base64url')].join('.')]
    let refused: unknown = null
    await s.decryptMany('radius.secret', altered).catch((e: unknown) => (refused = e))
    expect(refused).to.be.instanceOf(Error)
    refused = null
    await s.decryptMany('mfa.totp_seed', sealed).catch((e: unknown) => (refused = e))
    expect(refused).to.be.instanceOf(Error)
  })

  it('answers 503 MASTER_KEY_UNAVAILABLE without a key', () => {
    const none = createSecrets(null)
    expect(none.loaded).to.equal(false)
    try {
      none.encrypt('x', 'y')
      expect.fail('encrypted without a key')
    } catch (e) {
      expect(isPortcullisError(e) && e.status === 503 && e.code === 'MASTER_KEY_UNAVAILABLE').to.equal(true)
    }
  })

  it('answers 503 MASTER_KEY_UNAVAILABLE for a large batch without a key, before any thread starts', async () => {
    const sealed = Array.from({ length: 20_000 }, () => s.encrypt('radius.secret', 'x'))
    let refused: unknown = null
    await createSecrets(null).decryptMany('radius.secret', sealed).catch((e: unknown) => (refused = e))
    expect(isPortcullisError(refused) && refused.status === 503 && refused.code === 'MASTER_KEY_UNAVAILABLE').to.equal(true)
  })
})

describe('master key', () => {
  let dir: string
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-key-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('accepts hex, base64 and long passphrases, and refuses a short one', () => {
    const k = randomBytes(32)
    expect(parseMasterKey(k.toString('hex'), 'k').equals(k)).to.equal(true)
    expect(parseMasterKey(k.toString('base64'), 'k').equals(k)).to.equal(true)
    expect(readMasterKey('a passphrase of thirty-two chars!', 'k')).to.deep.equal({ kind: 'passphrase', passphrase: 'a passphrase of thirty-two chars!' })
    expect(() => parseMasterKey('short', 'MASTER_KEY')).to.throw(BootError, /MASTER_KEY is neither .* at least 32/)
  })

  it('generates a 0600 key file on first embedded start and reads it back afterwards', () => {
    const first = loadMasterKey({ masterKey: null, masterKeyFile: null, dataDir: dir, mayGenerate: true })
    expect(first.source).to.equal('generated')
    expect(statSync(path.join(dir, 'master.key')).mode & 0o777).to.equal(0o600)
    const again = loadMasterKey({ masterKey: null, masterKeyFile: null, dataDir: dir, mayGenerate: true })
    expect(again.source).to.equal('data-dir')
    expect(again.material).to.deep.equal(first.material)
  })

  it('does not invent a key where it may not (a real PostgreSQL), and prefers MASTER_KEY and MASTER_KEY_FILE', () => {
    expect(loadMasterKey({ masterKey: null, masterKeyFile: null, dataDir: dir, mayGenerate: false })).to.deep.equal({ material: null, source: 'missing' })
    const hex = randomBytes(32).toString('hex')
    writeFileSync(path.join(dir, 'k'), hex + '\n')
    expect(loadMasterKey({ masterKey: null, masterKeyFile: path.join(dir, 'k'), dataDir: dir, mayGenerate: true }).source).to.equal('file')
    expect(loadMasterKey({ masterKey: hex, masterKeyFile: null, dataDir: dir, mayGenerate: true }).material).to.deep.equal({ kind: 'key', key: Buffer.from(hex, 'hex') })
    expect(() => readFileSync(path.join(dir, 'master.key'))).to.throw()
  })
})

// Pinned to PostgreSQL: in the PostgreSQL run only, not once more in the embedded run (docs/testing.md).
;(testEngines().includes('postgres') ? describe : describe.skip)('an app on a real PostgreSQL without a master key', () => {
  it('starts degraded: /ready 503 with master_key missing, gated routes 503, /healthz ok', async () => {
    const { startTestApp } = await import('../kit/app.js')
    // On PostgreSQL whatever TEST_ENGINE says: the embedded engine generates a key in DATA_DIR instead.
    const t = await startTestApp({ engine: 'postgres', env: { MASTER_KEY: '' } })
    try {
      const ready = await t.req('GET', '/ready')
      expect(ready.status).to.equal(503)
      expect(ready.body).to.deep.include({ status: 'degraded', checks: { database: 'ok', master_key: 'missing' } })
      expect((await t.req('GET', '/healthz')).status).to.equal(200)
      const gated = await t.req('GET', '/api/v1/dashboard/system-info', { headers: { authorization: 'Bearer x.y.z' } })
      expect(gated.status).to.equal(503)
      expect(gated.body.code).to.equal('MASTER_KEY_UNAVAILABLE')
    } finally {
      await t.stop()
    }
  })
})
