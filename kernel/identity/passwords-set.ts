/** Setting a password: policy, argon2id hash, daemon verifiers, and every older session void. */
import type { Knex } from 'knex'
import type { SecretsService } from '../../sdk/index.js'
import { checkNetworkPassword } from './network-password.js'
import { checkPolicy, hashPassword } from './passwords.js'
import { voidResetLinks } from './reset-links.js'
import { deriveVerifiers, sealVerifiers } from './verifiers.js'

/**
 * `chap`: the user has `chap_enabled`; with network login, the sealed verifiers then keep the cleartext for CHAP.
 * With network login the password must also work on a device (network-password.ts): every way a password is set
 * (the user routes, change-password, a reset link) comes through here, so none of them can store one that cannot.
 */
export async function passwordColumns(secrets: SecretsService, username: string, password: string, field: string, networkLogin: boolean, chap = false) {
  checkPolicy(password, username, field)
  if (networkLogin) checkNetworkPassword(password, field)
  return {
    password_hash: await hashPassword(password),
    network_verifiers: networkLogin ? sealVerifiers(secrets, deriveVerifiers(password, chap)) : null,
    password_changed_at: new Date(),
  }
}

export async function setPassword(trx: Knex.Transaction, secrets: SecretsService, user: { id: string; username: string; network_login: boolean; chap_enabled: boolean }, password: string, field: string): Promise<void> {
  const cols = await passwordColumns(secrets, user.username, password, field, user.network_login, user.chap_enabled)
  await trx('users').where({ id: user.id }).update({ ...cols, must_change_password: false, sessions_valid_after: new Date(), updated_at: new Date() })
  await voidResetLinks(trx, user.id)
}
