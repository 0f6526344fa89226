import type { Knex } from 'knex'

/**
 * The Disconnect-Requests that wait for a deploy: a user whose access ended (disabled, deleted,
 * network login off) has each live session ended once FreeRADIUS no longer admits them, or the
 * supplicant would be let straight back in by a daemon still answering from before the change.
 * One row a session (the NAS and its Acct-Session-Id), with the username it was for; a table, not
 * memory: a restart loses nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_coa_waiting_sessions', (t) => {
    t.string('nas_ip', 64).notNullable()
    t.string('acct_session_id', 128).notNullable()
    t.string('username', 253).notNullable()
    t.string('reason', 32).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.primary(['nas_ip', 'acct_session_id'])
  })
  // A user's open sessions, found by username as the NAS wrote it, without regard to case.
  await knex.raw('CREATE INDEX nac_sessions_open_username_idx ON nac_sessions (lower(username)) WHERE stopped_at IS NULL')
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX nac_sessions_open_username_idx')
  await knex.schema.dropTable('nac_coa_waiting_sessions')
}
