import type { Knex } from 'knex'

/**
 * Devices and device groups: the plugin's own tables. Other plugins reference
 * devices and groups through the service's `references` (api.ts), not here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inventory_device_groups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    // RESTRICT: a group with subgroups is refused on delete (GROUP_IN_USE), never cascaded.
    t.uuid('parent_id').references('id').inTable('inventory_device_groups').onDelete('RESTRICT').index('inventory_device_groups_parent_idx')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX inventory_device_groups_name_unique ON inventory_device_groups (lower(name))')

  await knex.schema.createTable('inventory_devices', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    // Canonical text (what the API returns and `search` matches) and the same prefix as `cidr`, for containment.
    t.string('address', 64).notNullable()
    t.specificType('address_cidr', 'cidr').notNullable()
    t.string('vendor', 64)
    t.string('model', 64)
    t.string('description', 500)
    t.uuid('device_group_id').references('id').inTable('inventory_device_groups').onDelete('RESTRICT').index('inventory_devices_group_idx')
    // Sealed with the master key (purposes inventory.tacacs_key, inventory.radius_secret); never returned.
    t.text('tacacs_key_sealed')
    t.text('radius_secret_sealed')
    t.boolean('enabled').notNullable().defaultTo(true)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX inventory_devices_name_unique ON inventory_devices (lower(name))')
  // One device per prefix: equal cidr values (same network, same length) are the same client to the daemons.
  await knex.raw('CREATE UNIQUE INDEX inventory_devices_address_unique ON inventory_devices (address_cidr)')
  // Containment (`>>=`): the lookup of the device a NAS address belongs to, and the address_contains filter.
  await knex.raw('CREATE INDEX inventory_devices_address_gist ON inventory_devices USING gist (address_cidr inet_ops)')
  await knex.raw('CREATE INDEX inventory_devices_vendor_idx ON inventory_devices (lower(vendor))')
  await knex.raw('CREATE INDEX inventory_devices_name_idx ON inventory_devices (name)')
  await knex.raw('CREATE INDEX inventory_device_groups_sort_name_idx ON inventory_device_groups (name)')
}
