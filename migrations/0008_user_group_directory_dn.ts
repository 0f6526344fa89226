import type { Knex } from 'knex'

/**
 * A user group may name a directory group (its DN): the directory users the directory lists as
 * members there are members of the user group too, for the AAA policy on the daemons (FreeRADIUS
 * and tac_plus-ng ask the directory at each login). Null: no mapping. docs/directory.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('user_groups', (t) => {
    t.string('directory_group_dn', 1024)
  })
}
