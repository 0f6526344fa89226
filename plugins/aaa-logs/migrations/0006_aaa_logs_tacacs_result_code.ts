import type { Knex } from 'knex'

/**
 * TACACS+ authentication and authorization rows keep tac_plus-ng's own code
 * for the outcome (its `msgid`: AUTHC-PASS, AUTHC-FAIL, AUTHC-FAIL-NOUSER,
 * AUTHC-FAIL-EXPIRED, AUTHZ-PASS-ADD, AUTHZ-FAIL …): why a login failed, in the
 * daemon's words, where `message` has its sentence. Nullable, no default: no
 * rewrite at any size; older rows have none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE aaa_log_tacacs_authn ADD COLUMN result_code varchar(48)')
  await knex.raw('ALTER TABLE aaa_log_tacacs_authz ADD COLUMN result_code varchar(48)')
}
