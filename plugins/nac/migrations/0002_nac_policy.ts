import type { Knex } from 'knex'

/**
 * Authorization profiles and the NAC policy (docs/nac.md).
 *
 * Profiles: what an accepted endpoint gets (VLAN, ACLs, vendor attributes,
 * timers) or a deny. The API checks every value (services/values.ts) before it
 * is stored, so whatever is here renders safely into FreeRADIUS.
 *
 * Rules: ordered, dense positions 0..n-1 with the protected default rule last
 * (as the AAA policy keeps its order: the default rule's row is the order's
 * lock, positions are unique at commit so a reorder rewrites them in one
 * statement). `conditions` is the list the API took (ids, not names); the ids
 * it names in other plugins' records are repeated in the three arrays so that
 * a reference guard finds the rules naming a record with one indexed `&&`,
 * without reading JSON. Those references go through their owners' contracts
 * (sdk/references.ts), never foreign keys; the profile is this plugin's own
 * table, so a foreign key backs the API's 409.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_authorization_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.boolean('deny').notNullable().defaultTo(false)
    t.string('vlan', 32)
    t.string('acl', 253)
    t.specificType('cisco_acl', 'text[]').notNullable().defaultTo('{}')
    t.string('cisco_url_redirect', 240)
    t.string('cisco_url_redirect_acl', 64)
    t.string('aruba_user_role', 64)
    t.integer('session_timeout')
    t.boolean('reauthenticate').notNullable().defaultTo(false)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX nac_authorization_profiles_name_unique ON nac_authorization_profiles (lower(name))')
  // A deny gives no attributes; a re-authentication needs the timer it runs on.
  await knex.raw(`ALTER TABLE nac_authorization_profiles
    ADD CONSTRAINT nac_authorization_profiles_deny_bare CHECK (NOT deny OR (vlan IS NULL AND acl IS NULL AND cardinality(cisco_acl) = 0 AND cisco_url_redirect IS NULL
      AND cisco_url_redirect_acl IS NULL AND aruba_user_role IS NULL AND session_timeout IS NULL AND NOT reauthenticate)),
    ADD CONSTRAINT nac_authorization_profiles_reauth_timer CHECK (NOT reauthenticate OR session_timeout IS NOT NULL)`)

  await knex.schema.createTable('nac_policy_rules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.boolean('enabled').notNullable().defaultTo(true)
    t.integer('position').notNullable()
    t.boolean('is_default').notNullable().defaultTo(false)
    t.jsonb('conditions').notNullable().defaultTo('[]')
    t.specificType('user_group_ids', 'uuid[]').notNullable().defaultTo('{}')
    t.specificType('endpoint_group_ids', 'uuid[]').notNullable().defaultTo('{}')
    t.specificType('device_group_ids', 'uuid[]').notNullable().defaultTo('{}')
    t.uuid('authorization_profile_id').notNullable().references('id').inTable('nac_authorization_profiles').onDelete('RESTRICT')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['authorization_profile_id'])
  })
  await knex.raw(`ALTER TABLE nac_policy_rules
    ADD CONSTRAINT nac_policy_rules_position_unique UNIQUE (position) DEFERRABLE INITIALLY DEFERRED,
    ADD CONSTRAINT nac_policy_rules_position_check CHECK (position >= 0),
    ADD CONSTRAINT nac_policy_rules_default_fixed CHECK (NOT is_default OR (enabled AND conditions = '[]'::jsonb))`)
  await knex.raw('CREATE UNIQUE INDEX nac_policy_rules_name_unique ON nac_policy_rules (lower(name))')
  await knex.raw('CREATE UNIQUE INDEX nac_policy_rules_one_default ON nac_policy_rules (is_default) WHERE is_default')
  for (const c of ['user_group_ids', 'endpoint_group_ids', 'device_group_ids']) {
    await knex.raw(`CREATE INDEX nac_policy_rules_${c}_idx ON nac_policy_rules USING gin (${c})`)
  }

  // Deletes outside the API (bare SQL) keep the order dense too, under the same lock (the AAA policy's triggers).
  await knex.raw(`
    CREATE FUNCTION nac_policy_rules_lock_order() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM nac_policy_rules WHERE is_default FOR UPDATE;
      RETURN NULL;
    END $$`)
  await knex.raw(`
    CREATE FUNCTION nac_policy_rules_compact() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE nac_policy_rules r SET position = o.rn - 1
        FROM (SELECT id, row_number() OVER (ORDER BY is_default, position) AS rn FROM nac_policy_rules) o
       WHERE r.id = o.id AND r.position <> o.rn - 1;
      RETURN NULL;
    END $$`)
  await knex.raw('CREATE TRIGGER nac_policy_rules_lock_order BEFORE DELETE ON nac_policy_rules FOR EACH STATEMENT EXECUTE FUNCTION nac_policy_rules_lock_order()')
  await knex.raw('CREATE TRIGGER nac_policy_rules_compact AFTER DELETE ON nac_policy_rules FOR EACH STATEMENT EXECUTE FUNCTION nac_policy_rules_compact()')

  // The policy's version: one row, bumped by every statement that changes the rules or the
  // profiles (statement-level triggers, in the writing transaction), and by the renames of the
  // groups conditions name (the reference guards' `renamed`: services/policy-rules.ts). The policy
  // test keeps the compiled policy in memory while it is unchanged (services/policy-cache.ts).
  await knex.raw('CREATE TABLE nac_policy_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)')
  await knex.raw('INSERT INTO nac_policy_version (id, version) VALUES (1, 1)')
  await knex.raw(`
    CREATE FUNCTION nac_policy_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE nac_policy_version SET version = version + 1 WHERE id = 1;
      RETURN NULL;
    END $$`)
  for (const table of ['nac_policy_rules', 'nac_authorization_profiles']) {
    await knex.raw(`CREATE TRIGGER ${table}_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION nac_policy_version_bump()`)
  }

  // The default rule and its profile: a deny, until an administrator decides what unknown endpoints get.
  const [{ id }] = await knex('nac_authorization_profiles')
    .insert({ name: 'deny', description: 'Access-Reject. The default rule gives it until you choose another profile.', deny: true })
    .returning('id')
  await knex('nac_policy_rules').insert({
    name: 'default',
    description: 'Matches every request no rule above takes; evaluated last.',
    position: 0,
    is_default: true,
    authorization_profile_id: id,
  })
}
