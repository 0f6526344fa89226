import { Nullable, Timestamp, Type } from '../../../sdk/index.js'
import { RECOVERY_CODE_COUNT } from '../services/recovery-codes.js'

/**
 * A recovery code as typed: 16 characters of Crockford's base32, in any case, with or without the
 * dashes and spaces between groups. The exact check (and the I/L/O reading) is the handler's.
 */
export const RecoveryCodeInput = Type.String({
  minLength: 16,
  maxLength: 24,
  pattern: '^[0-9A-Za-z -]+$',
  description: 'A one-time recovery code, e.g. `7K3M-Q9XD-2HFA-R8TW` (case, dashes and spaces do not matter).',
})

export const RecoveryStatus = Type.Object(
  {
    remaining: Type.Integer({ minimum: 0, maximum: RECOVERY_CODE_COUNT, description: 'Unused codes left. The codes themselves are never shown again.' }),
    created_at: Nullable(Timestamp({ description: 'When the current set was made; null without codes.' })),
  },
  { title: 'MfaRecoveryStatus', additionalProperties: false },
)

export const RecoveryCodeSet = Type.Object(
  {
    codes: Type.Array(Type.String({ pattern: '^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$' }), {
      minItems: RECOVERY_CODE_COUNT,
      maxItems: RECOVERY_CODE_COUNT,
      description: 'The new codes, shown this once: keep them offline. Each signs in once.',
    }),
    remaining: Type.Integer({ minimum: 0 }),
    created_at: Timestamp(),
  },
  { title: 'MfaRecoveryCodeSet', additionalProperties: false },
)
