/**
 * Password reset by emailed token. The request always answers 202 with the
 * same words, without waiting for the mail server, so it cannot be used to find
 * out which accounts exist. The token is random; only its SHA-256 is stored; it
 * works once, for 30 minutes, and using it spends the user's other tokens.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { defineError, defineRoute, PUBLIC, reply, type MailService, type SecretsService, type SettingsService } from '../../../sdk/index.js'
import type { Identity, UserRow } from '../service.js'
import { setPassword } from '../passwords-set.js'
import { publicUrl } from '../settings.js'
import { Accepted, PasswordResetConfirm, PasswordResetRequest } from '../schemas/auth.js'

const RESET_TTL_MS = 30 * 60 * 1000
const invalidResetToken = defineError(422, 'RESET_TOKEN_INVALID', 'core:auth.reset_token_invalid')
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

export const RESET_LIMIT = { max: 5, windowSeconds: 900 }

export function passwordResetRoutes(d: { knex: Knex; identity: Identity; secrets: SecretsService; settings: SettingsService; mail: MailService }) {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset',
      permission: PUBLIC,
      rateLimit: RESET_LIMIT,
      summary: 'Request a password reset link',
      description:
        'Emails a one-time token (valid 30 minutes) to a local account with an email address, inside a link when `identity.public_url` is set (never from the request\'s Host header). Always answers 202 with the same body, without waiting for the mail server.',
      tags: ['auth'],
      schema: { body: PasswordResetRequest, response: { 202: Accepted } },
      handler: async (req) => {
        const key = req.body.username_or_email.trim()
        const row = (await d.knex('users').whereRaw('lower(username) = lower(?) OR lower(email) = lower(?)', [key, key]).first()) as UserRow | undefined
        if (row && row.enabled && row.source === 'local' && row.email) {
          const token = randomBytes(32).toString('base64url')
          await d.knex('password_resets').insert({ token_hash: sha256(token), user_id: row.id, expires_at: new Date(Date.now() + RESET_TTL_MS) })
          // Never from the request's Host header: anyone may ask for anyone's reset, and a link to a
          // host they name would hand them the token (reset poisoning). Without identity.public_url
          // the mail carries the token alone.
          const base = await d.settings.get(publicUrl)
          const link = base ? `Set a new password within 30 minutes:\n${base.replace(/\/+$/, '')}/reset-password?token=${token}\n\n` : 'Set a new password within 30 minutes with this token:\n\n'
          // Not awaited: the answer must not wait for the SMTP server, or its timing would tell which accounts exist.
          void d.mail
            .send({
              to: row.email,
              subject: 'Portcullis password reset',
              text: `A password reset was requested for ${row.username}.\n\n${link}Token: ${token}\n\nIf you did not ask for this, ignore this message.\n`,
            })
            .catch((e: Error) => req.log.error({ err: e.message, user: row.id }, 'password reset mail not sent'))
        }
        return reply({ status: 202, body: { detail: req.t('core:auth.reset_sent') } })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/password-reset/confirm',
      permission: PUBLIC,
      rateLimit: RESET_LIMIT,
      summary: 'Set a new password with a reset token',
      tags: ['auth'],
      schema: { body: PasswordResetConfirm, response: { 204: null } },
      handler: async (req) => {
        return d.identity.actors.change(req.transaction, async (trx) => {
          // Lock the row so two confirmations of one token cannot both win.
          const reset = (await trx('password_resets').where({ token_hash: sha256(req.body.token) }).forUpdate().first()) as
            | { user_id: string; expires_at: Date; used_at: Date | null; token_hash: string }
            | undefined
          if (!reset || reset.used_at || new Date(reset.expires_at).getTime() < Date.now()) throw invalidResetToken({ field: 'token' })
          const row = (await trx('users').where({ id: reset.user_id }).first()) as UserRow
          if (!row.enabled || row.source !== 'local') throw invalidResetToken({ field: 'token' })
          await setPassword(trx, d.secrets, row, req.body.new_password, 'new_password')
          // This link and every other outstanding one of the user.
          await trx('password_resets').where({ user_id: row.id }).whereNull('used_at').update({ used_at: new Date() })
          await req.audit({ action: 'user.password_reset', resourceType: 'user', resourceId: row.id }, trx)
          return reply({ status: 204 })
        })
      },
    }),
  ]
}
