/**
 * The plugin's coded errors; messages live in locales/ under the `ncm` namespace. The read side
 * (errors-read-side.ts) and compliance (errors-compliance.ts) keep theirs beside these.
 */
import { defineError } from '../../sdk/index.js'

export * from './errors-compliance.js'
export * from './errors-read-side.js'

export const NcmErrors = {
  // The collector gate (services/collector-gate.ts), in the order it refuses.
  signatureInvalid: defineError(401, 'NCM_SIGNATURE_INVALID', 'ncm:errors.signature_invalid'),
  signatureStale: defineError(401, 'NCM_SIGNATURE_STALE', 'ncm:errors.signature_stale'),
  replayed: defineError(401, 'NCM_REPLAYED', 'ncm:errors.replayed'),
  collectorRevoked: defineError(401, 'NCM_COLLECTOR_REVOKED', 'ncm:errors.collector_revoked'),
  contractMismatch: defineError(409, 'NCM_CONTRACT_MISMATCH', 'ncm:errors.contract_mismatch'),
  // Enrollment.
  enrollmentInvalid: defineError(401, 'NCM_ENROLLMENT_INVALID', 'ncm:errors.enrollment_invalid'),
  enrollmentExpired: defineError(410, 'NCM_ENROLLMENT_EXPIRED', 'ncm:errors.enrollment_expired'),
  enrollmentUsed: defineError(409, 'NCM_ENROLLMENT_USED', 'ncm:errors.enrollment_used'),
  publicKeyInvalid: defineError(422, 'NCM_PUBLIC_KEY_INVALID', 'ncm:errors.public_key_invalid'),
  // Jobs and results.
  jobUnknown: defineError(409, 'NCM_JOB_UNKNOWN', 'ncm:errors.job_unknown'),
  configTooLarge: defineError(422, 'NCM_CONFIG_TOO_LARGE', 'ncm:errors.config_too_large'),
  resultInvalid: defineError(422, 'NCM_RESULT_INVALID', 'ncm:errors.result_invalid'),
  // The management routes.
  collectorNotFound: defineError(404, 'NCM_COLLECTOR_NOT_FOUND', 'ncm:errors.collector_not_found'),
  collectorNameTaken: defineError(409, 'NCM_COLLECTOR_NAME_TAKEN', 'ncm:errors.collector_name_taken'),
  collectorInUse: defineError(409, 'NCM_COLLECTOR_IN_USE', 'ncm:errors.collector_in_use'),
  collectorRemoved: defineError(409, 'NCM_COLLECTOR_REMOVED', 'ncm:errors.collector_removed'),
  credentialNotFound: defineError(404, 'NCM_CREDENTIAL_NOT_FOUND', 'ncm:errors.credential_not_found'),
  credentialNameTaken: defineError(409, 'NCM_CREDENTIAL_NAME_TAKEN', 'ncm:errors.credential_name_taken'),
  credentialInUse: defineError(409, 'NCM_CREDENTIAL_IN_USE', 'ncm:errors.credential_in_use'),
  credentialSecretRequired: defineError(422, 'NCM_CREDENTIAL_SECRET_REQUIRED', 'ncm:errors.credential_secret_required'),
  privateKeyInvalid: defineError(422, 'NCM_PRIVATE_KEY_INVALID', 'ncm:errors.private_key_invalid'),
  profileNotFound: defineError(404, 'NCM_PROFILE_NOT_FOUND', 'ncm:errors.profile_not_found'),
  profileNameTaken: defineError(409, 'NCM_PROFILE_NAME_TAKEN', 'ncm:errors.profile_name_taken'),
  profileBuiltin: defineError(409, 'NCM_PROFILE_BUILTIN', 'ncm:errors.profile_builtin'),
  profileInUse: defineError(409, 'NCM_PROFILE_IN_USE', 'ncm:errors.profile_in_use'),
  regexUnsafe: defineError(422, 'NCM_REGEX_UNSAFE', 'ncm:errors.regex_unsafe'),
  scheduleNotFound: defineError(404, 'NCM_SCHEDULE_NOT_FOUND', 'ncm:errors.schedule_not_found'),
  scheduleExists: defineError(409, 'NCM_SCHEDULE_EXISTS', 'ncm:errors.schedule_exists'),
  groupNotFound: defineError(422, 'NCM_GROUP_NOT_FOUND', 'ncm:errors.group_not_found'),
  referenceNotFound: defineError(422, 'NCM_REFERENCE_NOT_FOUND', 'ncm:errors.reference_not_found'),
  deviceNotFound: defineError(404, 'NCM_DEVICE_NOT_FOUND', 'ncm:errors.device_not_found'),
  deviceNotHost: defineError(422, 'NCM_DEVICE_NOT_HOST', 'ncm:errors.device_not_host'),
} as const
