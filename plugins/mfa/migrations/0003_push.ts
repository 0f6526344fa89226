import type { Knex } from 'knex'

/**
 * The push factor (docs/push-mfa.md): phones enrolled as devices, one-time enrollment tokens,
 * challenges (one a push), and each user's factor choice and report lock. user_id points at no
 * kernel table (migration 0002): the user reference guard clears these rows in the deleting
 * transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mfa_push_device', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('user_id').notNullable().index()
    t.string('name', 64).notNullable()
    // 'p256' | 'ed25519'
    t.string('algorithm', 16).notNullable()
    // base64url of the SPKI DER: the public half only; the private key never leaves the phone.
    t.text('public_key').notNullable()
    // Where the push service delivers (PushAddress): a Web Push subscription, or a test queue.
    t.jsonb('address').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('last_seen_at', { useTz: true })
  })

  // One-time QR-code tokens, stored as their sha256 (hex): a database reader cannot enroll with one.
  await knex.schema.createTable('mfa_push_enrollment', (t) => {
    t.string('token_hash', 64).primary()
    t.uuid('user_id').notNullable().index()
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('used_at', { useTz: true })
  })

  await knex.schema.createTable('mfa_push_challenge', (t) => {
    t.uuid('id').primary()
    t.uuid('user_id').notNullable()
    // Signed by the phone with the decision: an answer cannot be moved to another challenge.
    t.string('nonce', 64).notNullable()
    // Two digits, shown by the caller's screen; never sent to the phone.
    t.string('number', 2)
    t.boolean('number_matching').notNullable().defaultTo(false)
    // pending | approved | denied | wrong_number | reported | expired | cancelled
    t.string('state', 16).notNullable().defaultTo('pending')
    // sign_in | radius | tacacs | portal
    t.string('origin', 16).notNullable()
    t.jsonb('context').notNullable()
    t.uuid('burst_id').notNullable()
    // The mfa token (jti) of the API sign-in that sent it: its poll is the only one that may read it.
    t.uuid('token_jti')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('decided_at', { useTz: true })
    // The device that answered.
    t.uuid('device_id').references('mfa_push_device.id').onDelete('SET NULL')
    t.index(['user_id', 'created_at'])
  })

  // No row: the user signs in with whatever is enrolled. push_locked_at: a "report" answer stopped pushes.
  await knex.schema.createTable('mfa_user_factors', (t) => {
    t.uuid('user_id').primary()
    // 'totp' | 'push' | 'both'; null: whatever is enrolled.
    t.string('factors', 8)
    t.timestamp('push_locked_at', { useTz: true })
    t.string('push_locked_reason', 200)
  })
}
