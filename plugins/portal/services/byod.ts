/**
 * Employees' own devices (BYOD): a platform user, local or from the directory, signs in on the
 * portal. With a second factor enrolled, the password gives only a `byod_mfa` token (5 minutes),
 * which the portal's own verify call spends with a TOTP code, or an approval on the phone
 * (services/byod-push.ts, the factors the user may use listed); it is never a bearer token and is not
 * an `mfa` token (the purposes differ, so neither verify takes the other's). The device is
 * registered to the user, up to the portal's device limit, optionally with a certificate for EAP-TLS.
 */
import { PortalErrors } from '../errors.js'
import type { PortalRow, SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'
import { expectState } from './guest-session.js'
import { assertOffered } from './methods.js'
import { registerSession } from './register.js'

export const BYOD_MFA_TTL = 300
/** Wrong codes a byod_mfa token takes before it is revoked. */
export const BYOD_CODE_TRIES = 5

/** The onboarding certificate's one-time download (a POST, same origin as the portal) and the bundle's passphrase, shown once. */
export interface OnboardingCertificate {
  download_url: string
  download_path: string
  passphrase: string
}

/** A second factor an employee may use at the portal. */
export type EmployeeFactor = 'totp' | 'push'

/**
 * The second factors the employee may use here, as the API's sign-in offers them (the user's
 * choice applied to what is set up): none means the password alone.
 */
export async function employeeFactors(c: PortalContext, userId: string): Promise<EmployeeFactor[]> {
  return c.mfa ? (await c.mfa.factorsOf(userId)).allowed : []
}

export type ByodOutcome =
  | { status: 'registered'; session: SessionRow; certificate: OnboardingCertificate | null }
  | { status: 'mfa_required'; byod_mfa_token: string; expires_in: number; factors: EmployeeFactor[] }
  /** A push is on its way: the page shows `number`, the phone asks for it; ask again with the challenge. */
  | { status: 'push_pending'; byod_mfa_token: string; push_challenge: string; number: string | null; expires_in: number | null }

/** The user's other devices registered through this portal's BYOD now: 409 BYOD_DEVICE_LIMIT at the limit. */
async function checkDeviceLimit(c: PortalContext, portal: PortalRow, userId: string, mac: string): Promise<void> {
  const rows = await c.knex('portal_sessions').where({ portal_id: portal.id, user_id: userId, method: 'byod', state: 'active' }).whereNot({ mac }).distinct('mac')
  if (rows.length >= portal.byod_device_limit) throw PortalErrors.deviceLimit({ vars: { limit: portal.byod_device_limit } })
}

/** Username and password; 401 GUEST_CREDENTIALS_INVALID for anything wrong (the caller audits and rate-limits). */
export async function byodSignIn(c: PortalContext, portal: PortalRow, s: SessionRow, username: string, password: string): Promise<ByodOutcome> {
  assertOffered(portal, 'byod')
  expectState(s, 'started')
  const user = await c.identity.checkSignInPassword(username, password)
  if (!user) throw PortalErrors.credentialsInvalid()
  await checkDeviceLimit(c, portal, user.id, s.mac)
  // The session is the user's from here: a byod_mfa token of this user is the only one its verify takes.
  await c.knex('portal_sessions').where({ id: s.id, state: 'started' }).update({ user_id: user.id, method: 'byod', updated_at: new Date() })
  const factors = await employeeFactors(c, user.id)
  if (factors.length > 0) {
    const t = await c.identity.issueToken(user, 'byod_mfa', BYOD_MFA_TTL)
    return { status: 'mfa_required', byod_mfa_token: t.token, expires_in: BYOD_MFA_TTL, factors }
  }
  return finish(c, portal, s.id, user.id, user.username)
}

/**
 * The second step: the token (of this session's user, purpose byod_mfa) and a TOTP code. A wrong
 * code counts against the token (`countFailure` answers true when the budget is spent), and the
 * last wrong one revokes it; a right one spends it.
 */
export async function byodVerify(c: PortalContext, portal: PortalRow, s: SessionRow, token: string, code: string, countFailure: (jti: string) => Promise<boolean>): Promise<ByodOutcome> {
  assertOffered(portal, 'byod')
  expectState(s, 'started')
  const v = await c.identity.verifyToken(token, 'byod_mfa')
  const mfa = c.mfa
  if (!v || !mfa || s.user_id !== v.sub) throw PortalErrors.byodTokenInvalid()
  // A user whose choice is the push alone is asked for no code: one typed counts as a wrong one.
  const codeAllowed = (await employeeFactors(c, v.sub)).includes('totp')
  if (!codeAllowed || !(await mfa.verifyCode(v.sub, code))) {
    if (await countFailure(v.jti)) {
      await c.identity.revokeToken(v.jti, v.exp)
      throw PortalErrors.byodTokenInvalid()
    }
    throw PortalErrors.byodCodeInvalid({ field: 'code' })
  }
  await c.identity.revokeToken(v.jti, v.exp)
  return byodRegister(c, portal, s, v.sub, v.name)
}

/** The second factor passed (a code, or an approval on the phone): the device is the user's, within the limit. */
export async function byodRegister(c: PortalContext, portal: PortalRow, s: SessionRow, userId: string, username: string): Promise<ByodOutcome> {
  await checkDeviceLimit(c, portal, userId, s.mac)
  return finish(c, portal, s.id, userId, username)
}

async function finish(c: PortalContext, portal: PortalRow, sessionId: string, userId: string, username: string): Promise<ByodOutcome> {
  const session = await registerSession(c, sessionId)
  let certificate: OnboardingCertificate | null = null
  const pki = c.pki
  if (portal.byod_onboarding === 'certificate' && pki) {
    try {
      const cert = await pki.issueUserCertificate({ userId, commonName: username })
      certificate = { download_url: cert.downloadUrl, download_path: `/api/v1/public/cert-download/${encodeURIComponent(cert.downloadToken)}`, passphrase: cert.passphrase }
    } catch (e) {
      // The device is registered either way; the employee can get a certificate from the PKI later.
      c.log.warn({ err: (e as Error)?.message, userId }, 'captive portal: the onboarding certificate could not be issued')
    }
  }
  return { status: 'registered', session, certificate }
}
