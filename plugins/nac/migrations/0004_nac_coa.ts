import type { Knex } from 'knex'

/**
 * Change of Authorization (RFC 5176): every request sent, with its answer
 * (`nac_coa_requests`), and the per-NAS overrides of how to reach a device
 * (`nac_coa_nas`: UDP port, dialect). Devices are the inventory's: no foreign
 * key into its tables (sdk/references.ts); a device's delete clears its
 * override through a `clear` guard, while the request records keep the
 * device's id and name as they were when sent (history, like the audit).
 * An endpoint's delete leaves its records with `endpoint_id` null and the MAC.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_coa_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('endpoint_id').references('id').inTable('nac_endpoints').onDelete('SET NULL')
    t.string('mac', 17).notNullable()
    t.string('action', 16).notNullable()
    t.string('reason', 32).notNullable()
    t.uuid('device_id')
    t.string('device_name', 64)
    t.string('nas_ip', 64)
    t.integer('nas_port')
    t.string('dialect', 16)
    t.smallint('packet_code')
    t.jsonb('attributes').notNullable().defaultTo('[]')
    t.uuid('requested_by')
    t.string('requested_by_username', 128)
    t.string('result', 16).notNullable()
    t.integer('error_cause')
    t.string('error_detail', 500)
    t.smallint('attempts').notNullable().defaultTo(0)
    t.timestamp('sent_at', { useTz: true })
    t.timestamp('answered_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw(`ALTER TABLE nac_coa_requests ADD CONSTRAINT nac_coa_requests_action CHECK (action IN ('reauthenticate', 'disconnect', 'bounce-port'))`)
  await knex.raw(`ALTER TABLE nac_coa_requests ADD CONSTRAINT nac_coa_requests_result CHECK (result IN ('pending', 'ack', 'nak', 'timeout', 'bad_response', 'error'))`)
  await knex.raw('CREATE INDEX nac_coa_requests_endpoint_idx ON nac_coa_requests (endpoint_id, created_at)')
  await knex.raw('CREATE INDEX nac_coa_requests_created_idx ON nac_coa_requests (created_at)')
  await knex.raw('CREATE INDEX nac_coa_requests_result_idx ON nac_coa_requests (result, created_at)')

  await knex.schema.createTable('nac_coa_nas', (t) => {
    t.uuid('device_id').primary()
    t.integer('port')
    t.string('dialect', 16).notNullable().defaultTo('auto')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('ALTER TABLE nac_coa_nas ADD CONSTRAINT nac_coa_nas_port CHECK (port BETWEEN 1 AND 65535)')
  await knex.raw(`ALTER TABLE nac_coa_nas ADD CONSTRAINT nac_coa_nas_dialect CHECK (dialect IN ('auto', 'cisco', 'rfc5176'))`)
}
