/**
 * Pending password-reset links (routes/password-reset.ts). A link is mailed to the address the account
 * had then and proves only that someone read that mailbox; whatever changes who may use the account or
 * where its mail goes voids the links still pending: a new password (the user's own, an administrator's,
 * a reset), a new e-mail address, disabling or re-enabling, a change of expiry or of source, and signing
 * the user out everywhere. Deleting the user deletes them (ON DELETE CASCADE).
 */
import type { Knex } from 'knex'

export async function voidResetLinks(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx('password_resets').where({ user_id: userId }).whereNull('used_at').update({ used_at: new Date() })
}

/** The user fields whose change voids the pending links (the user routes' PUT). */
export const VOIDS_RESET_LINKS = ['password', 'email', 'enabled', 'source', 'expires_at'] as const
