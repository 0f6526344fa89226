/**
 * MASTER_KEY at rest: a weak passphrase refuses the boot and says why and how to
 * make a key; a strong one is stretched with scrypt, its random salt and parameters
 * kept in the database, so a second boot opens what the first sealed; an
 * installation from before stretching keeps opening its secrets (its sessions
 * end); a wrong passphrase is refused by the key check.
 */
import { createCipheriv, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { BootError } from '../../kernel/boot-error.js'
import { deriveKey, keyCheckValue } from '../../kernel/security/secrets.js'
import { TokenService } from '../../kernel/security/tokens.js'
import { derivePassphraseKey, parseKdfParams } from '../../kernel/security/unlock.js'
import { startTestApp, type TestApp, type TestAppOptions, testEngines } from '../kit/app.js'

const PLUGINS = ['./test/fixtures/plugins/sealed-probe']
const PASSPHRASE = 'Wide ocean, quiet lantern; 7 herons fold the map at dawn'
const OTHER = 'Seven herons fold the map at dawn; wide ocean, quiet lantern'
const HOW = 'openssl rand -hex 32'

/** The sealing code as it was before passphrases were stretched: the passphrase's bytes were the master key. */
function legacySeal(passphrase: string, purpose: string, plaintext: string): string {
  const iv = Buffer.alloc(12, 7)
  const c = createCipheriv('aes-256-gcm', deriveKey(Buffer.from(passphrase, 'utf8'), `secret:${purpose}`), iv)
  c.setAAD(Buffer.from(purpose))
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()])
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
}

async function refusal(o: TestAppOptions): Promise<BootError> {
  let t: TestApp | undefined
  try {
    t = await startTestApp(o)
  } catch (e) {
    expect(e).to.be.instanceOf(BootError)
    return e as BootError
  }
  await t.stop()
  return expect.fail('the app booted')
}

const meta = async (t: TestApp, key: string) => (await t.app.db.knex('kernel_meta').where({ key }).first('value'))?.value

const readProbe = async (t: TestApp) => {
  const r = await t.req('GET', '/api/v1/sealed-probe', { token: await t.token({ permissions: ['sealed-probe.read'] }) })
  expect(r.status, r.text).to.equal(200)
  return r.body.value as string | null
}

