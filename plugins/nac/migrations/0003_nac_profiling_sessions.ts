import type { Knex } from 'knex'

/**
 * Profiling and sessions (docs/nac.md "Profiling", "Sessions"):
 * - nac_profiling_rules: the editable rule table (conditions → device type, with certainty), seeded
 *   with a few sensible rules (printers, IP phones, Windows, Apple, Android, Linux);
 * - nac_endpoint_evidence: what the network told of each endpoint (DHCP options, CDP/LLDP, user
 *   agent, NAS-Port-Type), merged record after record, which the rules read;
 * - the endpoint's flags: a device type set by an admin (profiling leaves it), and a group placed by
 *   profiling (static membership, set by an admin or an import, is never moved by it);
 * - the groups' placement rules: the device types whose profiled endpoints they take;
 * - nac_sessions (from accounting) and nac_auth_grants (the latest accept per MAC and NAS: the VLAN
 *   and ACL a session was given).
 */
const SEED: { name: string; conditions: { attribute: string; operator: string; value: string }[]; device_type: string; certainty: number }[] = [
  { name: 'printer-jetdirect', conditions: [{ attribute: 'dhcp_class_id', operator: 'contains', value: 'JetDirect' }], device_type: 'printer', certainty: 85 },
  { name: 'printer-lldp', conditions: [{ attribute: 'lldp_system_description', operator: 'contains', value: 'printer' }], device_type: 'printer', certainty: 75 },
  { name: 'printer-vendor-lexmark', conditions: [{ attribute: 'vendor', operator: 'starts_with', value: 'Lexmark' }], device_type: 'printer', certainty: 60 },
  { name: 'printer-vendor-xerox', conditions: [{ attribute: 'vendor', operator: 'starts_with', value: 'Xerox' }], device_type: 'printer', certainty: 60 },
  { name: 'ip-phone-cdp', conditions: [{ attribute: 'cdp_platform', operator: 'contains', value: 'IP Phone' }], device_type: 'ip-phone', certainty: 90 },
  { name: 'ip-phone-lldp', conditions: [{ attribute: 'lldp_system_description', operator: 'contains', value: 'IP Phone' }], device_type: 'ip-phone', certainty: 85 },
  { name: 'ip-phone-cisco-dhcp', conditions: [{ attribute: 'dhcp_class_id', operator: 'starts_with', value: 'Cisco Systems, Inc. IP Phone' }], device_type: 'ip-phone', certainty: 85 },
  { name: 'ip-phone-vendor-polycom', conditions: [{ attribute: 'vendor', operator: 'starts_with', value: 'Polycom' }], device_type: 'ip-phone', certainty: 60 },
  { name: 'windows-dhcp', conditions: [{ attribute: 'dhcp_class_id', operator: 'starts_with', value: 'MSFT' }], device_type: 'windows', certainty: 70 },
  { name: 'windows-user-agent', conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'Windows NT' }], device_type: 'windows', certainty: 65 },
  { name: 'apple-macos-user-agent', conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'Macintosh' }], device_type: 'apple-macos', certainty: 65 },
  { name: 'apple-ios-user-agent', conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'iPhone' }], device_type: 'apple-ios', certainty: 70 },
  { name: 'apple-vendor', conditions: [{ attribute: 'vendor', operator: 'starts_with', value: 'Apple' }], device_type: 'apple', certainty: 40 },
  { name: 'android-dhcp', conditions: [{ attribute: 'dhcp_class_id', operator: 'starts_with', value: 'android-dhcp' }], device_type: 'android', certainty: 80 },
  { name: 'android-user-agent', conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'Android' }], device_type: 'android', certainty: 70 },
  { name: 'linux-dhcpcd', conditions: [{ attribute: 'dhcp_class_id', operator: 'starts_with', value: 'dhcpcd' }], device_type: 'linux', certainty: 55 },
  { name: 'linux-user-agent', conditions: [{ attribute: 'user_agent', operator: 'contains', value: 'X11; Linux' }], device_type: 'linux', certainty: 50 },
]

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('nac_profiling_rules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    // [{attribute, operator, value}], checked by the API's schema (equals | contains | starts_with: no user regex).
    t.jsonb('conditions').notNullable()
    t.string('device_type', 64).notNullable()
    t.smallint('certainty').notNullable()
    t.boolean('enabled').notNullable().defaultTo(true)
    t.integer('position').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX nac_profiling_rules_name_unique ON nac_profiling_rules (lower(name))')
  await knex.raw('ALTER TABLE nac_profiling_rules ADD CONSTRAINT nac_profiling_rules_certainty CHECK (certainty BETWEEN 0 AND 100)')
  let position = 0
  for (const r of SEED) {
    position++
    await knex.raw('INSERT INTO nac_profiling_rules (name, conditions, device_type, certainty, position) VALUES (?, ?::jsonb, ?, ?, ?)', [r.name, JSON.stringify(r.conditions), r.device_type, r.certainty, position])
  }

  await knex.schema.createTable('nac_endpoint_evidence', (t) => {
    t.uuid('endpoint_id').primary().references('id').inTable('nac_endpoints').onDelete('CASCADE')
    t.jsonb('evidence').notNullable()
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })

  await knex.schema.alterTable('nac_endpoints', (t) => {
    t.boolean('device_type_manual').notNullable().defaultTo(false)
    t.boolean('endpoint_group_placed').notNullable().defaultTo(false)
  })
  await knex.schema.alterTable('nac_endpoint_groups', (t) => {
    t.jsonb('placement_device_types').notNullable().defaultTo(knex.raw(`'[]'::jsonb`))
  })

  await knex.schema.createTable('nac_sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('nas_ip', 64).notNullable()
    t.string('acct_session_id', 128).notNullable()
    t.string('mac', 17)
    t.string('username', 253)
    t.string('nas_port', 64)
    t.string('nas_port_type', 32)
    t.string('framed_ip', 64)
    t.string('vlan', 64)
    t.string('acl', 253)
    t.integer('interim_interval')
    t.timestamp('started_at', { useTz: true }).notNullable()
    t.timestamp('last_update_at', { useTz: true }).notNullable()
    t.timestamp('stopped_at', { useTz: true })
    t.bigInteger('input_octets')
    t.bigInteger('output_octets')
    t.integer('session_time')
  })
  await knex.raw('CREATE UNIQUE INDEX nac_sessions_key ON nac_sessions (nas_ip, acct_session_id)')
  await knex.raw('CREATE INDEX nac_sessions_started_idx ON nac_sessions (started_at)')
  await knex.raw('CREATE INDEX nac_sessions_mac_idx ON nac_sessions (mac, nas_ip)')
  await knex.raw('CREATE INDEX nac_sessions_live_idx ON nac_sessions (last_update_at) WHERE stopped_at IS NULL')

  await knex.schema.createTable('nac_auth_grants', (t) => {
    t.string('mac', 17).notNullable()
    t.string('nas_ip', 64).notNullable()
    t.timestamp('at', { useTz: true }).notNullable()
    t.string('vlan', 64)
    t.string('acl', 253)
    t.integer('interim_interval')
    t.primary(['mac', 'nas_ip'])
  })
}
