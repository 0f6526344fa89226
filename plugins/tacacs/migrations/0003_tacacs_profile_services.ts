import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // Services other than shell (junos-exec, fortigate, PaloAlto, ciscowlc …), each with its attributes:
  // always read and replaced whole with the profile, as shell_attributes are.
  await knex.schema.alterTable('tacacs_profiles', (t) => {
    t.jsonb('services').notNullable().defaultTo(knex.raw(`'[]'::jsonb`))
  })
}
