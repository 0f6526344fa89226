import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('aaa_policy_rules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.boolean('enabled').notNullable().defaultTo(true)
    // Evaluation order, dense 0..n-1 with the default rule last. Unique, but checked at commit
    // (below) so that a move or a reorder can rewrite many positions in one transaction.
    t.integer('position').notNullable()
    t.boolean('is_default').notNullable().defaultTo(false)
    // References to records of the kernel and of other plugins, kept through their owners'
    // contracts (sdk/references.ts, services/references.ts), not foreign keys: a plugin's tables
    // are its own, and an edition may lack the tacacs or radius plugin. (Databases made before
    // this file changed had foreign keys here; 0003 drops them.)
    // WHO and WHERE: blocking references. Deleting a user, user group, device or device group that
    // a rule targets is refused (409) until the rule is changed or removed: an access rule must
    // never vanish as a side effect of an inventory clean-up.
    t.uuid('who_user_id')
    t.uuid('who_group_id')
    t.uuid('where_device_id')
    t.uuid('where_device_group_id')
    // Auto-clearing references: a deleted profile leaves the rule without one (it then denies).
    t.uuid('tacacs_profile_id')
    t.uuid('radius_profile_id')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['who_user_id'])
    t.index(['who_group_id'])
    t.index(['where_device_id'])
    t.index(['where_device_group_id'])
    t.index(['tacacs_profile_id'])
    t.index(['radius_profile_id'])
  })
  await knex.raw(`ALTER TABLE aaa_policy_rules
    ADD CONSTRAINT aaa_policy_rules_position_unique UNIQUE (position) DEFERRABLE INITIALLY DEFERRED,
    ADD CONSTRAINT aaa_policy_rules_position_check CHECK (position >= 0),
    ADD CONSTRAINT aaa_policy_rules_scope_check CHECK (
      CASE WHEN is_default
        THEN who_user_id IS NULL AND who_group_id IS NULL AND where_device_id IS NULL AND where_device_group_id IS NULL
        ELSE num_nonnulls(who_user_id, who_group_id) = 1 AND num_nonnulls(where_device_id, where_device_group_id) = 1
      END)`)
  await knex.raw('CREATE UNIQUE INDEX aaa_policy_rules_name_lower ON aaa_policy_rules (lower(name))')
  // Exactly one default rule: at most one by this index, at least one because nothing deletes it.
  await knex.raw('CREATE UNIQUE INDEX aaa_policy_rules_one_default ON aaa_policy_rules (is_default) WHERE is_default')

  // Deletes that do not come through the rule routes (bare SQL) must keep the order dense too.
  // Before the statement: take the same lock as the API's mutations (the default rule's row), so
  // such a delete waits for a reorder in flight instead of deadlocking with it. After: renumber
  // 0..n-1, default last.
  await knex.raw(`
    CREATE FUNCTION aaa_policy_rules_lock_order() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM aaa_policy_rules WHERE is_default FOR UPDATE;
      RETURN NULL;
    END $$`)
  await knex.raw(`
    CREATE FUNCTION aaa_policy_rules_compact() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE aaa_policy_rules r SET position = o.rn - 1
        FROM (SELECT id, row_number() OVER (ORDER BY is_default, position) AS rn FROM aaa_policy_rules) o
       WHERE r.id = o.id AND r.position <> o.rn - 1;
      RETURN NULL;
    END $$`)
  await knex.raw('CREATE TRIGGER aaa_policy_rules_lock_order BEFORE DELETE ON aaa_policy_rules FOR EACH STATEMENT EXECUTE FUNCTION aaa_policy_rules_lock_order()')
  await knex.raw('CREATE TRIGGER aaa_policy_rules_compact AFTER DELETE ON aaa_policy_rules FOR EACH STATEMENT EXECUTE FUNCTION aaa_policy_rules_compact()')

  // The default rule: anyone, anywhere, no profile, so it denies until an administrator gives it one.
  await knex('aaa_policy_rules').insert({
    name: 'default',
    description: 'Matches every user on every device; evaluated last. Without a profile it denies.',
    position: 0,
    is_default: true,
  })
}
