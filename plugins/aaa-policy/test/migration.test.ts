/**
 * Migration 0003 moves a database made by the earlier aaa-policy forward: that
 * one had foreign keys from the rules to users, user_groups, inventory_devices,
 * inventory_device_groups, tacacs_profiles and radius_profiles, and triggers on
 * those tables bumping the policy's version on a rename. The test rebuilds that
 * schema on a database with rules in it (the constraints and triggers exactly as
 * 0001 and 0002 created them, 0003 not yet applied), restarts the platform on
 * it, and finds them gone, every rule as it was, and the references held by the
 * owners' guards instead. On both engines.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { createDevice, createRadiusProfile, createRule, createTacacsProfile, createUser, createUserGroup, expectError, PLUGINS, RULES } from './helpers.js'
import { scratchFolder } from '../../../test/kit/scratch.js'

/** What 0001 (foreign keys) and 0002 (name triggers) of the earlier aaa-policy created. */
const EARLIER_SCHEMA = [
  `ALTER TABLE aaa_policy_rules
     ADD CONSTRAINT aaa_policy_rules_who_user_id_foreign FOREIGN KEY (who_user_id) REFERENCES users (id) ON DELETE RESTRICT,
     ADD CONSTRAINT aaa_policy_rules_who_group_id_foreign FOREIGN KEY (who_group_id) REFERENCES user_groups (id) ON DELETE RESTRICT,
     ADD CONSTRAINT aaa_policy_rules_where_device_id_foreign FOREIGN KEY (where_device_id) REFERENCES inventory_devices (id) ON DELETE RESTRICT,
     ADD CONSTRAINT aaa_policy_rules_where_device_group_id_foreign FOREIGN KEY (where_device_group_id) REFERENCES inventory_device_groups (id) ON DELETE RESTRICT,
     ADD CONSTRAINT aaa_policy_rules_tacacs_profile_id_foreign FOREIGN KEY (tacacs_profile_id) REFERENCES tacacs_profiles (id) ON DELETE SET NULL,
     ADD CONSTRAINT aaa_policy_rules_radius_profile_id_foreign FOREIGN KEY (radius_profile_id) REFERENCES radius_profiles (id) ON DELETE SET NULL`,
  ...[['users', 'username'], ['user_groups', 'name'], ['inventory_devices', 'name'], ['inventory_device_groups', 'name'], ['tacacs_profiles', 'name'], ['radius_profiles', 'name']].map(
    ([table, column]) => `CREATE TRIGGER aaa_policy_version_names AFTER UPDATE OF ${column} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION aaa_policy_version_bump()`,
  ),
  `DELETE FROM knex_migrations_aaa_policy WHERE name = '0003_own_tables_only'`,
]

const counts = async (t: TestApp) => {
  const knex = t.app.db.knex
  const fks = await knex.raw(`SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'aaa_policy_rules'::regclass AND contype = 'f'`)
  const triggers = await knex.raw(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = 'aaa_policy_version_names'`)
  return { fks: fks.rows[0].n as number, triggers: triggers.rows[0].n as number }
}

for (const engine of testEngines()) {
  describe(`AAA policy migration 0003: an earlier database moves forward (${engine})`, function () {
    this.timeout(90_000)
    let dataDir: string
    let t: TestApp | undefined

    before(() => {
      dataDir = scratchFolder('portcullis-policy-migration-')
    })
    after(async () => {
      await t?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('drops the foreign keys and triggers on other tables, keeps every rule, and the owners guard the references from then on', async () => {
      // The embedded database lives in DATA_DIR: the restart reuses it. PostgreSQL: the same database.
      t = await startTestApp({ engine, plugins: PLUGINS, dataDir: engine === 'embedded' ? dataDir : undefined })
      const [user, group, device, tp, rp] = await Promise.all([createUser(t), createUserGroup(t), createDevice(t), createTacacsProfile(t), createRadiusProfile(t)])
      const byUser = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: tp.id, radius_profile_id: rp.id })
      await createRule(t, { who: { group_id: group.id }, where: { device_id: device.id }, tacacs_profile_id: tp.id })
      for (const sql of EARLIER_SCHEMA) await t.app.db.knex.raw(sql)
      expect(await counts(t)).to.deep.equal({ fks: 6, triggers: 6 })
      const before = (await t.admin('GET', RULES)).body
      const { databaseUrl, masterKey } = t
      await t.stop()

      t = await startTestApp({ engine, plugins: PLUGINS, masterKey, ...(engine === 'embedded' ? { dataDir } : { databaseUrl: databaseUrl! }) })
      expect(await counts(t)).to.deep.equal({ fks: 0, triggers: 0 })
      expect(await t.app.db.knex('knex_migrations_aaa_policy').where({ name: '0003_own_tables_only' }).first('name')).to.not.equal(undefined)
      expect((await t.admin('GET', RULES)).body).to.deep.equal(before)

      expectError(await t.admin('DELETE', `/api/v1/devices/${device.id}`), 409, 'DEVICE_IN_USE', 'device_id')
      expectError(await t.admin('DELETE', `/api/v1/users/${user.id}`), 409, 'RECORD_IN_USE', 'user_id')
      expect((await t.admin('DELETE', `/api/v1/radius/profiles/${rp.id}`)).status).to.equal(204)
      expect((await t.admin('GET', `${RULES}/${byUser.id}`)).body).to.include({ radius_profile_id: null, tacacs_profile_id: tp.id })
    })
  })
}
