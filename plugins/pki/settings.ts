/** The plugin's settings (`PUT /api/v1/settings/{key}`). */
import { defineSetting, Type } from '../../sdk/index.js'

export const crlValidityHours = defineSetting(
  'pki.crl_validity_hours',
  Type.Integer({ minimum: 1, maximum: 720 }),
  168,
  'How long each CRL is valid (nextUpdate - thisUpdate), in hours. A new CRL is made at every revocation, and by the schedule once less than half of this is left.',
  // A longer CRL life keeps a revocation unseen longer by relying parties that cache.
  { security: true },
)

export const pkiSettings = [crlValidityHours]
