import type { Knex } from 'knex'

/**
 * Configuration tracking (docs/ncm.md): collectors and their one-time enrollment tokens, the
 * cluster-wide nonce window of their signed requests, device credentials (sealed), custom command
 * profiles, schedules per device group, the tracked devices with their leases, and the stored
 * configurations (a blob per distinct text of a device, a version per change) with the fetch log.
 * DDL only: it runs at every fresh boot of the full edition. device_id and device_group_id point at
 * the inventory's records through its reference guards, never a foreign key.
 */
export async function up(knex: Knex): Promise<void> {
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.timestamp(name, { useTz: true })
  const created = (t: Knex.CreateTableBuilder) => {
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now())
    ts(t, 'updated_at').notNullable().defaultTo(knex.fn.now())
  }

  await knex.schema.createTable('ncm_collectors', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    // pending (no key yet) | active | revoked
    t.string('state', 16).notNullable().defaultTo('pending')
    t.integer('max_concurrency').notNullable().defaultTo(8)
    // Raw public keys, base64url: the core never holds a collector's private key.
    t.string('ed25519_public_key', 64)
    t.string('x25519_public_key', 64)
    ts(t, 'enrolled_at')
    ts(t, 'last_contact_at')
    t.string('last_address', 64)
    t.string('release', 64)
    // unknown | match | mismatch; contract_seen: what a mismatching collector sent (printable, ≤ 64).
    t.string('contract_state', 16).notNullable().defaultTo('unknown')
    t.string('contract_seen', 64)
    t.string('last_refusal_code', 64)
    ts(t, 'last_refusal_at')
    // A removed collector stays as a tombstone: its next request gets a clear 401, not "unknown key".
    ts(t, 'removed_at')
    created(t)
  })
  await knex.raw('CREATE UNIQUE INDEX ncm_collectors_name_lower ON ncm_collectors (lower(name)) WHERE removed_at IS NULL')

  // Stored as sha256 (hex): a database reader cannot enroll with one.
  await knex.schema.createTable('ncm_enrollment_tokens', (t) => {
    t.string('token_hash', 64).primary()
    t.uuid('collector_id').notNullable().references('ncm_collectors.id').onDelete('CASCADE').index()
    ts(t, 'expires_at').notNullable()
    ts(t, 'used_at')
    t.uuid('created_by')
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now())
  })

  // Every node inserts here before it answers a signed request: a nonce seen twice is a replay, cluster-wide.
  await knex.schema.createTable('ncm_nonces', (t) => {
    t.string('collector_key', 80).notNullable()
    t.string('nonce', 128).notNullable()
    ts(t, 'seen_at').notNullable().defaultTo(knex.fn.now())
    t.primary(['collector_key', 'nonce'])
    t.index(['seen_at'])
  })

  await knex.schema.createTable('ncm_credentials', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.string('username', 128).notNullable()
    // password | private_key
    t.string('auth', 16).notNullable()
    // Sealed with the master key (purpose ncm.credential); write-only through the API.
    t.text('password_sealed')
    t.text('private_key_sealed')
    t.text('passphrase_sealed')
    t.text('enable_secret_sealed')
    created(t)
  })
  await knex.raw('CREATE UNIQUE INDEX ncm_credentials_name_lower ON ncm_credentials (lower(name))')

  // Custom command profiles; the built-in ones live in code (services/profiles/builtin.ts).
  await knex.schema.createTable('ncm_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    t.string('mode', 8).notNullable().defaultTo('shell')
    t.string('prompt', 512).notNullable()
    t.string('login_prompt', 512)
    t.string('login_answer', 256)
    t.jsonb('pre_commands').notNullable()
    t.string('enable_command', 256)
    t.string('enable_prompt', 512)
    t.string('command', 512).notNullable()
    t.string('pager_pattern', 512)
    t.string('pager_answer', 16).notNullable().defaultTo(' ')
    t.jsonb('strip_lines').notNullable()
    t.jsonb('secret_lines').notNullable()
    t.integer('command_timeout_seconds').notNullable().defaultTo(30)
    t.boolean('legacy_algorithms').notNullable().defaultTo(false)
    created(t)
  })
  await knex.raw('CREATE UNIQUE INDEX ncm_profiles_name_lower ON ncm_profiles (lower(name))')

  await knex.schema.createTable('ncm_schedules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('device_group_id').notNullable().unique()
    t.uuid('collector_id').notNullable().references('ncm_collectors.id')
    t.uuid('credential_id').notNullable().references('ncm_credentials.id')
    // A built-in profile's fixed id or a custom profile's: no foreign key (built-ins live in code).
    t.uuid('profile_id').notNullable()
    t.integer('interval_minutes').notNullable().defaultTo(1440)
    t.boolean('enabled').notNullable().defaultTo(true)
    created(t)
  })

  // The devices configuration tracking knows: kept in step with the schedules by reconciliation.
  await knex.schema.createTable('ncm_devices', (t) => {
    t.uuid('device_id').primary()
    // The schedule that covers it now (null: none; its history stays), and what that schedule says.
    t.uuid('schedule_id')
    t.uuid('collector_id')
    // Overrides (null: the schedule's / the inventory address).
    t.string('host', 255)
    t.integer('port').notNullable().defaultTo(22)
    t.uuid('profile_id')
    t.uuid('credential_id')
    // Where this device's TACACS+ records come from, when not its host (the "who changed it" panel).
    t.specificType('aaa_address', 'inet')
    t.boolean('enabled').notNullable().defaultTo(true)
    // OpenSSH SHA256 fingerprint pinned at the first fetch.
    t.string('host_key_sha256', 64)
    ts(t, 'next_due_at')
    t.uuid('lease_job_id')
    t.uuid('lease_collector_id')
    ts(t, 'lease_expires_at')
    ts(t, 'last_fetch_at')
    t.string('last_status', 32)
    t.string('last_error', 500)
    t.integer('consecutive_failures').notNullable().defaultTo(0)
    t.uuid('latest_version_id')
    created(t)
    t.index(['collector_id', 'next_due_at'])
  })

  // One distinct (stripped) text of one device: masked for readers, sealed raw for reveal and rules.
  await knex.schema.createTable('ncm_blobs', (t) => {
    t.uuid('device_id').notNullable()
    t.string('raw_sha256', 64).notNullable()
    t.text('masked').notNullable()
    t.string('masked_sha256', 64).notNullable()
    t.text('sealed').notNullable()
    t.integer('bytes').notNullable()
    t.integer('lines').notNullable()
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now())
    t.primary(['device_id', 'raw_sha256'])
  })

  await knex.schema.createTable('ncm_versions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('device_id').notNullable()
    t.string('raw_sha256', 64).notNullable()
    t.uuid('previous_id')
    t.uuid('collector_id')
    ts(t, 'first_started_at').notNullable()
    ts(t, 'first_finished_at').notNullable()
    t.integer('fetch_ms').notNullable()
    ts(t, 'last_seen_started_at').notNullable()
    ts(t, 'last_seen_at').notNullable()
    t.integer('seen_count').notNullable().defaultTo(1)
    t.integer('added').notNullable().defaultTo(0)
    t.integer('removed').notNullable().defaultTo(0)
    t.boolean('secrets_only').notNullable().defaultTo(false)
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now())
    t.foreign(['device_id', 'raw_sha256']).references(['device_id', 'raw_sha256']).inTable('ncm_blobs')
    t.index(['device_id', 'first_finished_at'])
  })

  // The fetch log: one row a job, from its lease to its result (id = the job id).
  await knex.schema.createTable('ncm_fetches', (t) => {
    t.uuid('id').primary()
    t.uuid('device_id').notNullable()
    t.uuid('collector_id').notNullable()
    ts(t, 'leased_at').notNullable().defaultTo(knex.fn.now())
    ts(t, 'started_at')
    ts(t, 'finished_at')
    ts(t, 'received_at')
    // leased | ok | timeout | connect_failed | auth_failed | host_key_mismatch | too_large | protocol_error | expired
    t.string('status', 32).notNullable().defaultTo('leased')
    t.string('error_code', 64)
    t.string('detail', 500)
    t.integer('bytes')
    // new_version | unchanged | recorded
    t.string('outcome', 16)
    t.uuid('version_id')
    t.index(['device_id', 'leased_at'])
    t.index(['leased_at'])
  })
}
