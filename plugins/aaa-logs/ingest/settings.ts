/** The ingester's settings. */
import { defineServerOption, defineSetting, Nullable, Type } from '../../../sdk/index.js'

const dir = Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/[^\\u0000-\\u001f]*$' }))

export const ingestSettingRefs = {
  // Turning ingestion off hides what users do on the devices: an administrator's decision.
  enabled: defineSetting('aaa-logs.ingest_enabled', Type.Boolean(), true, 'Tail the daemons\' log files into the AAA log tables on this node.', { security: true }),
  // Large batches: a batch is only what the files hold when it is read (a quiet daemon gives small
  // ones), and under load each batch's statement-level triggers (row counts, the lists' rollup) and
  // commit are shared by more rows (docs/benchmarks.md: 2,000 → 20,000 halved the rollup's cost).
  batchSize: defineSetting('aaa-logs.batch_size', Type.Integer({ minimum: 1, maximum: 100000 }), 20000, 'Lines written per transaction (rows, checkpoint and counters together).'),
  pollMs: defineSetting('aaa-logs.poll_ms', Type.Integer({ minimum: 10, maximum: 60000 }), 500, 'How often the log folders are checked for new lines, in milliseconds.'),
} as const

export const ingestSettings = Object.values(ingestSettingRefs)

/** Folders the ingester reads: server options, from the server's configuration only. */
export const ingestOptionRefs = {
  tacacsLogDirectory: defineServerOption(
    'aaa-logs.tacacs_log_directory',
    dir,
    null,
    'Absolute folder holding tac_plus-ng\'s authentication-*.log, authorization-*.log and accounting-*.log. `null`: `logs/tacacs` in the platform data folder (the tacacs renderer\'s default).',
    { env: 'AAA_LOGS_TACACS_LOG_DIRECTORY' },
  ),
  radiusLogDirectory: defineServerOption(
    'aaa-logs.radius_log_directory',
    dir,
    null,
    'Absolute folder holding FreeRADIUS\'s radius-auth-*.jsonl and radius-acct-*.jsonl. `null`: `logs/radius` in the platform data folder.',
    { env: 'AAA_LOGS_RADIUS_LOG_DIRECTORY' },
  ),
} as const

export const ingestOptions = Object.values(ingestOptionRefs)
