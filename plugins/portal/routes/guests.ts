/** /captive-portal/guests: who registered or was given an account; extend, revoke, mail new credentials. */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, ErrorBody, isPortcullisError, orNotFound, paginate, Type } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_GUESTS, PORTAL_READ } from '../permissions.js'
import { GuestExtend, GuestListQuery, GuestListResponse, GuestParams, GuestResponse } from '../schemas/guests.js'
import type { PortalContext } from '../services/context.js'
import { afterEnd, endSession, type EndedSession } from '../services/end-session.js'
import { generatePassword, GUESTS, hashGuestPassword, loadGuest, selectGuests, toGuest } from '../services/guests.js'
import { SESSIONS } from '../services/sessions.js'

const DAY = 86_400_000
const SendCredentials = Type.Object(
  { email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Send to this address (and keep it as the guest\'s); default: the guest\'s e-mail.' })) },
  { title: 'GuestSendCredentials', additionalProperties: false },
)

const MAIL = {
  en: { subject: 'Your guest network account', body: (u: string, p: string, until: string, path: string) => `Username: ${u}\nPassword: ${p}\nValid until: ${until}\n\nOpen any web page on the guest network to reach the sign-in page (${path}).\n` },
  ru: { subject: 'Ваша гостевая учётная запись', body: (u: string, p: string, until: string, path: string) => `Имя пользователя: ${u}\nПароль: ${p}\nДействует до: ${until}\n\nОткройте любую веб-страницу в гостевой сети, чтобы попасть на страницу входа (${path}).\n` },
} as const

