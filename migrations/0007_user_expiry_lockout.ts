import type { Knex } from 'knex'

/**
 * User expiry and the lockout clear. `expires_at`: past it the daemons refuse the user's network
 * logins (tac_plus-ng `valid until`, FreeRADIUS `Expiration`) and the web sign-in is refused too;
 * null never expires. `lockout_cleared_at`: when an administrator last cleared the user's lockout;
 * rendered to FreeRADIUS, which forgets the failures it counted before that instant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.timestamp('expires_at', { useTz: true })
    t.timestamp('lockout_cleared_at', { useTz: true })
  })
}
