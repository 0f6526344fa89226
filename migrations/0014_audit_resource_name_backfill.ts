import type { Knex } from 'knex'

/**
 * Entries written before 0013 have no name. Give them the object's current name where the object
 * still exists (a deleted object's old entries stay nameless: its name is gone). One UPDATE … FROM
 * per kind, on the (resource_type, resource_id) index, so a large trail is rewritten in a few
 * statements, not a row at a time. A plugin's table may not exist yet (a fresh install migrates the
 * kernel first, and its trail is empty then) or at all (a plugin not loaded): that kind is skipped.
 */
const KINDS: readonly (readonly [resourceType: string, table: string, column: string])[] = [
  ['user', 'users', 'username'],
  ['user_group', 'user_groups', 'name'],
  ['role', 'roles', 'name'],
  ['device', 'inventory_devices', 'name'],
  ['device_group', 'inventory_device_groups', 'name'],
  ['aaa_policy_rule', 'aaa_policy_rules', 'name'],
  ['tacacs_profile', 'tacacs_profiles', 'name'],
  ['tacacs_command_set', 'tacacs_command_sets', 'name'],
  ['radius_profile', 'radius_profiles', 'name'],
  ['nac_policy_rule', 'nac_policy_rules', 'name'],
  ['nac_authorization_profile', 'nac_authorization_profiles', 'name'],
  ['endpoint', 'nac_endpoints', 'mac'],
  ['endpoint_group', 'nac_endpoint_groups', 'name'],
  ['profiling_rule', 'nac_profiling_rules', 'name'],
  ['ncm_collector', 'ncm_collectors', 'name'],
  ['ncm_profile', 'ncm_profiles', 'name'],
  ['ncm_credential', 'ncm_credentials', 'name'],
  ['ncm_rule', 'ncm_rules', 'name'],
  ['pki_ca', 'pki_cas', 'name'],
  ['pki_template', 'pki_templates', 'name'],
  ['captive_portal', 'portal_portals', 'name'],
  ['portal_guest', 'portal_guests', 'name'],
]

export async function up(knex: Knex): Promise<void> {
  for (const [type, table, column] of KINDS) {
    if (!(await knex.schema.hasTable(table)) || !(await knex.schema.hasColumn(table, column))) continue
    // As the trail writes a name: control characters out, cut to the column (0013: 255).
    await knex.raw(
      `UPDATE audit_log AS a
          SET resource_name = left(regexp_replace(o.??, '[\\x00-\\x1f\\x7f]', ' ', 'g'), 255)
         FROM ?? AS o
        WHERE a.resource_type = ? AND a.resource_name IS NULL AND a.resource_id = o.id::text
          AND o.?? IS NOT NULL AND o.?? <> ''`,
      [column, table, type, column, column],
    )
  }
}
