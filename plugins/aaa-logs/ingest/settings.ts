/** The ingester's settings. */
import { defineSetting, Nullable, Type } from '../../../sdk/index.js'

const dir = Nullable(Type.String({ minLength: 2, maxLength: 500, pattern: '^/[^\\u0000-\\u001f]*$' }))

export const ingestSettingRefs = {
  enabled: defineSetting('aaa-logs.ingest_enabled', Type.Boolean(), true, 'Tail the daemons\' log files into the AAA log tables on this node.'),
  tacacsLogDirectory: defineSetting(
    'aaa-logs.tacacs_log_directory',
    dir,
    null,
    'Absolute folder holding tac_plus-ng\'s authentication-*.log, authorization-*.log and accounting-*.log. `null`: `logs/tacacs` in the platform data folder (the tacacs renderer\'s default).',
  ),
  radiusLogDirectory: defineSetting(
    'aaa-logs.radius_log_directory',
    dir,
    null,
    'Absolute folder holding FreeRADIUS\'s radius-auth-*.jsonl and radius-acct-*.jsonl. `null`: `logs/radius` in the platform data folder.',
  ),
  batchSize: defineSetting('aaa-logs.batch_size', Type.Integer({ minimum: 1, maximum: 20000 }), 2000, 'Lines written per transaction (rows, checkpoint and counters together).'),
  pollMs: defineSetting('aaa-logs.poll_ms', Type.Integer({ minimum: 10, maximum: 60000 }), 500, 'How often the log folders are checked for new lines, in milliseconds.'),
} as const

export const ingestSettings = Object.values(ingestSettingRefs)
