/**
 * POST /captive-portal/guests/bulk: accounts for an event. The passwords are
 * in this answer only (JSON, CSV or a printable page, as `Accept` asks); the
 * platform keeps their argon2id hashes.
 */
import { randomBytes } from 'node:crypto'
import { defineRoute, ErrorBody, reply, uniqueViolation } from '../../../sdk/index.js'
import { PortalErrors as E } from '../errors.js'
import { PORTAL_GUESTS } from '../permissions.js'
import { GuestBulkCreate, GuestBulkResponse } from '../schemas/guests.js'
import type { PortalContext } from '../services/context.js'
import { credentialsCsv, credentialsHtml } from '../services/credentials.js'
import { generatePassword, GUESTS, hashGuestPassword, loadGuest } from '../services/guests.js'

const DAY = 86_400_000

/** The highest `n` of `<prefix>-<n>` taken (case-insensitively, as the unique index compares). */
async function highestNumber(db: PortalContext['knex'], prefix: string): Promise<number> {
  const rows = await db(GUESTS).whereRaw('lower(username) LIKE ?', [`${prefix.replace(/[\\%_]/g, (ch) => '\\' + ch)}-%`]).pluck('username')
  const re = new RegExp(`^${prefix.replace(/-/g, '\\-')}-(\\d{1,9})$`, 'i')
  return rows.reduce((max: number, u: string | null) => Math.max(max, Number(re.exec(u ?? '')?.[1] ?? 0)), 0)
}

/** What the caller asked for: the answer's media type. */
function wants(accept: string | undefined): 'csv' | 'html' | 'json' {
  const a = (accept ?? '').toLowerCase()
  if (a.includes('text/csv')) return 'csv'
  if (a.includes('text/html')) return 'html'
  return 'json'
}

export function guestBulkRoutes(c: PortalContext) {
  return [
    defineRoute({
      method: 'POST',
      path: '/captive-portal/guests/bulk',
      permission: PORTAL_GUESTS,
      summary: 'Create guest accounts for an event',
      description:
        '`count` accounts (`kind` account, `status` active) on the portal, usernames `<prefix>-<n>` counting on from the highest taken, passwords of 12 random characters (no look-alikes such as 0/O, 1/l). The passwords are in this answer only: JSON by default, `Accept: text/csv` a CSV file (username, password, event, validity, portal), `Accept: text/html` a page of cards to print. Unknown portal: 422 REFERENCE_NOT_FOUND at `portal_id`. `valid_until` not later than now and `valid_from`, or more than 366 days after it: 422 at `valid_until`. Each account is audited (never its password).',
      tags: ['captive-portal'],
      schema: { body: GuestBulkCreate, response: { 201: GuestBulkResponse, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const now = new Date()
        const from = b.valid_from ? new Date(b.valid_from) : now
        const until = new Date(b.valid_until)
        if (until <= now || until <= from || until.getTime() - from.getTime() > 366 * DAY) throw E.validityInvalid({ field: 'valid_until' })
        const portal = await c.knex('portal_portals').where({ id: b.portal_id }).first('slug')
        if (!portal) throw E.referenceNotFound({ field: 'portal_id', vars: { id: b.portal_id } })
        // The slow part (argon2id, on the thread pool) before the transaction, which then holds its locks briefly.
        const passwords = Array.from({ length: b.count }, () => generatePassword())
        const hashes = await Promise.all(passwords.map(hashGuestPassword))
        const out = await req.transaction(async (trx) => {
          if (!(await trx('portal_portals').where({ id: b.portal_id }).forKeyShare().first('id'))) throw E.referenceNotFound({ field: 'portal_id', vars: { id: b.portal_id } })
          // One numbering at a time: two events with the same prefix would pick the same numbers.
          await trx.raw("SELECT pg_advisory_xact_lock(hashtext('portal_guest_usernames'))")
          const first = (await highestNumber(trx as unknown as PortalContext['knex'], b.prefix)) + 1
          const rows = passwords.map((_, i) => ({
            portal_id: b.portal_id,
            kind: 'account' as const,
            username: `${b.prefix}-${first + i}`,
            password_hash: hashes[i],
            event: b.event,
            status: 'active' as const,
            valid_from: from,
            valid_until: until,
            created_by: req.actor?.id ?? null,
          }))
          const ids = await trx
            .transaction((sp) => sp(GUESTS).insert(rows).returning(['id', 'username']))
            .catch((e: unknown) => {
              throw uniqueViolation(e) === 'portal_guests_username' ? E.usernameTaken({ field: 'prefix', vars: { username: `${b.prefix}-${first}` } }) : e
            })
          const byUsername = new Map(rows.map((r, i) => [r.username, passwords[i]]))
          for (const { id } of ids) await req.audit({ action: 'portal_guest.create', resourceType: 'portal_guest', resourceId: id, after: await loadGuest(trx, id) }, trx)
          return {
            portal_id: b.portal_id,
            event: b.event,
            valid_from: from.toISOString(),
            valid_until: until.toISOString(),
            accounts: ids.map(({ id, username }) => ({ id, username: username!, password: byUsername.get(username!)! })),
          }
        })
        const headers = { 'Cache-Control': 'no-store' }
        const path = `/portal/${portal.slug}`
        const kind = wants(req.headers.accept)
        if (kind === 'csv') return reply({ status: 201, body: credentialsCsv(out, path), contentType: 'text/csv; charset=utf-8', headers: { ...headers, 'Content-Disposition': 'attachment; filename="guest-accounts.csv"' } })
        if (kind === 'html') {
          const nonce = randomBytes(16).toString('base64')
          const csp = `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`
          return reply({ status: 201, body: credentialsHtml(out, path, req.lang, nonce), contentType: 'text/html; charset=utf-8', headers: { ...headers, 'Content-Security-Policy': csp } })
        }
        return reply({ status: 201, body: out, headers })
      },
    }),
  ]
}
