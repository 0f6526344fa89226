import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // The EAP-TLS client certificate (docs/pki.md), seeded beside the EAP server's: clientAuth, any name a
  // user or a device may have (FreeRADIUS takes the common name as the user), the SAN types the NAC
  // policy's certificate conditions read (san_email, san_dns). Kept as SQL: a migration stays what it
  // was. An install that already has a template of that name keeps its own.
  await knex.raw(
    `INSERT INTO pki_templates (name, description, key_usage, extended_key_usage, validity_days, name_patterns, subject_attributes, san_types, min_rsa_bits, min_ec_bits)
     SELECT ?, ?, ?::jsonb, ?::jsonb, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?
     WHERE NOT EXISTS (SELECT 1 FROM pki_templates WHERE lower(name) = lower(?))`,
    [
      'eap-tls-client',
      'EAP-TLS client certificate (802.1X): TLS client authentication. The common name is the user FreeRADIUS sees: a user name, or a device name that is no user. Narrow name_patterns to your users or devices.',
      JSON.stringify(['digitalSignature', 'keyEncipherment']),
      JSON.stringify(['clientAuth']),
      365,
      JSON.stringify(['*']),
      JSON.stringify(['CN', 'O', 'OU', 'emailAddress']),
      JSON.stringify(['email', 'dns']),
      2048,
      256,
      'eap-tls-client',
    ],
  )
}
