import { Type, Nullable, Uuid } from '../../../sdk/index.js'

export const LoginRequest = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 256 }) },
  { title: 'LoginRequest', additionalProperties: false },
)

export const SessionToken = Type.Object(
  {
    access_token: Type.String({ description: 'JWT of purpose `session`; send as `Authorization: Bearer`.' }),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  },
  { title: 'SessionTokenResponse', additionalProperties: false },
)
export const MfaRequired = Type.Object(
  {
    status: Type.Literal('mfa_required'),
    mfa_token: Type.String({ description: 'Spend it in the body of POST /api/v1/mfa/verify; it is never a bearer token.' }),
    expires_in: Type.Integer(),
    factors: Type.Array(Type.String(), { description: 'The second factors the user may use now (`totp`, `push`), as the plugins that offer them say: their enrolment and the user\'s choice.' }),
  },
  { title: 'MfaRequiredResponse', additionalProperties: false },
)
export const PasswordChangeRequired = Type.Object(
  {
    status: Type.Literal('password_change_required'),
    password_change_token: Type.String({ description: 'Bearer token accepted only by POST /api/v1/auth/change-password.' }),
    expires_in: Type.Integer(),
  },
  { title: 'PasswordChangeRequiredResponse', additionalProperties: false },
)
export const LoginResponse = Type.Union([SessionToken, MfaRequired, PasswordChangeRequired], { title: 'LoginResponse' })

export const ChangePasswordRequest = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 256 }), new_password: Type.String({ minLength: 1, maxLength: 256 }) },
  { title: 'ChangePasswordRequest', additionalProperties: false },
)

export const MeResponse = Type.Object(
  {
    id: Uuid(),
    username: Type.String(),
    display_name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    is_admin: Type.Boolean(),
    permissions: Type.Array(Type.String(), { description: 'Effective permissions (from roles given directly and through groups).' }),
    groups: Type.Array(Type.String()),
    must_change_password: Type.Boolean(),
    mfa_enabled: Type.Boolean(),
    docs_enabled: Type.Boolean({ description: 'Whether /docs, /redoc and /openapi.json are served.' }),
  },
  { title: 'MeResponse', additionalProperties: false },
)

export const PasswordResetRequest = Type.Object(
  { username_or_email: Type.String({ minLength: 1, maxLength: 254 }) },
  { title: 'PasswordResetRequest', additionalProperties: false },
)
export const PasswordResetConfirm = Type.Object(
  { token: Type.String({ minLength: 20, maxLength: 128 }), new_password: Type.String({ minLength: 1, maxLength: 256 }) },
  { title: 'PasswordResetConfirm', additionalProperties: false },
)
export const Accepted = Type.Object({ detail: Type.String() }, { title: 'AcceptedResponse', additionalProperties: false })
