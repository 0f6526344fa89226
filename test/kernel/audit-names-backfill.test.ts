/**
 * Migration 0014: entries written before 0013 kept no name; the backfill gives them the object's
 * current name where it still exists, and leaves a kept name and a deleted object's entries alone.
 * SQL on both engines: run it with TEST_ENGINE=postgres and with TEST_ENGINE=embedded.
 */
import { expect } from 'chai'
import type { Knex } from 'knex'
import { startTestApp, testEngines, type TestApp } from '../kit/app.js'
import { created, uniq } from '../kit/expect.js'
import { up } from '../../migrations/0014_audit_resource_name_backfill.js'

for (const engine of testEngines()) {
  describe(`audit trail: names for entries older than 0013 (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let knex: Knex
    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory'] })
      knex = t.app.db.knex
    })
    after(async () => t?.stop())

    const names = async (id: string) =>
      Object.fromEntries((await knex('audit_log').where({ resource_id: id }).select('action', 'resource_name')).map((r) => [r.action, r.resource_name]))

    it('fills the missing names from the objects that still exist, one kind after another', async () => {
      const device = await created(t, '/api/v1/devices', { name: uniq('bf-sw'), address: '10.240.0.1' })
      const renamed = uniq('bf-sw-core')
      expect((await t.admin('PUT', `/api/v1/devices/${device.id}`, { body: { name: renamed } })).status).to.equal(200)
      const group = await created(t, '/api/v1/device-groups', { name: uniq('bf-site') })
      const userGroup = await created(t, '/api/v1/user-groups', { name: uniq('bf-noc') })
      const user = await created(t, '/api/v1/users', { username: uniq('bf-olga') })
      const gone = await created(t, '/api/v1/roles', { name: uniq('bf-gone'), permissions: ['audit.read'] })
      expect((await t.admin('DELETE', `/api/v1/roles/${gone.id}`)).status).to.equal(204)

      // As a trail written before 0013 would be: the creations nameless; the device's rename keeps its name.
      const ids = [device.id, group.id, userGroup.id, user.id, gone.id]
      await knex('audit_log').whereIn('resource_id', ids).whereLike('action', '%.create').update({ resource_name: null })
      await knex('audit_log').where({ resource_id: device.id, action: 'device.update' }).update({ resource_name: 'as-it-was' })
      await knex('audit_log').where({ resource_id: gone.id }).update({ resource_name: null })

      await knex.transaction((trx) => up(trx))

      expect(await names(device.id)).to.deep.equal({ 'device.create': renamed, 'device.update': 'as-it-was' })
      expect(await names(group.id)).to.deep.equal({ 'device_group.create': group.name })
      expect(await names(userGroup.id)).to.deep.equal({ 'user_group.create': userGroup.name })
      expect((await names(user.id))['user.create']).to.equal(user.username)
      // The role no longer exists: its entries stay nameless rather than guessed.
      expect(await names(gone.id)).to.deep.equal({ 'role.create': null, 'role.delete': null })
      // A second run changes nothing (it touches only nameless rows).
      await knex.transaction((trx) => up(trx))
      expect((await names(device.id))['device.update']).to.equal('as-it-was')
    })
  })
}
