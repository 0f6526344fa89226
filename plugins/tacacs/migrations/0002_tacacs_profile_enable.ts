import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // Enable per profile: refused (none, as before), the user's login password (login), or the profile's
  // enable secret, kept only as its SHA-512 crypt verifier (secret). The verifier is never read back by the API.
  await knex.schema.alterTable('tacacs_profiles', (t) => {
    t.string('enable_mode', 6).notNullable().defaultTo('none')
    t.smallint('enable_privilege_level').notNullable().defaultTo(15)
    t.text('enable_secret')
  })
  await knex.raw(`ALTER TABLE tacacs_profiles ADD CONSTRAINT tacacs_profiles_enable_mode CHECK (enable_mode IN ('none', 'login', 'secret'))`)
  await knex.raw('ALTER TABLE tacacs_profiles ADD CONSTRAINT tacacs_profiles_enable_level CHECK (enable_privilege_level BETWEEN 0 AND 15)')
  // A secret exactly when the mode uses one: turning the mode away from secret drops the verifier.
  await knex.raw(`ALTER TABLE tacacs_profiles ADD CONSTRAINT tacacs_profiles_enable_secret CHECK ((enable_mode = 'secret') = (enable_secret IS NOT NULL))`)
}
