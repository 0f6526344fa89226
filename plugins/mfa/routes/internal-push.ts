/**
 * A device login's push (docs/mfa.md "On the devices"): once the password is right and
 * POST /api/v1/mfa/internal/check opened a challenge, the daemon asks for a push to the user's
 * phone and waits for the answer here, so FreeRADIUS (rlm_rest) and the tac_plus-ng MAVIS backend
 * hold one HTTP call for the whole wait. The device challenge's budget is charged before anything
 * is sent: five pushes (or codes) per challenge, like an API sign-in's `mfa` token, and a closed
 * challenge sends nothing. Only an approval lets the login on; anything else is refused by the
 * daemon with the outcome as its reason.
 */
import { defineRoute, ErrorBody, PUBLIC, type RouteRequest as Req } from '../../../sdk/index.js'
import { MFA_CODE_BUDGET, MfaErrors } from '../errors.js'
import { InternalPushRequest, InternalPushResult, InternalPushStarted, InternalPushWaitRequest } from '../schemas/internal.js'
import { internalKeyMatches } from '../services/internal-key.js'
import type { PushOutcome, PushRefusal } from '../services/push/types.js'
import { mfaInternalKey } from '../settings.js'
import type { MfaRouteDeps } from './deps.js'

/** The longest one call waits, whatever the challenge's life says: the setting's own maximum. */
export const PUSH_WAIT_CAP_MS = 120_000

type RouteRequest = Req<unknown, unknown, unknown>

export type DevicePushOutcome = PushOutcome | PushRefusal | 'timeout' | 'challenge_closed'

const KEY_DOC = 'Called by the RADIUS and TACACS+ daemons during a device login; no bearer token. The same key as the other internal routes: header `X-Internal-Key` equal to setting `mfa.internal_key` (401 INTERNAL_KEY_INVALID), and 404 MFA_INTERNAL_DISABLED while that setting is null.'
const BUDGET_DOC = `The device challenge (from POST /api/v1/mfa/internal/check) is charged one of its ${MFA_CODE_BUDGET} attempts before the push is sent, as a code is: a challenge that is unknown, of another user, expired, answered or spent answers \`challenge_closed\` and sends nothing. The per-user push limit and the report lock of the push factor hold here too (\`rate_limited\`, \`locked\`).`

type Body = { username: string; challenge: string; origin: 'radius' | 'tacacs'; ip?: string; client?: string; number_matching?: boolean }
type Started = { sent: true; userId: string; username: string; pushChallenge: string; number: string | null; expiresAt: Date } | { sent: false; outcome: DevicePushOutcome }

