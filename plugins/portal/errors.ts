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
  /** The phone denied, answered the wrong number, reported, or did not answer in time (`reason`): the token stays for another try. */
  byodPushDenied: defineError(401, 'BYOD_PUSH_DENIED', 'portal:errors.byod_push_denied'),
  /** No push was sent: the user has no phone enrolled. */
  byodPushNoDevice: defineError(409, 'BYOD_PUSH_NO_DEVICE', 'portal:errors.byod_push_no_device'),
  /** No push was sent: a "report" from the phone locked pushes for this user. */
  byodPushLocked: defineError(403, 'BYOD_PUSH_LOCKED', 'portal:errors.byod_push_locked'),
  /** No push was sent: the per-user limit of pushes (MFA bombing). A page shows it, so not a 429 with Retry-After. */
  byodPushRateLimited: defineError(409, 'BYOD_PUSH_RATE_LIMITED', 'portal:errors.byod_push_rate_limited'),
  /** No push was sent: the push service is not configured or did not take it. */
  byodPushUnavailable: defineError(503, 'BYOD_PUSH_UNAVAILABLE', 'portal:errors.byod_push_unavailable'),
  /** The user has as many registered devices as the portal allows. */
  deviceLimit: defineError(409, 'BYOD_DEVICE_LIMIT', 'portal:errors.device_limit'),
  /** Nothing of the platform's mail could be sent (SMTP settings, server down). */
  mailFailed: defineError(503, 'PORTAL_MAIL_FAILED', 'portal:errors.mail_failed'),
  logoType: defineError(415, 'PORTAL_LOGO_TYPE', 'portal:errors.logo_type'),
  guestNotFound: defineError(404, 'NOT_FOUND', 'portal:errors.guest_not_found'),
  sessionNotFound: defineError(404, 'NOT_FOUND', 'portal:errors.session_not_found'),
  // ---- part B: the admin API ----
  /** A method whose endpoint group is not set (guest methods: guest_endpoint_group_id; byod: byod_endpoint_group_id). */
  methodNeedsGroup: defineError(422, 'PORTAL_METHOD_NEEDS_GROUP', 'portal:errors.method_needs_group'),
  /** `sponsored` with neither sponsor_domains nor sponsor_group_id: nobody could approve. */
  sponsoredNeedsSponsors: defineError(422, 'PORTAL_SPONSORED_NEEDS_SPONSORS', 'portal:errors.sponsored_needs_sponsors'),
  /** byod_onboarding `certificate` without the pki plugin. */
  onboardingUnavailable: defineError(422, 'PORTAL_ONBOARDING_UNAVAILABLE', 'portal:errors.onboarding_unavailable'),
  /** An endpoint group, user group or portal id that names nothing. */
  referenceNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'portal:errors.reference_not_found'),
  registrationFieldName: defineError(422, 'VALIDATION_FAILED', 'portal:errors.registration_field_name'),
  nasIpInvalid: defineError(422, 'VALIDATION_FAILED', 'portal:errors.nas_ip_invalid'),
  validityInvalid: defineError(422, 'VALIDATION_FAILED', 'portal:errors.validity_invalid'),
  macInvalid: defineError(422, 'MAC_INVALID', 'portal:errors.mac_invalid'),
  /** Naming a sponsor group hands its members portal.sponsor: only an administrator or a holder may. */
  sponsorGroupExceeds: defineError(403, 'GROUP_EXCEEDS_OWN_PERMISSIONS', 'portal:errors.sponsor_group_exceeds'),
  /** The portal still has active sessions (devices in its endpoint groups): end them or let them expire first. */
  portalInUse: defineError(409, 'PORTAL_IN_USE', 'portal:errors.portal_in_use'),
  /** Extend, revoke or mail credentials of a guest whose status does not allow it. */
  guestStatusConflict: defineError(409, 'GUEST_STATUS_CONFLICT', 'portal:errors.guest_status_conflict'),
  /** Credentials are for event accounts (kind `account`) only. */
  guestNotAccount: defineError(409, 'GUEST_NOT_ACCOUNT', 'portal:errors.guest_not_account'),
  guestNoEmail: defineError(422, 'GUEST_NO_EMAIL', 'portal:errors.guest_no_email'),
  /** Another request took one of the usernames being generated (a concurrent bulk with the same prefix). */
  usernameTaken: defineError(409, 'GUEST_USERNAME_TAKEN', 'portal:errors.username_taken'),
  sessionEnded: defineError(409, 'PORTAL_SESSION_ENDED', 'portal:errors.session_ended'),
} as const