export function guestAdminRoutes(c: PortalContext) {
  const { knex } = c
  return [
    defineRoute({
      method: 'GET',
      path: '/captive-portal/guests',
      permission: PORTAL_READ,
      summary: 'List guests',
      description: '`status`, `kind`, `portal_id` and `event` filter; `search` matches name, e-mail, username, event and sponsor e-mail. Newest first by default.',
      tags: ['captive-portal'],
      schema: { query: GuestListQuery, response: { 200: GuestListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectGuests(knex),
          equals: { status: 'g.status', kind: 'g.kind', portal_id: 'g.portal_id', event: 'g.event' },
          searchColumns: ['g.name', 'g.email', 'g.username', 'g.event', 'g.sponsor_email'],
          sortColumns: { created_at: 'g.created_at', name: 'g.name', email: 'g.email', username: 'g.username', valid_until: 'g.valid_until', status: 'g.status' },
          defaultSort: 'created_at',
          defaultPerPage: 20,
          tieBreaker: 'g.id',
          map: toGuest,
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/captive-portal/guests/{guest_id}',
      permission: PORTAL_READ,
      summary: 'Get a guest',
      tags: ['captive-portal'],
      schema: { params: GuestParams, response: { 200: GuestResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadGuest(knex, params.guest_id), 'guest_id'),
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/guests/{guest_id}/extend',
      permission: PORTAL_GUESTS,
      summary: 'Extend a guest\'s validity',
      description:
        'For an `active` or `expired` guest (an expired one is active again and may sign in or register anew; its ended sessions stay ended). Its active sessions then last until the new `valid_until` too. `valid_until` not later than now and `valid_from`, or more than 366 days ahead: 422 at `valid_until`. Another status: 409 GUEST_STATUS_CONFLICT. Audited.',
      tags: ['captive-portal'],
      schema: { params: GuestParams, body: GuestExtend, response: { 200: GuestResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const id = req.params.guest_id
        const until = new Date(req.body.valid_until)
        const now = new Date()
        return req.transaction(async (trx) => {
          const row = await trx(GUESTS).where({ id }).forUpdate().first('status', 'valid_from')
          if (!row) throw CommonErrors.notFound({ field: 'guest_id' })
          if (row.status !== 'active' && row.status !== 'expired') throw E.guestStatusConflict({ field: 'guest_id', vars: { status: row.status } })
          if (until <= now || (row.valid_from && until <= row.valid_from) || until.getTime() - now.getTime() > 366 * DAY) throw E.validityInvalid({ field: 'valid_until' })
          const before = (await loadGuest(trx, id))!
          await trx(GUESTS).where({ id }).update({ valid_until: until, status: 'active', ended_at: null, updated_at: now })
          await trx(SESSIONS).where({ guest_id: id, state: 'active' }).whereNotNull('expires_at').update({ expires_at: until, updated_at: now })
          const after = (await loadGuest(trx, id))!
          await req.audit({ action: 'portal_guest.extend', resourceType: 'portal_guest', resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/guests/{guest_id}/revoke',
      permission: PORTAL_GUESTS,
      summary: 'Revoke a guest (disconnects its devices)',
      description:
        'Status `revoked`. Every session of the guest ends (reason `revoked`): an active one\'s device leaves its endpoint group, FreeRADIUS gets the change by a deploy, then a Disconnect-Request goes to the NAS (as ending a session does). Pending sponsor requests lapse (`expired`). Revoked or denied already: 409 GUEST_STATUS_CONFLICT. Nothing brings the access back but a new registration. Audited.',
      tags: ['captive-portal'],
      schema: { params: GuestParams, response: { 200: GuestResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.guest_id
        const now = new Date()
        const { after, ended } = await req.transaction(async (trx) => {
          const row = await trx(GUESTS).where({ id }).forUpdate().first('status')
          if (!row) throw CommonErrors.notFound({ field: 'guest_id' })
          if (row.status === 'revoked' || row.status === 'denied') throw E.guestStatusConflict({ field: 'guest_id', vars: { status: row.status } })
          const before = (await loadGuest(trx, id))!
          const sessions = await trx(SESSIONS).where({ guest_id: id }).whereNotIn('state', ['ended', 'expired', 'denied']).forUpdate().select('id', 'mac', 'state', 'endpoint_id', 'endpoint_group_id')
          const ended: EndedSession[] = []
          for (const s of sessions) ended.push(await endSession(c, trx, s, { state: 'ended', reason: 'revoked', at: now }))
          await trx('portal_sponsor_requests').where({ guest_id: id, status: 'pending' }).update({ status: 'expired' })
          await trx(GUESTS).where({ id }).update({ status: 'revoked', ended_at: now, updated_at: now })
          const after = (await loadGuest(trx, id))!
          await req.audit({ action: 'portal_guest.revoke', resourceType: 'portal_guest', resourceId: id, before, after: { ...after, ended_sessions: ended.map((e) => e.id) } }, trx)
          return { after, ended }
        })
        afterEnd(c, ended, { disconnect: true, actor: req.actor, comment: `captive portal: guest ${id} revoked` })
        return after
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/captive-portal/guests/{guest_id}/send-credentials',
      permission: PORTAL_GUESTS,
      summary: 'Mail an event account a new password',
      description:
        'A new password is generated (the old one stops working) and mailed, with the username and validity, through the platform\'s mail settings, to `email` (kept as the guest\'s) or the guest\'s e-mail. Only for `account` guests (409 GUEST_NOT_ACCOUNT) that are `active` (409 GUEST_STATUS_CONFLICT); no address: 422 GUEST_NO_EMAIL. The mail could not be sent: 503 PORTAL_MAIL_FAILED (503 MAIL_NOT_CONFIGURED without the mail settings), and nothing changed. The password is never in the answer or the audit.',
      tags: ['captive-portal'],
      schema: { params: GuestParams, body: SendCredentials, response: { 200: GuestResponse, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 503: ErrorBody } },
      handler: async (req) => {
        const id = req.params.guest_id
        const password = generatePassword()
        const hash = await hashGuestPassword(password)
        /** The guest, refused unless it may get credentials; with `trx` locked for the change. */
        const check = async (db: PortalContext['knex'] | Knex.Transaction) => {
          const q = db(GUESTS).where({ id })
          const row = await (db.isTransaction ? q.forUpdate() : q).first('kind', 'status', 'email', 'username', 'valid_until', 'portal_id')
          if (!row) throw CommonErrors.notFound({ field: 'guest_id' })
          if (row.kind !== 'account' || !row.username) throw E.guestNotAccount({ field: 'guest_id' })
          if (row.status !== 'active') throw E.guestStatusConflict({ field: 'guest_id', vars: { status: row.status } })
          const to = req.body.email ?? row.email
          if (!to) throw E.guestNoEmail({ field: 'email' })
          return { ...row, username: row.username, to }
        }
        const g = await check(knex)
        const { slug } = (await knex('portal_portals').where({ id: g.portal_id }).first('slug'))!
        const m = req.lang === 'ru' ? MAIL.ru : MAIL.en
        // The mail first, the new password after: a mail that cannot go changes nothing (the old password still
        // works). The mail service reads its settings outside any transaction, so it cannot run inside one.
        await c.mail.send({ to: g.to, subject: m.subject, text: m.body(g.username, password, g.valid_until?.toISOString() ?? '-', `/portal/${slug}`) }).catch((e: unknown) => {
          req.log.warn({ err: (e as Error).message }, 'portal: the credentials mail could not be sent')
          throw isPortcullisError(e) && e.code === 'MAIL_NOT_CONFIGURED' ? e : E.mailFailed()
        })
        return req.transaction(async (trx) => {
          // Checked again under the lock: revoked meanwhile, the mailed password is never stored.
          const { to } = await check(trx)
          const before = (await loadGuest(trx, id))!
          await trx(GUESTS).where({ id }).update({ password_hash: hash, email: to, updated_at: new Date() })
          const after = (await loadGuest(trx, id))!
          await req.audit({ action: 'portal_guest.send_credentials', resourceType: 'portal_guest', resourceId: id, before, after: { ...after, mailed_to: to } }, trx)
          return after
        })
      },
    }),
  ]
}
