/**
 * Password reset by emailed token. The request always answers 202 with the
 * same words after the same work (validation, the rate limit, a place in a
 * bounded background queue): looking the account up, making the token and
 * sending the mail all happen after the answer, so neither its body nor its
 * timing tells which accounts exist. The token is random; only its SHA-256 is
 * stored; it works once, for 30 minutes, and using it spends the user's other
 * tokens. A new password, e-mail address, enabled flag, expiry or source, and a
 * sign-out everywhere, void the pending ones (reset-links.ts).
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { defineError, defineRoute, isPortcullisError, PUBLIC, reply, type Logger, type MailService, type SecretsService, type SettingsService } from '../../../sdk/index.js'
import { BackgroundQueue } from '../background.js'
import { isExpired, type Identity } from '../service.js'
import { setPassword } from '../passwords-set.js'
import { publicUrl } from '../settings.js'
import { Accepted, PasswordResetConfirm, PasswordResetRequest } from '../schemas/auth.js'

const RESET_TTL_MS = 30 * 60 * 1000
const invalidResetToken = defineError(422, 'RESET_TOKEN_INVALID', 'core:auth.reset_token_invalid')
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

export const RESET_LIMIT = { max: 5, windowSeconds: 900 }

type Deps = { knex: Knex; identity: Identity; secrets: SecretsService; settings: SettingsService; mail: MailService }

/** The work behind a reset request, after the answer: find the account, store a token, mail it. */
async function sendReset(d: Deps, key: string, log: Logger): Promise<void> {
  const row = await d.knex('users').whereRaw('lower(username) = lower(?) OR lower(email) = lower(?)', [key, key]).first()
  if (!row || !row.enabled || isExpired(row) || row.source !== 'local' || !row.email) return
  const token = randomBytes(32).toString('base64url')
  await d.knex('password_resets').insert({ token_hash: sha256(token), user_id: row.id, expires_at: new Date(Date.now() + RESET_TTL_MS) })
  // Never from the request's Host header: anyone may ask for anyone's reset, and a link to a
  // host they name would hand them the token (reset poisoning). Without identity.public_url
  // the mail carries the token alone. The token rides in the link's fragment, which a browser sends
  // to no server (no access log, no proxy, no Referer holds it); the console's page reads it there.
  const base = await d.settings.get(publicUrl)
  const link = base ? `Set a new password within 30 minutes:\n${base.replace(/\/+$/, '')}/reset-password#token=${token}\n\n` : 'Set a new password within 30 minutes with this token:\n\n'
  try {
    await d.mail.send({
      to: row.email,
      subject: 'Portcullis password reset',
      text: `A password reset was requested for ${row.username}.\n\n${link}Token: ${token}\n\nIf you did not ask for this, ignore this message.\n`,
    })
  } catch (e) {
    log.error({ err: (e as Error).message, user: row.id }, 'password reset mail not sent')
  }
}

export function passwordResetRoutes(d: Deps) {
  // Bounded: a flood of requests from many addresses waits here up to the capacity, then is dropped
  // (logged); four mails at a time at most; each starts within a second, at a random moment.
  // Per node; a request is served where it lands.
  const queue = new BackgroundQueue({ name: 'password-reset', capacity: 5000, concurrency: 4, jitterMs: 1000 })
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset',
      permission: PUBLIC,
      rateLimit: RESET_LIMIT,
      auditAs: 'auth.password_reset',
      summary: 'Request a password reset link',
      description:
        'Emails a one-time token (valid 30 minutes) to a local account with an email address, inside a link when `identity.public_url` is set (never from the request\'s Host header). Always answers 202 with the same body after the same work, whether or not the account exists: the lookup and the mail happen after the answer.',
      tags: ['auth'],
      schema: { body: PasswordResetRequest, response: { 202: Accepted } },
      handler: async (req) => {
        const key = req.body.username_or_email.trim()
        queue.push(() => sendReset(d, key, req.log), req.log)
        return reply({ status: 202, body: { detail: req.t('core:auth.reset_sent') } })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset/confirm',
      permission: PUBLIC,
      rateLimit: RESET_LIMIT,
      auditAs: 'auth.password_reset_confirm',
      summary: 'Set a new password with a reset token',
      description: 'A refused token is audited as `auth.password_reset_confirm` (reason `reset_token_invalid`); a reset voids every earlier token of the user (`auth.sessions_revoked`).',
      tags: ['auth'],
      schema: { body: PasswordResetConfirm, response: { 204: null } },
      handler: async (req) => {
        let userId: string | null = null
        try {
          await d.identity.actors.change(req.transaction, (trx) => confirm(trx, (id) => (userId = id)))
        } catch (e) {
          // Outside the transaction, which has rolled back; bounded by the route's limit.
          if (isPortcullisError(e) && e.code === 'RESET_TOKEN_INVALID') await req.auditNow({ action: 'auth.password_reset_confirm', outcome: 'failure', reason: 'reset_token_invalid', userId })
          throw e
        }
        await req.auditNow({ action: 'auth.sessions_revoked', outcome: 'success', reason: 'password_reset', userId })
        return reply({ status: 204 })

        async function confirm(trx: Knex.Transaction, found: (userId: string) => void) {
          // Lock the row so two confirmations of one token cannot both win.
          const reset = await trx('password_resets').where({ token_hash: sha256(req.body.token) }).forUpdate().first()
          if (reset) found(reset.user_id)
          if (!reset || reset.used_at || new Date(reset.expires_at).getTime() < Date.now()) throw invalidResetToken({ field: 'token' })
          const row = (await trx('users').where({ id: reset.user_id }).first())!
          // Made before the user's sessions were last voided (a disable, a new password, a sign-out everywhere):
          // void too, whichever path voided them (reset-links.ts names those that void the links themselves).
          const madeAt = new Date(reset.expires_at).getTime() - RESET_TTL_MS
          if (!row.enabled || isExpired(row) || row.source !== 'local' || madeAt < new Date(row.sessions_valid_after).getTime()) throw invalidResetToken({ field: 'token' })
          await setPassword(trx, d.secrets, row, req.body.new_password, 'new_password')
          // This link and every other outstanding one of the user.
          await trx('password_resets').where({ user_id: row.id }).whereNull('used_at').update({ used_at: new Date() })
          await req.audit({ action: 'user.password_reset', resourceType: 'user', resourceId: row.id }, trx)
        }
      },
    }),
  ]
}
