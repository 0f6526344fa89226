/** Sign-in, sign-out, the caller's own profile and password. */
import { AUTHENTICATED, defineError, defineRoute, PUBLIC, reply } from '../../../sdk/index.js'
import type { Knex } from 'knex'
import type { SecretsService } from '../../../sdk/index.js'
import type { Identity } from '../service.js'
import { setPassword } from '../passwords-set.js'
import { verifyPassword } from '../passwords.js'
import { endsConsoleSession, presentedToken, SESSION_COOKIE } from '../../security/session-cookie.js'
import { ChangePasswordRequest, LoginRequest, LoginResponse, MeResponse, SessionToken } from '../schemas/auth.js'

export const invalidCredentials = defineError(401, 'INVALID_CREDENTIALS', 'core:auth.invalid_credentials')
const wrongCurrentPassword = defineError(422, 'CURRENT_PASSWORD_WRONG', 'core:auth.current_password_wrong')
const passwordReused = defineError(422, 'PASSWORD_POLICY', 'core:password.same_as_current')

/** Login attempts per client IP per minute: enough for people, a wall for guessing. */
export const LOGIN_LIMIT = { max: 10, windowSeconds: 60 }
/**
 * Current-password checks: per address as for login, and per user, so that a
 * stolen session or password_change token cannot guess the password fast from
 * many addresses. Every attempt counts (a person retyping a refused new
 * password included): ten in a quarter hour is more than a person needs.
 */
export const CHANGE_PASSWORD_LIMITS = [
  { by: 'ip', max: 10, windowSeconds: 60 },
  { by: 'user', max: 10, windowSeconds: 900 },
] as const

export function authRoutes(d: { knex: Knex; identity: Identity; secrets: SecretsService; docsEnabled: boolean }) {
  const { identity } = d
  const logout = defineRoute({
    method: 'POST',
    path: '/auth/logout',
    permission: AUTHENTICATED,
    summary: 'Sign out',
    description: `Revokes the session token of the request (the bearer token, or the console's session cookie) on every node (audited as \`auth.logout\`). The answer clears the console's cookie (\`Set-Cookie: ${SESSION_COOKIE}=; Max-Age=0\`).`,
    tags: ['auth'],
    schema: { response: { 204: null } },
    handler: async ({ actor, headers, auditNow }) => {
      // The token the gate just accepted: its expiry bounds how long the revocation is kept.
      const token = presentedToken(headers)!
      const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number
      await identity.revokeToken(actor!.tokenId!, exp)
      await auditNow({ action: 'auth.logout', outcome: 'success', userId: actor!.id })
      return reply({ status: 204 })
    },
  })
  endsConsoleSession.add(logout)
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      permission: PUBLIC,
      rateLimit: LOGIN_LIMIT,
      auditAs: 'auth.login',
      summary: 'Sign in',
      description:
        'Answers a session token; or `mfa_required` with an `mfa_token` to spend at POST /api/v1/mfa/verify; or `password_change_required` with a token that opens only POST /api/v1/auth/change-password. A user with source `directory` is checked against the directory (settings `directory.*`, docs/directory.md), never a local hash. A wrong password, an unknown user, a disabled account, a directory user while no directory is set or while it cannot be reached: all answer the same 401 INVALID_CREDENTIALS. Every attempt is audited as `auth.login` with the client address and, for a refusal, the reason (never the password).',
      tags: ['auth'],
      schema: { body: LoginRequest, response: { 200: LoginResponse, 401: null } },
      handler: async ({ body, log, auditNow }) => {
        const r = await identity.attempt(body.username, body.password)
        if (!r.ok) {
          // A directory outage is the operator's to see: logged as a warning, with what the directory said.
          if (r.reason === 'directory_unavailable') log.warn({ username: body.username.slice(0, 64), reason: r.reason, detail: r.detail }, 'login failed: the directory could not be reached')
          else log.info({ username: body.username.slice(0, 64), reason: r.reason }, 'login failed')
          // Bounded by the login limit: an unknown name costs one row per attempt the limit lets through.
          await auditNow({ action: 'auth.login', outcome: 'failure', reason: r.reason, userId: r.row?.id ?? null, username: body.username })
          throw invalidCredentials()
        }
        const grant = await identity.afterPassword(r.row)
        await auditNow({ action: 'auth.login', outcome: 'success', userId: r.row.id, username: r.row.username, after: { next: 'status' in grant ? grant.status : 'session' } })
        return grant
      },
    }),
    logout,
    defineRoute({
      method: 'GET',
      path: '/auth/me',
      permission: AUTHENTICATED,
      summary: 'Who am I',
      tags: ['auth'],
      schema: { response: { 200: MeResponse } },
      handler: async ({ actor }) => {
        const row = (await identity.findRow({ id: actor!.id }))!
        return {
          id: row.id,
          username: row.username,
          display_name: row.display_name,
          email: row.email,
          is_admin: row.is_admin,
          permissions: [...actor!.permissions].sort(),
          groups: await identity.groupsOf(row.id),
          must_change_password: row.must_change_password,
          mfa_enabled: await identity.hasSecondFactor(row.id),
          docs_enabled: d.docsEnabled,
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/change-password',
      permission: AUTHENTICATED,
      acceptTokenPurposes: ['session', 'password_change'],
      rateLimit: CHANGE_PASSWORD_LIMITS,
      auditAs: 'auth.password_change',
      summary: 'Change my password',
      description:
        'Accepts a session token or the `password_change` token from login. The new password must meet the policy (docs/security.md). Every earlier token of the user becomes void; the answer is a new session token. A wrong current password is audited as `auth.password_change` (reason `bad_password`).',
      tags: ['auth'],
      schema: { body: ChangePasswordRequest, response: { 200: SessionToken } },
      handler: async (req) => {
        const row = (await identity.findRow({ id: req.actor!.id }))!
        if (row.source !== 'local' || !(await verifyPassword(row.password_hash, req.body.current_password))) {
          await req.auditNow({ action: 'auth.password_change', outcome: 'failure', reason: row.source !== 'local' ? 'no_local_password' : 'bad_password', userId: row.id })
          throw wrongCurrentPassword({ field: 'current_password' })
        }
        if (req.body.new_password === req.body.current_password) throw passwordReused({ field: 'new_password' })
        await identity.actors.change(req.transaction, async (trx) => {
          await setPassword(trx, d.secrets, row, req.body.new_password, 'new_password')
          await req.audit({ action: 'user.password_change', resourceType: 'user', resourceId: row.id }, trx)
        })
        // After the commit: the revocation happened only if the change did.
        await req.auditNow({ action: 'auth.sessions_revoked', outcome: 'success', reason: 'password_change', userId: row.id })
        return identity.session(row)
      },
    }),
  ]
}
