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

/**
 * Replaced: the ingester tails the folders the daemons are configured to write to (tacacs.log_directory,
 * radius.log_directory), so the two can no longer disagree. Still declared so that a value left in a
 * configuration refuses the boot with the option to set instead, rather than being ignored.
 */
export const ingestOptionRefs = {
  tacacsLogDirectory: defineServerOption(
    'aaa-logs.tacacs_log_directory',
    dir,
    null,
    'Replaced by `tacacs.log_directory` (the ingester tails the folder tac_plus-ng writes to): a value given refuses the boot.',
    { env: 'AAA_LOGS_TACACS_LOG_DIRECTORY', replacedBy: 'tacacs.log_directory (TACACS_LOG_DIRECTORY)' },
  ),
  radiusLogDirectory: defineServerOption(
    'aaa-logs.radius_log_directory',
    dir,
    null,
    'Replaced by `radius.log_directory` (the ingester tails the folder FreeRADIUS writes to): a value given refuses the boot.',
    { env: 'AAA_LOGS_RADIUS_LOG_DIRECTORY', replacedBy: 'radius.log_directory (RADIUS_LOG_DIRECTORY)' },
  ),
} as const

export const ingestOptions = Object.values(ingestOptionRefs)
