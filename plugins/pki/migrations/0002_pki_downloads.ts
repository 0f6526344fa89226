import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // The private key of a certificate generated on the server: sealed (purpose pki.certificate_key) until
  // a download link delivers it, then deleted, so it leaves the server once.
  await knex.schema.createTable('pki_certificate_keys', (t) => {
    t.uuid('certificate_id').primary().references('id').inTable('pki_certificates').onDelete('CASCADE')
    t.text('sealed_key').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  // One-time download links: only the SHA-256 of the token is kept; the bundle is made and sealed
  // when the link is made (the passphrase is never stored), and dropped when it is spent.
  await knex.schema.createTable('pki_downloads', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('certificate_id').notNullable().references('id').inTable('pki_certificates').onDelete('CASCADE')
    t.text('token_hash').notNullable().unique()
    t.text('format').notNullable()
    t.boolean('includes_key').notNullable()
    t.text('sealed_bundle')
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('spent_at', { useTz: true })
    t.uuid('created_by')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw(`ALTER TABLE pki_downloads ADD CONSTRAINT pki_downloads_format CHECK (format IN ('pkcs12', 'pem'))`)
}
