/**
 * The steps a guest takes, shared by the pages (form fields) and the JSON API (bodies): each takes
 * the session and what was typed, and answers the session as it is after the step.
 */
import { isPortcullisError, type RouteRequest } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import type { Lang } from '../pages/strings.js'
import type { PortalRow, SessionRow } from '../tables.js'
import { byodRegister, byodSignIn, byodVerify, BYOD_CODE_TRIES, type ByodOutcome } from '../services/byod.js'
import { byodPushStart, byodPushWait, PAGE_WAIT_MS } from '../services/byod-push.js'
import { requestCode, verifyCode } from '../services/codes.js'
import type { PortalContext } from '../services/context.js'
import { guestDetails, email as checkEmail } from '../services/guest-input.js'
import { accountSignIn, hotspot } from '../services/methods.js'
import { askSponsor } from '../services/sponsor.js'

export const GUEST_ACTIONS = ['hotspot', 'register', 'verify-code', 'sponsor', 'login', 'account', 'byod-verify', 'byod-push', 'byod-push-wait'] as const
export type GuestAction = (typeof GUEST_ACTIONS)[number]

/** What a step typed: strings, and the self-registration's extra fields. */
export interface ActionInput {
  [k: string]: unknown
  fields?: Record<string, unknown>
}

export interface ActionOutcome {
  session: SessionRow
  byod?: ByodOutcome
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the step reads only ip, auditNow and rateLimit
type Req = RouteRequest<any, any, any>

/** Per IP: pages and API alike (a guest clicks a handful of times; a script far more). */
export const PAGE_LIMIT = { max: 60, windowSeconds: 60 } as const
export const FORM_LIMIT = { max: 20, windowSeconds: 60 } as const
/** Password and code checks: as the API's sign-in. */
export const SIGN_IN_LIMIT = { max: 10, windowSeconds: 60 } as const
/** Wrong codes and pushes sent a byod_mfa token takes: the last allowed one passes this budget, the next revokes the token. */
export const BYOD_WRONG_CODE = { by: 'key', name: 'byod_wrong_code', per: 'byod_mfa token', max: BYOD_CODE_TRIES - 1, windowSeconds: 600 } as const

export const limitOf = (a: GuestAction) => (a === 'login' || a === 'account' ? SIGN_IN_LIMIT : a === 'byod-verify' || a === 'byod-push' ? [SIGN_IN_LIMIT, BYOD_WRONG_CODE] : FORM_LIMIT)
export const auditOf = (a: GuestAction) => (a === 'login' ? 'portal.byod_login' : a === 'account' ? 'portal.account_login' : a === 'byod-verify' || a === 'byod-push-wait' ? 'portal.byod_mfa_verify' : undefined)

const str = (v: unknown) => (typeof v === 'string' ? v : '')

/** Charges one strike to a byod_mfa token's budget (kept by the kernel's rate limiter): true when it was spent already. */
const countFailure = (req: Req) => async (jti: string) => {
  try {
    await req.rateLimit(BYOD_WRONG_CODE.name, jti)
    return false
  } catch (e) {
    if (isPortcullisError(e) && e.status === 429) return true
    throw e
  }
}

export async function runAction(c: PortalContext, req: Req, a: GuestAction, portal: PortalRow, s: SessionRow, input: ActionInput, lang: Lang): Promise<ActionOutcome> {
  switch (a) {
    case 'hotspot':
      return { session: await hotspot(c, portal, s, input.accept_terms === true || input.accept_terms === 'yes' || input.accept_terms === 'on') }
    case 'register': {
      if (input.resend === 'yes' && s.guest_id) {
        // The code form's "send a new code": the details given before.
        const g = await c.knex('portal_guests').where({ id: s.guest_id }).first()
        return { session: await requestCode(c, portal, s, { name: g?.name ?? '', email: checkEmail(g?.email, 'email'), fields: g?.fields ?? {} }, lang) }
      }
      return { session: await requestCode(c, portal, s, guestDetails(portal, input), lang) }
    }
    case 'verify-code':
      return { session: await verifyCode(c, portal, s, str(input.code).trim()) }
    case 'sponsor': {
      const d = guestDetails(portal, input)
      return { session: await askSponsor(c, portal, s, { ...d, sponsorEmail: checkEmail(input.sponsor_email, 'sponsor_email') }, lang) }
    }
    case 'login':
    case 'account': {
      const username = str(input.username).slice(0, 200)
      try {
        if (a === 'account') {
          const session = await accountSignIn(c, portal, s, username, str(input.password))
          await req.auditNow({ action: 'portal.account_login', outcome: 'success', username })
          return { session }
        }
        const byod = await byodSignIn(c, portal, s, username, str(input.password))
        await req.auditNow({ action: 'portal.byod_login', outcome: 'success', username, after: { next: byod.status } })
        return { session: byod.status === 'registered' ? byod.session : s, byod }
      } catch (e) {
        if (isPortcullisError(e) && e.code === PortalErrors.credentialsInvalid.code) await req.auditNow({ action: auditOf(a)!, outcome: 'failure', reason: 'bad_password', username })
        throw e
      }
    }
    case 'byod-push':
      // One strike of the token's budget a push sent, charged before it is sent.
      return { session: s, byod: await byodPushStart(c, portal, s, str(input.byod_mfa_token), req.ip, countFailure(req)) }
    case 'byod-push-wait': {
      const number = /^[0-9]{2}$/.test(str(input.number)) ? str(input.number) : null
      let byod: ByodOutcome
      try {
        byod = await byodPushWait(c, portal, s, str(input.byod_mfa_token), str(input.push_challenge), number, PAGE_WAIT_MS, (userId, username) => byodRegister(c, portal, s, userId, username))
      } catch (e) {
        if (isPortcullisError(e) && (e.code === PortalErrors.byodPushDenied.code || e.code === PortalErrors.byodTokenInvalid.code)) {
          await req.auditNow({ action: 'portal.byod_mfa_verify', outcome: 'failure', reason: e.code === PortalErrors.byodPushDenied.code ? `mfa_push_${String(e.vars?.reason ?? 'denied')}` : 'token_invalid', userId: s.user_id })
        }
        throw e
      }
      if (byod.status === 'registered') await req.auditNow({ action: 'portal.byod_mfa_verify', outcome: 'success', userId: s.user_id, after: { factor: 'push' } })
      return { session: byod.status === 'registered' ? byod.session : s, byod }
    }
    case 'byod-verify': {
      let byod: ByodOutcome
      try {
        byod = await byodVerify(c, portal, s, str(input.byod_mfa_token), str(input.code).trim(), countFailure(req))
      } catch (e) {
        if (isPortcullisError(e) && (e.code === PortalErrors.byodCodeInvalid.code || e.code === PortalErrors.byodTokenInvalid.code)) {
          await req.auditNow({ action: 'portal.byod_mfa_verify', outcome: 'failure', reason: e.code === PortalErrors.byodCodeInvalid.code ? 'mfa_bad_code' : 'token_invalid', userId: s.user_id })
        }
        throw e
      }
      await req.auditNow({ action: 'portal.byod_mfa_verify', outcome: 'success', userId: s.user_id })
      return { session: byod.status === 'registered' ? byod.session : s, byod }
    }
  }
}
