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
} as const
