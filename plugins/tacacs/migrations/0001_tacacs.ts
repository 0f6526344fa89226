import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // A command set keeps its commands (each with its argument rules) as one ordered jsonb array: it is
  // always read and replaced whole, and a replacement is one row update, atomic by construction.
  await knex.schema.createTable('tacacs_command_sets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.jsonb('commands').notNullable().defaultTo(knex.raw(`'[]'::jsonb`))
    // Kept beside the array so that a list page never reads the commands.
    t.integer('command_count').notNullable().defaultTo(0)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX tacacs_command_sets_name_ci ON tacacs_command_sets (lower(name))')

  // `id` is the target of the AAA policy's rules (ON DELETE SET NULL there: a rule loses its profile).
  await knex.schema.createTable('tacacs_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.smallint('privilege_level').notNullable().defaultTo(1)
    t.jsonb('shell_attributes').notNullable().defaultTo(knex.raw(`'[]'::jsonb`))
    t.string('default_action', 6).notNullable().defaultTo('deny')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX tacacs_profiles_name_ci ON tacacs_profiles (lower(name))')
  await knex.raw('ALTER TABLE tacacs_profiles ADD CONSTRAINT tacacs_profiles_priv_lvl CHECK (privilege_level BETWEEN 0 AND 15)')
  await knex.raw(`ALTER TABLE tacacs_profiles ADD CONSTRAINT tacacs_profiles_default_action CHECK (default_action IN ('permit', 'deny'))`)

  // The ordered command sets of a profile. RESTRICT: a set in use cannot go, even past a racing check.
  await knex.schema.createTable('tacacs_profile_command_sets', (t) => {
    t.uuid('profile_id').notNullable().references('tacacs_profiles.id').onDelete('CASCADE')
    t.uuid('command_set_id').notNullable().references('tacacs_command_sets.id').onDelete('RESTRICT')
    t.integer('position').notNullable()
    t.primary(['profile_id', 'position'])
    t.unique(['profile_id', 'command_set_id'])
    t.index(['command_set_id'])
  })
}
