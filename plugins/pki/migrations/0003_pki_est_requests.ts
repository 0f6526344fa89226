import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // EST enrollments held for approval (setting pki.est_approval_required): the client polls with the same
  // CSR and gets the certificate once a person approved it (through the mailed one-time link or the API).
  await knex.schema.createTable('pki_est_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    // SHA-256 of the CSR's DER: the same request polled again finds its row.
    t.text('csr_hash').notNullable()
    t.binary('csr_der').notNullable()
    t.text('requester').notNullable()
    t.uuid('requester_user_id')
    t.uuid('renews_id')
    t.text('subject').notNullable()
    t.text('san').notNullable()
    t.text('status').notNullable().defaultTo('pending')
    t.uuid('certificate_id').references('id').inTable('pki_certificates')
    // The approver's one-time link: only its SHA-256; spent (null) once a decision is made either way.
    t.text('token_hash').unique()
    t.timestamp('token_expires_at', { useTz: true })
    t.uuid('decided_by')
    t.text('decided_via')
    t.timestamp('decided_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw(`ALTER TABLE pki_est_requests ADD CONSTRAINT pki_est_requests_status CHECK (status IN ('pending', 'approved', 'rejected', 'issued'))`)
  await knex.raw('CREATE INDEX pki_est_requests_poll ON pki_est_requests (csr_hash, requester)')
}
