import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // MS-CHAPv1 is refused unless the profile a rule grants allows it (the FreeRADIUS site checks it after the policy).
  await knex.schema.alterTable('radius_profiles', (t) => {
    t.boolean('allow_mschapv1').notNullable().defaultTo(false)
  })
}
