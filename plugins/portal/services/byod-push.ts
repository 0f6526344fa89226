/**
 * The employee's second factor by a push to their phone, as the API's sign-in does it (the mfa
 * plugin's push factor, MfaService.push): the portal page shows a two-digit number and the phone
 * asks for it (number matching). A push is charged to the byod_mfa token's budget before it is
 * sent (one strike a push, shared with wrong codes), so a spent token sends nothing. The page waits
 * for the answer without script: its "I approved it" button asks again, each ask waiting at most
 * PAGE_WAIT_MS on the server.
 */
import type { PushOutcome } from '../../mfa/api.js'
import { PortalErrors } from '../errors.js'
import type { PortalRow, SessionRow } from '../tables.js'
import type { ByodOutcome } from './byod.js'
import type { PortalContext } from './context.js'
import { expectState } from './guest-session.js'
import { assertOffered } from './methods.js'

/** The longest one ask of the page (or the API) waits for the phone: under any proxy's timeout, and a guest's patience. */
export const PAGE_WAIT_MS = 20_000

/** The token of this session's user: 401 BYOD_MFA_TOKEN_INVALID otherwise (another user's, an `mfa` token, spent). */
async function tokenOf(c: PortalContext, portal: PortalRow, s: SessionRow, token: string) {
  assertOffered(portal, 'byod')
  expectState(s, 'started')
  const v = await c.identity.verifyToken(token, 'byod_mfa')
  if (!v || !c.mfa || s.user_id !== v.sub) throw PortalErrors.byodTokenInvalid()
  return { v, push: c.mfa.push }
}

/** Sends the push: the budget first (`countFailure` true: spent, the token revoked, nothing sent). */
export async function byodPushStart(
  c: PortalContext, portal: PortalRow, s: SessionRow, token: string, ip: string | undefined, countFailure: (jti: string) => Promise<boolean>,
): Promise<ByodOutcome> {
  const { v, push } = await tokenOf(c, portal, s, token)
  if (await countFailure(v.jti)) {
    await c.identity.revokeToken(v.jti, v.exp)
    throw PortalErrors.byodTokenInvalid()
  }
  const started = await push.start(v.sub, { origin: 'portal', context: { ...(ip ? { ip } : {}), client: portal.name }, numberMatching: true })
  if (!started.sent) {
    const refusal = { no_device: PortalErrors.byodPushNoDevice, locked: PortalErrors.byodPushLocked, rate_limited: PortalErrors.byodPushRateLimited, unavailable: PortalErrors.byodPushUnavailable }[started.refusal]
    throw refusal()
  }
  return {
    status: 'push_pending', byod_mfa_token: token, push_challenge: started.challengeId, number: started.number,
    expires_in: Math.max(0, Math.round((started.expiresAt.getTime() - Date.now()) / 1000)),
  }
}

/**
 * Waits for the phone, at most `waitMs`: approved spends the token and registers the device
 * (`finish`); still pending answers push_pending again; anything else is 401 BYOD_PUSH_DENIED with
 * the reason (the token stays for a code or another push, within its budget).
 */
export async function byodPushWait(
  c: PortalContext, portal: PortalRow, s: SessionRow, token: string, challenge: string, number: string | null, waitMs: number,
  finish: (userId: string, username: string) => Promise<ByodOutcome>,
): Promise<ByodOutcome> {
  const { v, push } = await tokenOf(c, portal, s, token)
  // Not a uuid: no challenge of this user's, as the provider answers an unknown one.
  const outcome: PushOutcome | null = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(challenge) ? await push.wait(v.sub, challenge, waitMs) : 'cancelled'
  if (outcome === null) return { status: 'push_pending', byod_mfa_token: token, push_challenge: challenge, number, expires_in: null }
  if (outcome !== 'approved') throw PortalErrors.byodPushDenied({ field: 'push_challenge', vars: { reason: outcome } })
  await c.identity.revokeToken(v.jti, v.exp)
  return finish(v.sub, v.name)
}
