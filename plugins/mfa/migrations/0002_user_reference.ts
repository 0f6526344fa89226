import type { Knex } from 'knex'

/**
 * The kernel's tables are not the plugin's (docs/architecture.md): mfa_totp stops pointing a
 * foreign key at users. The link is kept through the identity service's reference contract
 * instead (sdk/references.ts): a clearing guard removes a deleted user's authenticator in the
 * deleting transaction (what ON DELETE CASCADE did), and enrollment locks the user FOR KEY SHARE
 * through `identity.references.user` so a racing delete waits for it. Data stays.
 */
export async function up(knex: Knex): Promise<void> {
  const fks = (await knex.raw(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'mfa_totp'::regclass AND contype = 'f' AND confrelid = 'users'::regclass ORDER BY conname`,
  )) as { rows: { conname: string }[] }
  for (const { conname } of fks.rows) await knex.raw('ALTER TABLE mfa_totp DROP CONSTRAINT ??', [conname])
}
