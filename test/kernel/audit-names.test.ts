/** The audit trail keeps an object's name as it was at each event: a rename or a deletion later does not change what an entry says. */
import { expect } from 'chai'
import { startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { uniq } from '../identity/helpers.js'

for (const engine of testEngines()) {
  describe(`audit trail: names at the event (${engine})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine })
    })
    after(async () => t?.stop())

    it('an entry names the object as it was, after a rename and a deletion', async () => {
      const first = uniq('noc-ops')
      const second = uniq('noc-admins')
      const created = await t.admin('POST', '/api/v1/roles', { body: { name: first, permissions: ['audit.read'] } })
      expect(created.status, JSON.stringify(created.body)).to.equal(201)
      const id = created.body.id as string
      expect((await t.admin('PUT', `/api/v1/roles/${id}`, { body: { name: second } })).status).to.equal(200)
      expect((await t.admin('DELETE', `/api/v1/roles/${id}`)).status).to.equal(204)

      const r = await t.admin('GET', `/api/v1/audit?resource_id=${id}&sort_by=at&sort_order=asc`)
      expect(r.status).to.equal(200)
      const byAction = Object.fromEntries(r.body.items.map((e: { action: string; resource_name: string | null }) => [e.action, e.resource_name]))
      // Created as the first name; renamed to the second; deleted as the second — the role no longer exists.
      expect(byAction).to.deep.equal({ 'role.create': first, 'role.update': second, 'role.delete': second })
      // The kept name is searchable, though no role bears it any more.
      const found = await t.admin('GET', `/api/v1/audit?search=${encodeURIComponent(first)}`)
      expect(found.body.items.map((e: { resource_id: string }) => e.resource_id)).to.include(id)
    })

    it('a setting change names the setting by its key', async () => {
      const key = 'identity.public_url'
      expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value: 'https://nac.example.test/' } })).status).to.equal(200)
      const r = await t.admin('GET', `/api/v1/audit?resource_type=setting&resource_id=${key}`)
      expect(r.body.items[0]).to.include({ action: 'security_setting.update', resource_name: key })
    })

    it('a refused sign-in names the attempted user', async () => {
      const name = uniq('nobody')
      await t.req('POST', '/api/v1/auth/login', { body: { username: name, password: 'wrong-password-1' } })
      const r = await t.admin('GET', `/api/v1/audit?actor_name=${encodeURIComponent(name)}`)
      expect(r.body.items[0]?.resource_name).to.equal(name)
    })
  })
}
