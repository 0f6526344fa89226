/** The plugin's settings (`PUT /api/v1/settings/{key}`); ncm has no server options. */
import { defineSetting, Type } from '../../sdk/index.js'

const KiB = 1024
const MiB = 1024 * KiB

export const ncmMaxConfigBytes = defineSetting(
  'ncm.max_config_bytes',
  Type.Integer({ minimum: 64 * KiB, maximum: 32 * MiB }),
  8 * MiB,
  'The largest configuration a collector may send, in bytes (64 KiB to 32 MiB). A larger output is recorded as too_large and stored nowhere.',
)

export const ncmFetchTimeout = defineSetting(
  'ncm.fetch_timeout_seconds',
  Type.Integer({ minimum: 10, maximum: 1800 }),
  120,
  'The longest one fetch may take on the collector, login to last byte, in seconds (10 to 1800). A job not answered within this plus 60 seconds is handed out again.',
)

export const ncmConnectTimeout = defineSetting(
  'ncm.connect_timeout_seconds',
  Type.Integer({ minimum: 2, maximum: 120 }),
  15,
  'How long a collector waits for a device to accept its SSH connection, in seconds (2 to 120).',
)

export const ncmEnrollmentTokenMinutes = defineSetting(
  'ncm.enrollment_token_minutes',
  Type.Integer({ minimum: 5, maximum: 10080 }),
  60,
  'How long a collector enrollment token stays valid, in minutes (5 to 10080). A token works once.',
  { security: true },
)

export const ncmFetchLogDays = defineSetting(
  'ncm.fetch_log_days',
  Type.Integer({ minimum: 1, maximum: 3650 }),
  30,
  'How many days the per-device fetch log is kept (1 to 3650). Configuration versions are kept until their history is deleted.',
)

export const ncmChangeWindowSlack = defineSetting(
  'ncm.change_window_slack_seconds',
  Type.Integer({ minimum: 0, maximum: 3600 }),
  60,
  'How far, in seconds (0 to 3600), the "who changed it" window reaches before the earlier fetch and after the later one when TACACS+ records are matched to a change.',
)

export const ncmComplianceMailTo = defineSetting(
  'ncm.compliance_mail_to',
  Type.Array(Type.String({ format: 'email', maxLength: 254 }), { maxItems: 20, uniqueItems: true }),
  [],
  'Where a new compliance violation is mailed (at most 20 addresses). Empty: no mail.',
  { security: true },
)

export const ncmSettings = [ncmMaxConfigBytes, ncmFetchTimeout, ncmConnectTimeout, ncmEnrollmentTokenMinutes, ncmFetchLogDays, ncmChangeWindowSlack, ncmComplianceMailTo]
