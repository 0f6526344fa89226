/** The plugin's coded errors; messages live in locales/ under the `mfa` namespace. */
import { defineError } from '../../sdk/index.js'

/** Once per mfa token: the login must start again (fresh password check) after this many wrong codes. */
export const MFA_CODE_BUDGET = 5

export const MfaErrors = {
  /** A wrong or replayed code at sign-in; the body says how many tries the token has left. */
  codeInvalid: defineError(401, 'MFA_CODE_INVALID', 'mfa:errors.code_invalid'),
  /** The same code as a validation failure: during enrollment nobody is signing in yet. */
  enrollmentCodeInvalid: defineError(422, 'MFA_CODE_INVALID', 'mfa:errors.enrollment_code_invalid'),
  tokenInvalid: defineError(401, 'MFA_TOKEN_INVALID', 'mfa:errors.token_invalid'),
  tokenBurnt: defineError(401, 'MFA_TOKEN_BURNT', 'mfa:errors.token_burnt'),
  alreadyEnrolled: defineError(409, 'MFA_ALREADY_ENROLLED', 'mfa:errors.already_enrolled'),
  enrollmentNotStarted: defineError(409, 'MFA_ENROLLMENT_NOT_STARTED', 'mfa:errors.enrollment_not_started'),
  emailMissing: defineError(409, 'MFA_EMAIL_MISSING', 'mfa:errors.email_missing'),
  mailFailed: defineError(503, 'MFA_MAIL_FAILED', 'mfa:errors.mail_failed'),
  internalDisabled: defineError(404, 'MFA_INTERNAL_DISABLED', 'mfa:errors.internal_disabled'),
  internalKeyInvalid: defineError(401, 'INTERNAL_KEY_INVALID', 'mfa:errors.internal_key_invalid'),

  // The push factor (docs/push-mfa.md). The app's side, relayed by the push service:
  pushDisabled: defineError(404, 'MFA_PUSH_DISABLED', 'mfa:errors.push_disabled'),
  pushChannelInvalid: defineError(401, 'PUSH_CHANNEL_INVALID', 'mfa:errors.push_channel_invalid'),
  pushEnrollmentInvalid: defineError(401, 'PUSH_ENROLLMENT_INVALID', 'mfa:errors.push_enrollment_invalid'),
  pushPublicKeyInvalid: defineError(422, 'PUSH_PUBLIC_KEY_INVALID', 'mfa:errors.push_public_key_invalid'),
  pushProofInvalid: defineError(422, 'PUSH_PROOF_INVALID', 'mfa:errors.push_proof_invalid'),
  pushClockSkew: defineError(401, 'PUSH_CLOCK_SKEW', 'mfa:errors.push_clock_skew'),
  pushDeviceUnknown: defineError(401, 'PUSH_DEVICE_UNKNOWN', 'mfa:errors.push_device_unknown'),
  pushSignatureInvalid: defineError(401, 'PUSH_SIGNATURE_INVALID', 'mfa:errors.push_signature_invalid'),
  pushChallengeNotFound: defineError(404, 'PUSH_CHALLENGE_NOT_FOUND', 'mfa:errors.push_challenge_not_found'),
  pushChallengeClosed: defineError(409, 'PUSH_CHALLENGE_CLOSED', 'mfa:errors.push_challenge_closed'),
  // The sign-in's and the people's side:
  pushNoDevice: defineError(409, 'MFA_PUSH_NO_DEVICE', 'mfa:errors.push_no_device'),
  pushLocked: defineError(403, 'MFA_PUSH_LOCKED', 'mfa:errors.push_locked'),
  pushRateLimited: defineError(429, 'MFA_PUSH_RATE_LIMITED', 'mfa:errors.push_rate_limited'),
  pushUnavailable: defineError(503, 'MFA_PUSH_UNAVAILABLE', 'mfa:errors.push_unavailable'),
  pushDenied: defineError(401, 'MFA_PUSH_DENIED', 'mfa:errors.push_denied'),
  pushRequired: defineError(403, 'MFA_PUSH_REQUIRED', 'mfa:errors.push_required'),
  factorNotChosen: defineError(403, 'MFA_FACTOR_NOT_CHOSEN', 'mfa:errors.factor_not_chosen'),
  factorNotEnrolled: defineError(409, 'MFA_FACTOR_NOT_ENROLLED', 'mfa:errors.factor_not_enrolled'),
  pushDeviceNotFound: defineError(404, 'MFA_PUSH_DEVICE_NOT_FOUND', 'mfa:errors.push_device_not_found'),
  // Recovery codes (docs/mfa.md "Recovery codes"):
  recoveryNeedsFactor: defineError(409, 'MFA_RECOVERY_NEEDS_FACTOR', 'mfa:errors.recovery_needs_factor'),
  recoveryCodeInvalid: defineError(401, 'MFA_RECOVERY_CODE_INVALID', 'mfa:errors.recovery_code_invalid'),
} as const
