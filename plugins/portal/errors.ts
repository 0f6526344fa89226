/** The plugin's coded errors; messages live in locales/ under the `portal` namespace. */
import { defineError } from '../../sdk/index.js'

export const PortalErrors = {
  portalNameTaken: defineError(409, 'PORTAL_NAME_TAKEN', 'portal:errors.portal_name_taken'),
  portalSlugTaken: defineError(409, 'PORTAL_SLUG_TAKEN', 'portal:errors.portal_slug_taken'),
  /** No enabled portal at that path, or none for the NAS/SSID the redirect names. */
  portalNotFound: defineError(404, 'PORTAL_NOT_FOUND', 'portal:errors.portal_not_found'),
  /** The method is not one this portal offers. */
  methodNotOffered: defineError(403, 'PORTAL_METHOD_NOT_OFFERED', 'portal:errors.method_not_offered'),
  /** The redirect's signature does not match its parameters, or an unsigned redirect where the portal wants a signed one. */
  redirectInvalid: defineError(403, 'PORTAL_REDIRECT_INVALID', 'portal:errors.redirect_invalid'),
  /** The guest session token is missing, unknown, replayed after its end, or of another portal. */
  guestTokenInvalid: defineError(401, 'GUEST_TOKEN_INVALID', 'portal:errors.guest_token_invalid'),
  /** The step does not fit the session's state (a code for a session not waiting for one …). */
  guestStateConflict: defineError(409, 'GUEST_STATE_CONFLICT', 'portal:errors.guest_state_conflict'),
  codeInvalid: defineError(422, 'GUEST_CODE_INVALID', 'portal:errors.code_invalid'),
  codeExpired: defineError(410, 'GUEST_CODE_EXPIRED', 'portal:errors.code_expired'),
  /** The sponsor's e-mail is in no allowed domain, and no member of the sponsor group has it. */
  sponsorNotAllowed: defineError(422, 'SPONSOR_NOT_ALLOWED', 'portal:errors.sponsor_not_allowed'),
  sponsorLinkNotFound: defineError(404, 'SPONSOR_LINK_NOT_FOUND', 'portal:errors.sponsor_link_not_found'),
  /** Decided already: a link is single use. */
  sponsorLinkSpent: defineError(410, 'SPONSOR_LINK_SPENT', 'portal:errors.sponsor_link_spent'),
  sponsorLinkExpired: defineError(410, 'SPONSOR_LINK_EXPIRED', 'portal:errors.sponsor_link_expired'),
  requestDecided: defineError(409, 'SPONSOR_REQUEST_DECIDED', 'portal:errors.request_decided'),
  /** Wrong username or password at the employee / guest-account sign-in. */
  credentialsInvalid: defineError(401, 'GUEST_CREDENTIALS_INVALID', 'portal:errors.credentials_invalid'),
  byodTokenInvalid: defineError(401, 'BYOD_MFA_TOKEN_INVALID', 'portal:errors.byod_token_invalid'),
  byodCodeInvalid: defineError(401, 'BYOD_MFA_CODE_INVALID', 'portal:errors.byod_code_invalid'),
  /** The user has as many registered devices as the portal allows. */
  deviceLimit: defineError(409, 'BYOD_DEVICE_LIMIT', 'portal:errors.device_limit'),
  /** Nothing of the platform's mail could be sent (SMTP settings, server down). */
  mailFailed: defineError(503, 'PORTAL_MAIL_FAILED', 'portal:errors.mail_failed'),
  logoType: defineError(415, 'PORTAL_LOGO_TYPE', 'portal:errors.logo_type'),
  logoTooLarge: defineError(413, 'PORTAL_LOGO_TOO_LARGE', 'portal:errors.logo_too_large'),
  guestNotFound: defineError(404, 'NOT_FOUND', 'portal:errors.guest_not_found'),
  sessionNotFound: defineError(404, 'NOT_FOUND', 'portal:errors.session_not_found'),
} as const
