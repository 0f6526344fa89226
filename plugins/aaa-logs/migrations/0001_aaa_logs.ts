import type { Knex } from 'knex'

/**
 * The five AAA log kinds, one table each, partitioned by month on `timestamp`
 * (lists always filter or sort by time, and old months are dropped whole), plus
 * the ingester's checkpoints and quarantine. The default partition catches rows
 * outside the months created ahead; ingest/partitions.ts adds the months.
 *
 * Every row carries `node_id` (the cluster node that ingested it) and
 * `source_file` + `source_offset` (the raw line it came from).
 */
const COMMON = `
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  timestamp timestamptz NOT NULL,
  username varchar(253) NOT NULL,
  nas_ip inet,
  node_id uuid NOT NULL,
  device_name varchar(128),
  client_address varchar(64),
  session_id varchar(128),
  source_file varchar(512) NOT NULL,
  source_offset bigint NOT NULL,
  ingested_at timestamptz NOT NULL DEFAULT now()`

export const LOG_TABLES: Record<string, string> = {
  aaa_log_tacacs_authn: `${COMMON},
  status varchar(16) NOT NULL,            -- success | failure
  rule_name varchar(128),
  profile varchar(128),
  authen_type varchar(32),
  port varchar(64),
  message text`,
  aaa_log_tacacs_authz: `${COMMON},
  action varchar(16) NOT NULL,            -- permit | deny
  rule_name varchar(128),
  profile varchar(128),
  service varchar(64),
  priv_lvl smallint,
  command text,
  arguments text[] NOT NULL DEFAULT '{}',
  reply_arguments text[] NOT NULL DEFAULT '{}'`,
  aaa_log_tacacs_acct: `${COMMON},
  action varchar(16) NOT NULL,            -- start | stop | watchdog
  service varchar(64),
  command text,
  arguments text[] NOT NULL DEFAULT '{}',
  port varchar(64)`,
  aaa_log_radius_auth: `${COMMON},
  status varchar(16) NOT NULL,            -- accept | reject
  auth_type varchar(16),                  -- PAP | MS-CHAPv2 | CHAP | null (EAP and others)
  rule_name varchar(128),
  rule_label varchar(128),
  calling_station_id varchar(64),
  called_station_id varchar(128),
  nas_port varchar(64),
  nas_identifier varchar(253),
  reply_attributes jsonb NOT NULL DEFAULT '[]',
  reason text`,
  aaa_log_radius_acct: `${COMMON},
  acct_status_type varchar(32) NOT NULL,  -- Start | Stop | Interim-Update
  acct_session_id varchar(128),
  calling_station_id varchar(64),
  framed_ip inet,
  session_time bigint,
  input_octets bigint,
  output_octets bigint,
  nas_port varchar(64)`,
}

export async function up(knex: Knex): Promise<void> {
  for (const [table, columns] of Object.entries(LOG_TABLES)) {
    await knex.raw(`CREATE TABLE ${table} (${columns}, PRIMARY KEY (id, timestamp)) PARTITION BY RANGE (timestamp)`)
    await knex.raw(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT`)
    // Lists: newest first, by user, by NAS; search and the other filters narrow these.
    await knex.raw(`CREATE INDEX ${table}_ts ON ${table} (timestamp DESC, id DESC)`)
    await knex.raw(`CREATE INDEX ${table}_user_ts ON ${table} (username, timestamp DESC)`)
    await knex.raw(`CREATE INDEX ${table}_nas_ts ON ${table} (nas_ip, timestamp DESC)`)
  }

  // Where each tailed file has been read to, written in the same transaction as its rows.
  await knex.raw(`CREATE TABLE aaa_log_checkpoints (
    node_id uuid NOT NULL,
    source varchar(64) NOT NULL,            -- tacacs_authentication … radius_accounting, or a replay's name
    file varchar(512) NOT NULL,
    inode bigint NOT NULL,
    offset_bytes bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (node_id, source, file)
  )`)

  // Lines that could not be parsed: kept, with the reason, never blocking the stream.
  await knex.raw(`CREATE TABLE aaa_log_quarantine (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    node_id uuid NOT NULL,
    source varchar(64) NOT NULL,
    source_file varchar(512) NOT NULL,
    source_offset bigint NOT NULL,
    line bytea NOT NULL,
    reason text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
  )`)
  await knex.raw('CREATE INDEX aaa_log_quarantine_received ON aaa_log_quarantine (received_at DESC)')

  // Log exclusion rules: a matching event is not stored (only counted below).
  await knex.raw(`CREATE TABLE aaa_log_exclusions (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name varchar(64) NOT NULL,
    description varchar(500),
    protocol varchar(8) NOT NULL,           -- all | tacacs | radius
    match_type varchar(24) NOT NULL,        -- username | username_pattern | user_group
    match_value varchar(253) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`)
  await knex.raw('CREATE UNIQUE INDEX aaa_log_exclusions_name ON aaa_log_exclusions (lower(name))')

  // Events dropped by the exclusion rules, counted per node, rule and day (visible, never stored).
  await knex.raw(`CREATE TABLE aaa_log_exclusion_drops (
    node_id uuid NOT NULL,
    exclusion_id uuid NOT NULL,
    day date NOT NULL,
    dropped bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (node_id, exclusion_id, day)
  )`)
}
