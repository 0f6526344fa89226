import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // One authenticator per user; a pending (unconfirmed) row does not guard the sign-in yet.
  await knex.schema.createTable('mfa_totp', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE')
    // The seed, sealed with the master key (purpose mfa.totp_seed).
    t.text('secret').notNullable()
    t.boolean('confirmed').notNullable().defaultTo(false)
    t.timestamp('confirmed_at', { useTz: true })
    // The last time step a code was accepted for: that step and earlier ones are replays.
    t.bigInteger('last_used_step')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })

  // Wrong codes per mfa token (by jti), shared by every node: the budget holds cluster-wide.
  await knex.schema.createTable('mfa_token_budget', (t) => {
    t.uuid('jti').primary()
    t.integer('failures').notNullable().defaultTo(0)
    t.timestamp('burnt_at', { useTz: true })
    // Set when a right code redeemed the token: it is single use.
    t.timestamp('spent_at', { useTz: true })
    t.timestamp('expires_at', { useTz: true }).notNullable().index()
  })
}