export function internalPushRoutes(d: MfaRouteDeps) {
  async function keyed(req: RouteRequest): Promise<void> {
    const key = await d.settings.get(mfaInternalKey)
    if (key === null) throw MfaErrors.internalDisabled()
    if (!internalKeyMatches(key, req.headers['x-internal-key'])) throw MfaErrors.internalKeyInvalid()
  }

  const audit = (req: RouteRequest, u: { id: string; username: string }, outcome: DevicePushOutcome) =>
    req.auditNow({ action: 'auth.mfa_internal_push', userId: u.id, username: u.username, outcome: outcome === 'approved' ? 'success' : 'failure', reason: outcome === 'approved' ? null : `mfa_push_${outcome}` })

  /** The challenge charged, then the push sent (or the reason it was not). */
  async function start(req: RouteRequest, b: Body): Promise<Started> {
    const user = await d.identity.findUser({ username: b.username })
    // An unknown name has no challenge: nothing is counted or written for it.
    if (!user) return { sent: false, outcome: 'challenge_closed' }
    const charge = await d.challenges.charge(user.id, b.challenge)
    let outcome: DevicePushOutcome | null = charge.state === 'closed' ? 'challenge_closed' : !user.enabled ? 'cancelled' : null
    if (outcome === null) {
      const s = await d.push.challenges.start(user.id, { origin: b.origin, context: { ip: b.ip, client: b.client }, numberMatching: b.number_matching === true })
      if (s.sent) {
        await d.challenges.link(user.id, b.challenge, s.challengeId)
        return { sent: true, userId: user.id, username: user.username, pushChallenge: s.challengeId, number: s.number, expiresAt: s.expiresAt }
      }
      outcome = s.refusal
    }
    // The last attempt of the challenge gone: closed, as a fifth wrong code closes it.
    if (charge.state === 'open' && charge.attempt >= MFA_CODE_BUDGET) await d.challenges.burn(user.id, b.challenge)
    req.log.info({ user: user.id, outcome }, 'a device login\'s push was not sent')
    // A closed challenge can be named again and again: not written, as nothing was tried.
    if (outcome !== 'challenge_closed') await audit(req, user, outcome)
    return { sent: false, outcome }
  }

  /** Waits for the push's end (at most its life); an approval spends the device challenge. */
  async function settle(req: RouteRequest, u: { id: string; username: string }, challenge: string, pushChallenge: string, expiresAt: Date | null) {
    const budget = Math.min(PUSH_WAIT_CAP_MS, Math.max(0, (expiresAt?.getTime() ?? Date.now() + PUSH_WAIT_CAP_MS) - Date.now()))
    const ended = await d.push.challenges.wait(u.id, pushChallenge, budget)
    const outcome: DevicePushOutcome = ended ?? 'timeout'
    // Nobody answered in time: the phone stops showing it, and a late approval lets nobody in.
    if (ended === null) await d.push.challenges.cancel(u.id, pushChallenge)
    if (outcome === 'approved') await d.challenges.spend(u.id, challenge)
    else req.log.info({ user: u.id, outcome }, 'a device login\'s push was not approved')
    await audit(req, u, outcome)
    return { approved: outcome === 'approved', outcome }
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/push',
      permission: PUBLIC,
      auditAs: 'auth.mfa_internal_push',
      summary: 'Send a push to the user\'s phone and wait for the answer (daemons only)',
      description: [
        KEY_DOC,
        BUDGET_DOC,
        'Sends a push to every device of the user and answers when it ended, at most setting `mfa.push_timeout_seconds` later: `{ approved, outcome }`. Only `approved: true` lets the login on. A push nobody answered in time is withdrawn from the phone and answers `timeout`. Each push is audited as `auth.mfa_internal_push` (reasons `mfa_push_denied`, `mfa_push_timeout`, `mfa_push_unavailable`...).',
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalPushRequest, response: { 200: InternalPushResult, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await keyed(req)
        const s = await start(req, req.body)
        if (!s.sent) return { approved: false, outcome: s.outcome }
        return settle(req, { id: s.userId, username: s.username }, req.body.challenge, s.pushChallenge, s.expiresAt)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/push-start',
      permission: PUBLIC,
      auditAs: 'auth.mfa_internal_push',
      summary: 'Send a push to the user\'s phone without waiting (daemons only)',
      description: [
        KEY_DOC,
        BUDGET_DOC,
        'For a daemon that shows the user something before waiting (RADIUS challenge mode: the number to type on the phone). Answers at once `{ sent, push_challenge, number, outcome? }`; then wait for the answer with POST /api/v1/mfa/internal/push-wait and the same device challenge.',
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalPushRequest, response: { 200: InternalPushStarted, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await keyed(req)
        const s = await start(req, req.body)
        return s.sent ? { sent: true, push_challenge: s.pushChallenge, number: s.number } : { sent: false, push_challenge: null, number: null, outcome: s.outcome }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mfa/internal/push-wait',
      permission: PUBLIC,
      auditAs: 'auth.mfa_internal_push',
      summary: 'Wait for the answer to a push sent by push-start (daemons only)',
      description: [
        KEY_DOC,
        'Waits for the end of the push POST /api/v1/mfa/internal/push-start sent for this device challenge, at most setting `mfa.push_timeout_seconds` from when it was sent: `{ approved, outcome }` as POST /api/v1/mfa/internal/push answers. Only the push started for this device challenge is taken, while the challenge is open: any other, or a challenge closed (answered, expired, spent), answers `challenge_closed`. An approval closes the challenge.',
      ].join('\n\n'),
      tags: ['mfa'],
      schema: { body: InternalPushWaitRequest, response: { 200: InternalPushResult, 401: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await keyed(req)
        const { username, challenge, push_challenge } = req.body
        const user = await d.identity.findUser({ username })
        if (!user || !(await d.challenges.isOpen(user.id, challenge)) || !(await d.challenges.isLinked(user.id, challenge, push_challenge))) return { approved: false, outcome: 'challenge_closed' as const }
        if (!user.enabled) {
          await d.push.challenges.cancel(user.id, push_challenge)
          return { approved: false, outcome: 'cancelled' as const }
        }
        return settle(req, user, challenge, push_challenge, null)
      },
    }),
  ]
}
