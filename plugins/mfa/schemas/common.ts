import { Type, Uuid } from '../../../sdk/index.js'

/** Six digits, as the authenticator app shows them. Anything else is a 422 and costs no attempt. */
export const TotpCode = Type.String({ pattern: '^[0-9]{6}$', minLength: 6, maxLength: 6, description: 'The 6-digit code the authenticator app shows.' })

export const UserParams = Type.Object({ user_id: Uuid() }, { additionalProperties: false })

export const Accepted = Type.Object({ detail: Type.String() }, { title: 'MfaAcceptedResponse', additionalProperties: false })
