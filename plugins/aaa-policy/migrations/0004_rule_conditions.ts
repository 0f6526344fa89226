import type { Knex } from 'knex'

/**
 * Conditions a rule may add to WHO and WHERE (docs/aaa-policy.md, services/conditions.ts):
 *
 * - time_window: `{ days: ["mon", …], start: "08:00", end: "18:00" }` or null (any time), in the
 *   time zone of the host the daemons run on. The API checks its shape; the renderers and the
 *   policy test read it through services/conditions.ts.
 * - client_prefixes: the prefixes the request's source (the NAS) address must be inside one of,
 *   canonical CIDR text (`10.1.0.0/16`, `2001:db8::/32`); empty means any source.
 *
 * The default rule matches anyone, anywhere, at any time: it carries neither (checked here too).
 * Existing rules get none, so they match as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('aaa_policy_rules', (t) => {
    t.jsonb('time_window')
    t.specificType('client_prefixes', 'text[]').notNullable().defaultTo('{}')
  })
  await knex.raw(`ALTER TABLE aaa_policy_rules
    ADD CONSTRAINT aaa_policy_rules_default_unconditioned CHECK (NOT is_default OR (time_window IS NULL AND cardinality(client_prefixes) = 0)),
    ADD CONSTRAINT aaa_policy_rules_client_prefixes_max CHECK (cardinality(client_prefixes) <= 32)`)
}
