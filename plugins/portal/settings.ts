/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import { defineSetting, Type } from '../../sdk/index.js'

export const guestRetentionDays = defineSetting(
  'portal.guest_retention_days',
  Type.Integer({ minimum: 1, maximum: 3650 }),
  30,
  'Days an ended, expired, denied or revoked guest and its portal sessions are kept (for the admin views and the audit\'s context) before they are purged.',
)

export const codesPerEmailPerHour = defineSetting(
  'portal.codes_per_email_per_hour',
  Type.Integer({ minimum: 1, maximum: 100 }),
  3,
  'Self-registration codes mailed to one e-mail address in an hour; one more answers 429.',
)

export const portalSettings = [guestRetentionDays, codesPerEmailPerHour]
