/**
 * First start: an administrator named `admin`, with ADMIN_PASSWORD or a random
 * password printed once, who must change it at first sign-in.
 */
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type { SecretsService } from '../../sdk/index.js'
import { passwordColumns } from './passwords-set.js'

export async function bootstrapAdmin(knex: Knex, secrets: SecretsService, adminPassword: string | null): Promise<{ password: string; generated: boolean } | null> {
  const existing = await knex('users').first('id')
  if (existing) return null
  const generated = !adminPassword
  const password = adminPassword ?? randomBytes(18).toString('base64url')
  const cols = await passwordColumns(secrets, 'admin', password, 'ADMIN_PASSWORD', false)
  const inserted = await knex('users')
    .insert({ username: 'admin', display_name: 'Administrator', is_admin: true, must_change_password: true, source: 'local', ...cols })
    .onConflict(knex.raw('(lower(username))'))
    .ignore()
    .returning('id')
  // Another node created it first: nothing to print here.
  return inserted.length ? { password, generated } : null
}
