import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pki_cas', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    // The CA that signed this one when it was made here; null for a root and for an imported CA (its chain says).
    t.uuid('parent_id').references('id').inTable('pki_cas')
    t.text('kind').notNullable()
    t.text('key_algorithm').notNullable()
    t.text('subject').notNullable()
    t.text('serial').notNullable()
    // PEM: this CA's certificate, and the certificates above it up to the root (empty for a root).
    t.text('certificate').notNullable()
    t.text('chain').notNullable()
    // The private key (PKCS#8 PEM) sealed with the master key (purpose pki.ca_key); never answered.
    t.text('sealed_key').notNullable()
    t.boolean('imported').notNullable()
    t.timestamp('not_before', { useTz: true }).notNullable()
    t.timestamp('not_after', { useTz: true }).notNullable()
    // The current CRL: its number is the last one issued; the next regeneration takes number + 1.
    t.bigInteger('crl_number').notNullable().defaultTo(0)
    t.binary('crl_der')
    t.timestamp('crl_this_update', { useTz: true })
    t.timestamp('crl_next_update', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX pki_cas_name_lower ON pki_cas (lower(name))')
  await knex.raw(`ALTER TABLE pki_cas ADD CONSTRAINT pki_cas_kind CHECK (kind IN ('root', 'issuing'))`)

  await knex.schema.createTable('pki_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.jsonb('key_usage').notNullable()
    t.jsonb('extended_key_usage').notNullable()
    t.integer('validity_days').notNullable()
    // Patterns the common name and every DNS name must match (`*.example.net`, `radius.example.net`, `*`).
    t.jsonb('name_patterns').notNullable()
    t.jsonb('subject_attributes').notNullable()
    t.jsonb('san_types').notNullable()
    t.integer('min_rsa_bits').notNullable()
    t.integer('min_ec_bits').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX pki_templates_name_lower ON pki_templates (lower(name))')

  await knex.schema.createTable('pki_certificates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('ca_id').notNullable().references('id').inTable('pki_cas')
    t.uuid('template_id').references('id').inTable('pki_templates').onDelete('SET NULL')
    // Upper-case hex as `openssl x509 -serial` prints it; unique per CA.
    t.text('serial').notNullable()
    t.text('subject').notNullable()
    // `DNS:a, IP:10.0.0.1`: what search matches and the list shows.
    t.text('san').notNullable()
    t.text('key_algorithm').notNullable()
    t.text('certificate').notNullable()
    t.timestamp('not_before', { useTz: true }).notNullable()
    t.timestamp('not_after', { useTz: true }).notNullable()
    t.timestamp('revoked_at', { useTz: true })
    t.text('revocation_reason')
    t.uuid('issued_by')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX pki_certificates_ca_serial ON pki_certificates (ca_id, serial)')
  // The CRL reads every revoked certificate of one CA.
  await knex.raw('CREATE INDEX pki_certificates_revoked ON pki_certificates (ca_id) WHERE revoked_at IS NOT NULL')

  // The FreeRADIUS EAP server certificate (docs/pki.md): TLS server for EAP-TLS/PEAP/TTLS, serverAuth for Windows supplicants.
  // Written as SQL: a migration stays what it was, whatever the table declarations become.
  await knex.raw(
    `INSERT INTO pki_templates (name, description, key_usage, extended_key_usage, validity_days, name_patterns, subject_attributes, san_types, min_rsa_bits, min_ec_bits)
     VALUES (?, ?, ?::jsonb, ?::jsonb, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?)`,
    [
      'freeradius-eap-server',
      'FreeRADIUS EAP server certificate (EAP-TLS, PEAP, TTLS): TLS server authentication. Narrow name_patterns to your RADIUS servers.',
      JSON.stringify(['digitalSignature', 'keyEncipherment']),
      JSON.stringify(['serverAuth']),
      825,
      JSON.stringify(['*']),
      JSON.stringify(['CN', 'O', 'OU', 'C', 'ST', 'L']),
      JSON.stringify(['dns', 'ip']),
      2048,
      256,
    ],
  )
}
