import type { Knex } from 'knex'

/**
 * Captive portal redirection (docs/nac.md): a profile with `portal_redirect` has FreeRADIUS append
 * the session's signed parameters (mac, nas, ssid, sig) to its Cisco url-redirect. Off for every
 * existing profile: what the switches are sent does not change until someone turns it on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('nac_authorization_profiles', (t) => {
    t.boolean('portal_redirect').notNullable().defaultTo(false)
  })
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('nac_authorization_profiles', (t) => {
    t.dropColumn('portal_redirect')
  })
}
