import type { Knex } from 'knex'

/**
 * One-time recovery codes (docs/mfa.md "Recovery codes"): the way back in for a user who lost the
 * phone. Only a hash of each code is stored (services/recovery-codes.ts); a code is spent by
 * deleting its row. user_id points at no kernel table (as in 0002): the user reference guard
 * clears these rows in the deleting transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mfa_recovery_code', (t) => {
    t.uuid('user_id').notNullable()
    // base64url of scrypt(code, salt = the user's id): 43 characters.
    t.string('code_hash', 64).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.primary(['user_id', 'code_hash'])
  })
}
