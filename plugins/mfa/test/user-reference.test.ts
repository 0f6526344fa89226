/**
 * The MFA plugin's link to users goes through the kernel's reference contract
 * (sdk/references.ts), not a foreign key on the kernel's users table: deleting
 * a user through the API removes their authenticator in the same transaction
 * (what ON DELETE CASCADE did before migration 0002), and the table keeps no
 * foreign key to users. On both engines.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { base32Decode, hotp, timeStep } from '../services/totp.js'

const codeAt = (secret: string) => hotp(base32Decode(secret), timeStep(Date.now()))

for (const engine of testEngines()) {
  describe(`mfa: a user's authenticator follows the user through the kernel's contract (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['mfa'] })
    })
    after(async () => t?.stop())

    it('keeps no foreign key to the kernel\'s users table', async () => {
      const fks = await t.app.db.knex.raw(`SELECT conname FROM pg_constraint WHERE conrelid = 'mfa_totp'::regclass AND contype = 'f'`)
      expect(fks.rows).to.deep.equal([])
    })

    it('deleting a user with a confirmed authenticator removes it in the same transaction', async () => {
      const id = randomUUID()
      const session = await t.token({ sub: id })
      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token: session })
      expect(started.status, started.text).to.equal(200)
      const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token: session, body: { code: codeAt(started.body.secret) } })
      expect(confirmed.status, confirmed.text).to.equal(200)
      expect((await t.admin('GET', `/api/v1/users/${id}/mfa`)).body).to.include({ enrolled: true })
      expect(await t.app.db.knex('mfa_totp').where({ user_id: id }).first('user_id')).to.not.equal(undefined)

      const del = await t.admin('DELETE', `/api/v1/users/${id}`)
      expect(del.status, del.text).to.equal(204)
      expect(await t.app.db.knex('mfa_totp').where({ user_id: id }).first('user_id')).to.equal(undefined)
      expect((await t.admin('GET', `/api/v1/users/${id}/mfa`)).status).to.equal(404)
    })
  })
}
