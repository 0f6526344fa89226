/**
 * Network passwords through the API: what a network-login user's password becomes (verifiers
 * OpenSSL agrees with, at 64 and 128 bytes too), what the devices could never use (a NUL byte, more
 * than RADIUS PAP carries, counted in UTF-8 bytes), the password asked for in the request that turns
 * network login or CHAP on, no network login for directory users, and the repair of verifiers the
 * old SHA-512-crypt code got wrong. Every refusal is a 422 in the error envelope that changes nothing.
 */
import { spawnSync } from 'node:child_process'
import { expect } from 'chai'
import { parseSetting } from '../../kernel/identity/sha512-crypt.js'
import { deriveVerifiers, sealVerifiers } from '../../kernel/identity/verifiers.js'
import { parseMasterKey } from '../../kernel/security/master-key.js'
import { createSecrets } from '../../kernel/security/secrets.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { auditRows, createUser, expectError, STRONG, STRONG_2 } from './helpers.js'

/** `pattern` repeated, then ASCII, to exactly `bytes` UTF-8 bytes. */
function ofBytes(bytes: number, pattern = 'Key-9'): string {
  let s = ''
  for (const c of pattern.repeat(bytes)) {
    if (Buffer.byteLength(s + c) > bytes) break
    s += c
  }
  s += 'q'.repeat(bytes - Buffer.byteLength(s))
  expect(Buffer.byteLength(s)).to.equal(bytes)
  return s
}

/** `openssl passwd -6` with the verifier's own salt: an implementation apart from ours. */
function opensslAgrees(password: string, sha512: string): void {
  const { salt } = parseSetting(sha512)!
  const r = spawnSync('openssl', ['passwd', '-6', '-salt', salt, '-stdin'], { input: password + '\n', encoding: 'utf8' })
  expect(r.status, r.stderr).to.equal(0)
  expect(sha512, `${Buffer.byteLength(password)} bytes`).to.equal(r.stdout.trim())
}

