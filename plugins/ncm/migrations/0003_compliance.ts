import type { Knex } from 'knex'

/**
 * Compliance (docs/ncm.md "Compliance"): rules over the tracked configurations, and each rule's
 * latest result per device. DDL only: it runs at every fresh boot of the full edition.
 * device_group_id and device_id point at the inventory's records through its reference guards,
 * never a foreign key; a result goes with its rule and with its version (deleting a device's
 * history deletes its results).
 */
export async function up(knex: Knex): Promise<void> {
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.timestamp(name, { useTz: true })

  await knex.schema.createTable('ncm_rules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    // Null: every tracked device; else the group and its descendants.
    t.uuid('device_group_id').index()
    // must_contain | must_not_contain; literal | regex (a safe regex, checked before it is stored).
    t.string('requirement', 24).notNullable()
    t.string('match', 16).notNullable()
    t.string('pattern', 500).notNullable()
    t.boolean('notify').notNullable().defaultTo(false)
    t.boolean('enabled').notNullable().defaultTo(true)
    // Bumped by every change that alters results: the re-evaluation finishes only the revision it started.
    t.integer('revision').notNullable().defaultTo(1)
    // Null while the devices are (re-)evaluated against this revision.
    ts(t, 'evaluated_at')
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now())
    ts(t, 'updated_at').notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX ncm_rules_name_lower ON ncm_rules (lower(name))')

  await knex.schema.createTable('ncm_rule_results', (t) => {
    t.uuid('rule_id').notNullable().references('ncm_rules.id').onDelete('CASCADE')
    t.uuid('device_id').notNullable().index()
    t.uuid('version_id').notNullable().references('ncm_versions.id').onDelete('CASCADE').index()
    // pass | fail
    t.string('status', 8).notNullable()
    // At most 5 lines, {line, text}, from the masked copy.
    t.jsonb('evidence').notNullable()
    t.integer('match_count').notNullable()
    // When the status became what it is.
    ts(t, 'since').notNullable()
    ts(t, 'evaluated_at').notNullable()
    // When a new violation was mailed.
    ts(t, 'notified_at')
    t.primary(['rule_id', 'device_id'])
    t.index(['rule_id', 'status'])
  })
}
