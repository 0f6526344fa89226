import type { Knex } from 'knex'
import { ensurePgTrgm } from '../../../sdk/index.js'

/**
 * Endpoints and endpoint groups: the plugin's own tables. Owners are kernel
 * users referenced through the identity service's `references.user` (no
 * foreign key into the kernel's tables: sdk/references.ts); the group is this
 * plugin's own table, so a foreign key guards it.
 *
 * `search` matches one expression (services/rows.ts SEARCH_EXPRESSION, spelled
 * out here because a migration is frozen), served by a trigram index where
 * pg_trgm can be had (real PostgreSQL; not the embedded engine, where search
 * scans, as for the AAA logs).
 */
const SEARCH = `(mac || ' ' || replace(mac, ':', '') || ' ' || coalesce(description, '') || ' ' || coalesce(vendor, '') || ' ' || coalesce(device_type, ''))`

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_endpoint_groups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX nac_endpoint_groups_name_unique ON nac_endpoint_groups (lower(name))')
  await knex.raw('CREATE INDEX nac_endpoint_groups_name_idx ON nac_endpoint_groups (name)')

  await knex.schema.createTable('nac_endpoints', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('mac', 17).notNullable()
    t.string('description', 500)
    t.uuid('owner_user_id')
    // RESTRICT: a group still holding endpoints is refused on delete (GROUP_IN_USE), never emptied behind one's back.
    t.uuid('endpoint_group_id').references('id').inTable('nac_endpoint_groups').onDelete('RESTRICT')
    t.string('vendor', 128)
    t.timestamp('first_seen_at', { useTz: true })
    t.timestamp('last_seen_at', { useTz: true })
    t.string('last_nas_ip', 64)
    t.string('last_nas_port', 64)
    t.string('last_auth_result', 16)
    t.string('device_type', 128)
    t.smallint('device_type_confidence')
    t.string('device_type_reason', 500)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  // The canonical form only: whatever writes here (the API, the service, an import) normalized first.
  await knex.raw(`ALTER TABLE nac_endpoints ADD CONSTRAINT nac_endpoints_mac_canonical CHECK (mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$')`)
  await knex.raw(`ALTER TABLE nac_endpoints ADD CONSTRAINT nac_endpoints_auth_result CHECK (last_auth_result IN ('accept', 'reject'))`)
  await knex.raw('ALTER TABLE nac_endpoints ADD CONSTRAINT nac_endpoints_confidence CHECK (device_type_confidence BETWEEN 0 AND 100)')
  await knex.raw('CREATE UNIQUE INDEX nac_endpoints_mac_unique ON nac_endpoints (mac)')
  await knex.raw('CREATE INDEX nac_endpoints_group_idx ON nac_endpoints (endpoint_group_id, mac)')
  await knex.raw('CREATE INDEX nac_endpoints_owner_idx ON nac_endpoints (owner_user_id)')
  // `vendor` filters by prefix, case-insensitively (`cisco` finds "Cisco Systems, Inc" and "Cisco Meraki").
  await knex.raw('CREATE INDEX nac_endpoints_vendor_idx ON nac_endpoints (lower(vendor) text_pattern_ops)')
  await knex.raw('CREATE INDEX nac_endpoints_last_seen_idx ON nac_endpoints (last_seen_at)')
  await knex.raw('CREATE INDEX nac_endpoints_device_type_idx ON nac_endpoints (lower(device_type))')

  if (await ensurePgTrgm(knex)) await knex.raw(`CREATE INDEX nac_endpoints_search_trgm ON nac_endpoints USING gin (${SEARCH} gin_trgm_ops)`)
}
