import type { Knex } from 'knex'

/**
 * One users table for both kinds of login: the management API (argon2id) and
 * the network (verifiers the daemons accept, sealed with the master key).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('username', 64).notNullable()
    t.string('display_name', 128)
    t.string('email', 254)
    t.boolean('enabled').notNullable().defaultTo(true)
    t.string('source', 16).notNullable().defaultTo('local')
    t.text('password_hash')
    t.text('network_verifiers')
    t.boolean('network_login').notNullable().defaultTo(false)
    t.boolean('is_admin').notNullable().defaultTo(false)
    t.timestamp('password_changed_at', { useTz: true })
    t.boolean('must_change_password').notNullable().defaultTo(false)
    // Tokens issued before this instant are void (password change, disable, sign-out everywhere).
    t.timestamp('sessions_valid_after', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX users_username_lower ON users (lower(username))')

  await knex.schema.createTable('user_groups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX user_groups_name_lower ON user_groups (lower(name))')

  await knex.schema.createTable('roles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.jsonb('permissions').notNullable().defaultTo('[]')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX roles_name_lower ON roles (lower(name))')

  await knex.schema.createTable('user_group_members', (t) => {
    t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE')
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.primary(['group_id', 'user_id'])
    t.index(['user_id'])
  })
  await knex.schema.createTable('user_roles', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.uuid('role_id').notNullable().references('roles.id').onDelete('CASCADE')
    t.primary(['user_id', 'role_id'])
  })
  await knex.schema.createTable('group_roles', (t) => {
    t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE')
    t.uuid('role_id').notNullable().references('roles.id').onDelete('CASCADE')
    t.primary(['group_id', 'role_id'])
  })

  await knex.schema.createTable('revoked_tokens', (t) => {
    t.uuid('jti').primary()
    t.timestamp('expires_at', { useTz: true }).notNullable().index()
  })

  await knex.schema.createTable('password_resets', (t) => {
    t.string('token_hash', 64).primary()
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('used_at', { useTz: true })
  })

  // Bumped by every identity change so that each node's cache of actors knows to reload.
  await knex('kernel_meta').insert({ key: 'identity_version', value: '0' }).onConflict('key').ignore()
}