for (const engine of testEngines()) {
  describe(`${engine}: MASTER_KEY passphrases`, function () {
    this.timeout(120_000)
    const dirs: string[] = []
    const apps: TestApp[] = []
    const dir = () => {
      const d = mkdtempSync(path.join(os.tmpdir(), 'portcullis-mk-'))
      dirs.push(d)
      return d
    }
    const start = async (o: TestAppOptions) => {
      const t = await startTestApp({ engine, plugins: PLUGINS, ...o })
      apps.push(t)
      return t
    }
    const stop = async (t: TestApp) => {
      apps.splice(apps.indexOf(t), 1)
      await t.stop()
    }
    after(async () => {
      for (const t of apps) await t.stop().catch(() => undefined)
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    })

    it('refuses weak passphrases and made-up keys at start, saying what is wrong and how to make a key', async () => {
      const cases: [string, RegExp][] = [
        ['correct horse battery staple', /28 characters long; a passphrase needs at least 32/],
        ['abababababababababababababababab', /uses only 2 different characters; at least 10/],
        ['passwordpasswordpasswordpassword', /uses only 7 different characters/],
        ['qwertyuiopasdfghjklzxcvbnm1234567890', /too predictable: about \d+ bits .* at least 96/],
        ['abcdefghijklmnopqrstuvwxyz123456', /too predictable/],
        ['iloveyouiloveyou123456789password1', /too predictable/],
        ['00'.repeat(32), /not random: its 32 bytes hold only 1 different values/],
      ]
      for (const [key, why] of cases) {
        const e = await refusal({ engine, masterKey: key, dataDir: dir() })
        expect(e.code, key).to.equal('MASTER_KEY_INVALID')
        expect(e.message, key).to.match(why).and.include('MASTER_KEY').and.include(HOW)
      }
    })

    it('stretches a strong passphrase with the stored salt: a second boot opens what the first sealed, another passphrase is refused', async () => {
      const dataDir = dir()
      const first = await start({ masterKey: PASSPHRASE, dataDir })
      const kdf = parseKdfParams((await meta(first, 'master_key_kdf'))!)
      expect(kdf).to.include({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 })
      expect(Buffer.from(kdf.salt, 'base64')).to.have.length(16)
      const key = await derivePassphraseKey(PASSPHRASE, kdf)
      expect(await meta(first, 'master_key_check')).to.equal(keyCheckValue(key)).and.not.equal(keyCheckValue(Buffer.from(PASSPHRASE)))
      expect((await first.admin('PUT', '/api/v1/settings/sealed-probe.secret', { body: { value: 'n3w-s3cret' } })).status).to.equal(200)
      const stored = (await first.app.db.knex('settings').where({ key: 'sealed-probe.secret' }).first('value'))! as { value: { sealed: string } }
      expect(stored.value.sealed).to.match(/^v2\./).and.not.include('n3w-s3cret')
      const databaseUrl = first.databaseUrl ?? undefined
      await stop(first)

      const e = await refusal({ engine, plugins: PLUGINS, masterKey: OTHER, dataDir, databaseUrl })
      expect(e.code).to.equal('MASTER_KEY_INVALID')
      expect(e.message).to.match(/not the one the database was set up with/)

      const second = await start({ masterKey: PASSPHRASE, dataDir, databaseUrl })
      expect(await readProbe(second)).to.equal('n3w-s3cret')
      expect(parseKdfParams((await meta(second, 'master_key_kdf'))!)).to.deep.equal(kdf)
      await stop(second)
    })

    it('keeps an installation from before stretching: its v1 envelopes open, the check value moves to scrypt, its old sessions end', async () => {
      const dataDir = dir()
      const t = await start({ masterKey: PASSPHRASE, dataDir })
      // Turn the database into what the previous version left: no salt, the check value of the
      // passphrase's bytes, a secret sealed with them, and a session signed with them.
      const legacy = Buffer.from(PASSPHRASE, 'utf8')
      await t.app.db.knex('kernel_meta').where({ key: 'master_key_kdf' }).delete()
      await t.app.db.knex('kernel_meta').where({ key: 'master_key_check' }).update({ value: keyCheckValue(legacy) })
      const sealed = legacySeal(PASSPHRASE, 'setting:sealed-probe.secret', JSON.stringify('old-s3cret'))
      await t.app.db.knex('settings').insert({ key: 'sealed-probe.secret', value: JSON.stringify({ sealed }) }).onConflict('key').merge()
      const sub = randomUUID()
      await t.token({ admin: true, sub })
      const oldSession = (await new TokenService(legacy).issue({ sub, name: 'tester', purpose: 'session', ttlSeconds: 600 })).token
      const databaseUrl = t.databaseUrl ?? undefined
      await stop(t)

      const wrong = await refusal({ engine, plugins: PLUGINS, masterKey: OTHER, dataDir, databaseUrl })
      expect(wrong.code).to.equal('MASTER_KEY_INVALID')

      const upgraded = await start({ masterKey: PASSPHRASE, dataDir, databaseUrl })
      expect(await readProbe(upgraded)).to.equal('old-s3cret')
      const kdf = parseKdfParams((await meta(upgraded, 'master_key_kdf'))!)
      expect(await meta(upgraded, 'master_key_check')).to.equal(keyCheckValue(await derivePassphraseKey(PASSPHRASE, kdf)))
      expect((await upgraded.req('GET', '/api/v1/sealed-probe', { token: oldSession })).status).to.equal(401)
      expect((await upgraded.admin('PUT', '/api/v1/settings/sealed-probe.secret', { body: { value: 'n3w' } })).status).to.equal(200)
      expect(await readProbe(upgraded)).to.equal('n3w')
      await stop(upgraded)
    })
  })
}
