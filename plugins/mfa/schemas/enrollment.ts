import { Type, Timestamp, Nullable, type Static } from '../../../sdk/index.js'
import { TotpCode } from './common.js'

export const EnrollmentStarted = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP seed, base32 without padding, for manual entry.' }),
    otpauth_uri: Type.String({ description: 'otpauth://totp/<issuer>:<username>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30' }),
    qr_svg: Type.String({ description: 'The otpauth URI as a QR code: data:image/svg+xml;base64,…' }),
  },
  { title: 'MfaEnrollmentResponse', additionalProperties: false },
)

export const EnrollmentConfirm = Type.Object({ code: TotpCode }, { title: 'MfaEnrollmentConfirm', additionalProperties: false })

export const MfaStatus = Type.Object(
  {
    enrolled: Type.Boolean({ description: 'True when a confirmed TOTP authenticator guards the sign-in.' }),
    confirmed_at: Nullable(Timestamp()),
  },
  { title: 'MfaStatusResponse', additionalProperties: false },
)

export type MfaStatus = Static<typeof MfaStatus>