describe('users API: network passwords', function () {
  this.timeout(60_000)
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())
  beforeEach(async () => {
    await t.app.db.knex('rate_limit_hits').delete()
  })

  const row = async (id: string) => (await t.app.db.knex('users').where({ id }).first())!
  const verifiers = async (id: string) => (await t.app.identity.networkVerifiers(id))!
  const put = (id: string, body: Record<string, unknown>) => t.admin('PUT', `/api/v1/users/${id}`, { body })
  const login = (username: string, password: string) => t.req('POST', '/api/v1/auth/login', { body: { username, password } })

  /** The request was refused: same row, no new audit entry. */
  async function unchanged(id: string, act: () => Promise<void>) {
    const [before, audit] = [await row(id), (await auditRows(t, id)).length]
    await act()
    expect(await row(id)).to.deep.equal(before)
    expect(await auditRows(t, id)).to.have.length(audit)
  }

  describe('verifiers', () => {
    it('a 64-, 128-byte password (ASCII, 2- and 4-byte UTF-8) gets a SHA-512 crypt OpenSSL agrees with, set on create, by change and by the user', async () => {
      for (const pw of [ofBytes(64), ofBytes(128), ofBytes(64, 'Пароль-'), ofBytes(128, 'Ключ🔐'), ofBytes(63), ofBytes(65)]) {
        const u = await createUser(t, { password: pw, network_login: true })
        expect(u.network_verifiers_set).to.equal(true)
        opensslAgrees(pw, (await verifiers(u.id)).sha512_crypt)
      }
      const u = await createUser(t, { password: STRONG, network_login: true })
      const changed = ofBytes(128, 'Schlüssel-')
      expect((await put(u.id, { password: changed })).status).to.equal(200)
      opensslAgrees(changed, (await verifiers(u.id)).sha512_crypt)

      const session = await login(u.username, changed)
      expect(session.status, JSON.stringify(session.body)).to.equal(200)
      const own = ofBytes(64, '🔐')
      const r = await t.req('POST', '/api/v1/auth/change-password', { token: session.body.access_token, body: { current_password: changed, new_password: own } })
      expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 204])
      opensslAgrees(own, (await verifiers(u.id)).sha512_crypt)
    })
  })

  describe('what a device could never use', () => {
    it('refuses a NUL byte in a network password with 422 PASSWORD_POLICY, on create, change and change-password, changing nothing', async () => {
      const nul = 'Violet-Lantern\u0000-Orbit-42'
      const c = await t.admin('POST', '/api/v1/users', { body: { username: 'nul-create', password: nul, network_login: true } })
      expectError(c, 422, 'PASSWORD_POLICY', 'password')
      expect(c.body.detail).to.match(/NUL/)
      expect(await t.app.db.knex('users').where({ username: 'nul-create' }).first()).to.equal(undefined)

      const u = await createUser(t, { password: STRONG, network_login: true })
      await unchanged(u.id, async () => expectError(await put(u.id, { password: nul }), 422, 'PASSWORD_POLICY', 'password'))
      // Turning network login on with it, for a user whose current password is fine.
      const off = await createUser(t, { password: STRONG })
      await unchanged(off.id, async () => expectError(await put(off.id, { network_login: true, password: nul }), 422, 'PASSWORD_POLICY', 'password'))

      const session = await login(u.username, STRONG)
      await unchanged(u.id, async () => {
        const r = await t.req('POST', '/api/v1/auth/change-password', { token: session.body.access_token, body: { current_password: STRONG, new_password: nul } })
        expectError(r, 422, 'PASSWORD_POLICY', 'new_password')
      })
    })

    it('counts in UTF-8 bytes: 128 pass, 129 are refused saying how many over, 43 three-byte characters (43 string units) too', async () => {
      const u = await createUser(t, { password: ofBytes(128), network_login: true })
      const cases: [string, string, RegExp][] = [
        ['129 ASCII bytes', ofBytes(129), /129 bytes, 1 byte over/],
        ['43 × €: 43 units, 129 bytes', '€'.repeat(43), /129 bytes, 1 byte over/],
        ['256 ASCII bytes (more than TACACS+ carries too)', ofBytes(256), /256 bytes, 128 bytes over/],
        ['64 four-byte characters', '🔐'.repeat(64), /256 bytes, 128 bytes over/],
      ]
      for (const [name, pw, detail] of cases) {
        await unchanged(u.id, async () => {
          const r = await put(u.id, { password: pw })
          expectError(r, 422, 'PASSWORD_POLICY', 'password')
          expect(r.body.detail, name).to.match(detail).and.match(/128 bytes/)
        })
      }
      const ru = await t.admin('PUT', `/api/v1/users/${u.id}`, { body: { password: '€'.repeat(43) }, headers: { 'accept-language': 'ru' } })
      expectError(ru, 422, 'PASSWORD_POLICY', 'password')
      expect(ru.body.detail).to.match(/не более 128 байт .* 129 байт, превышение — 1 байт\./).and.not.include('{{')
    })

    it('refuses an unpaired surrogate, which has no UTF-8 form', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      await unchanged(u.id, async () => expectError(await put(u.id, { password: 'Violet-Lantern-\ud800-42' }), 422, 'PASSWORD_POLICY', 'password'))
    })

    it('keeps today\'s rules for a user without network login: 256 characters, a NUL byte', async () => {
      expect((await createUser(t, { password: ofBytes(256) })).password_set).to.equal(true)
      const u = await createUser(t, { password: '€'.repeat(200) })
      expect((await put(u.id, { password: 'Violet-Lantern\u0000-Orbit-42' })).status).to.equal(200)
      expect((await row(u.id)).network_verifiers).to.equal(null)
      // Such a password cannot come along when network login is turned on.
      await unchanged(u.id, async () => expectError(await put(u.id, { network_login: true, password: ofBytes(200) }), 422, 'PASSWORD_POLICY', 'password'))
    })
  })

  describe('turning network login or CHAP on asks for the password', () => {
    it('network login on for a user with a password but no verifiers: 422 NETWORK_PASSWORD_REQUIRED at password; with it, verifiers', async () => {
      const u = await createUser(t, { password: STRONG })
      await unchanged(u.id, async () => {
        const r = await put(u.id, { network_login: true, display_name: 'Dana' })
        expectError(r, 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
        expect(r.body.detail).to.match(/network_login/)
      })
      const on = await put(u.id, { network_login: true, password: STRONG_2 })
      expect(on.body).to.include({ network_login: true, network_verifiers_set: true })
      // Already on with verifiers: other changes need no password.
      expect((await put(u.id, { network_login: true, display_name: 'Dana' })).status).to.equal(200)
    })

    it('a user without any password may have network login turned on: the verifiers come with the first password', async () => {
      const created = await createUser(t, { network_login: true })
      expect(created).to.include({ network_login: true, network_verifiers_set: false, password_set: false })
      const u = await createUser(t, {})
      expect((await put(u.id, { network_login: true })).body.network_verifiers_set).to.equal(false)
      expect((await put(u.id, { password: STRONG })).body.network_verifiers_set).to.equal(true)
    })

    it('CHAP on for a network user with a password: 422 without the password, the cleartext kept with it', async () => {
      const u = await createUser(t, { password: STRONG, network_login: true })
      await unchanged(u.id, async () => {
        const r = await put(u.id, { chap_enabled: true })
        expectError(r, 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
        expect(r.body.detail).to.match(/chap_enabled/)
      })
      expect((await put(u.id, { chap_enabled: true, password: STRONG_2 })).body.chap_enabled).to.equal(true)
      expect((await verifiers(u.id)).cleartext).to.equal(STRONG_2)
      // Without network login nothing is sealed, so nothing is asked for; turning network login on then asks.
      const plain = await createUser(t, { password: STRONG })
      expect((await put(plain.id, { chap_enabled: true })).status).to.equal(200)
      expectError(await put(plain.id, { network_login: true }), 422, 'NETWORK_PASSWORD_REQUIRED', 'password')
    })
  })

  describe('directory users', () => {
    it('gives a directory user network login without verifiers (the daemons ask the directory), and refuses CHAP for one', async () => {
      const c = await t.admin('POST', '/api/v1/users', { body: { username: 'dir-net', source: 'directory', network_login: true } })
      expect(c.status).to.equal(201)
      expect(c.body).to.include({ source: 'directory', network_login: true, network_verifiers_set: false, password_set: false })
      const listed = (await t.app.identity.networkUsers(t.app.db.knex)).find((u) => u.username === 'dir-net')!
      expect(listed).to.include({ source: 'directory', verifiers: null })

      const chap = await t.admin('POST', '/api/v1/users', { body: { username: 'dir-chap', source: 'directory', network_login: true, chap_enabled: true } })
      expectError(chap, 422, 'NETWORK_LOGIN_NOT_ALLOWED', 'chap_enabled')
      expect(chap.body.detail).to.match(/CHAP/)
      expect(await t.app.db.knex('users').where({ username: 'dir-chap' }).first()).to.equal(undefined)

      const dir = await createUser(t, { source: 'directory' })
      expect((await put(dir.id, { network_login: true })).body).to.include({ network_login: true, network_verifiers_set: false })
      await unchanged(dir.id, async () => expectError(await put(dir.id, { chap_enabled: true }), 422, 'NETWORK_LOGIN_NOT_ALLOWED', 'chap_enabled'))
      // A network user moved to the directory loses the local password and verifiers, and keeps network login.
      const net = await createUser(t, { password: STRONG, network_login: true })
      const moved = await put(net.id, { source: 'directory' })
      expect(moved.body).to.include({ source: 'directory', network_login: true, network_verifiers_set: false, password_set: false })
      const chapUser = await createUser(t, { password: STRONG, network_login: true, chap_enabled: true })
      await unchanged(chapUser.id, async () => expectError(await put(chapUser.id, { source: 'directory' }), 422, 'NETWORK_LOGIN_NOT_ALLOWED', 'source'))
    })
  })

  describe('verifiers stored by the old SHA-512-crypt code', () => {
    const secrets = () => createSecrets(parseMasterKey(t.masterKey, 'test'))
    // What unixcrypt 3.0.4 made of ofBytes(64) with salt "Portcullis.Salt": wrong, as for every 64·n-byte password.
    const BROKEN_64 = '$6$Portcullis.Salt$FYA5JbUrW2MM2pOr/iTbPtuoCZhhW0pZZ7bxW0IxT99yVX9fWeenBvFgr6tLEXDKtCroF8b9fZYUvCUGb1EQu0'
    const storeBroken = async (id: string, pw: string, chap = false) => {
      const sealed = sealVerifiers(secrets(), { ...deriveVerifiers(pw, chap), sha512_crypt: BROKEN_64 })
      await t.app.db.knex('users').where({ id }).update({ network_verifiers: sealed })
    }

    it('a sign-in with a 64-byte password re-derives the wrong SHA-512 crypt; other sign-ins leave the verifiers alone', async () => {
      const pw = ofBytes(64)
      const u = await createUser(t, { password: pw, network_login: true })
      await storeBroken(u.id, pw)
      expect((await verifiers(u.id)).sha512_crypt).to.equal(BROKEN_64)
      expect((await login(u.username, pw)).status).to.equal(200)
      const fixed = (await verifiers(u.id)).sha512_crypt
      expect(fixed).to.not.equal(BROKEN_64)
      opensslAgrees(pw, fixed)

      const other = await createUser(t, { password: ofBytes(65), network_login: true })
      const before = (await row(other.id)).network_verifiers
      expect((await login(other.username, ofBytes(65))).status).to.equal(200)
      expect((await row(other.id)).network_verifiers).to.equal(before)
      // A wrong password repairs nothing.
      await storeBroken(u.id, pw)
      expect((await login(u.username, ofBytes(64, 'x'))).status).to.equal(401)
      expect((await verifiers(u.id)).sha512_crypt).to.equal(BROKEN_64)
    })

    it('a CHAP user\'s wrong SHA-512 crypt is recomputed from the kept password for the renderers, with the same salt', async () => {
      const pw = ofBytes(64)
      const u = await createUser(t, { password: pw, network_login: true, chap_enabled: true })
      await storeBroken(u.id, pw, true)
      const v = await verifiers(u.id)
      expect(v.sha512_crypt).to.match(/^\$6\$Portcullis\.Salt\$/).and.not.equal(BROKEN_64)
      opensslAgrees(pw, v.sha512_crypt)
      const rendered = (await t.app.identity.networkUsers(t.app.db.knex)).find((x) => x.id === u.id)!
      expect(rendered.verifiers!.sha512_crypt).to.equal(v.sha512_crypt)
    })
  })
})
