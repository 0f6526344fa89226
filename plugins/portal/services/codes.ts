/**
 * Self-registration: name, e-mail and the portal's extra fields; a 6-digit code mailed to that
 * address proves it. A code is stored as a hash, lives 10 minutes and takes 5 wrong tries; an
 * address gets at most `portal.codes_per_email_per_hour` codes an hour (429 after), whichever
 * portal or device asks, so the portal cannot be used to flood someone's mailbox.
 */
import { randomInt, timingSafeEqual } from 'node:crypto'
import { PortcullisError } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import { pageText, type Lang } from '../pages/strings.js'
import { codesPerEmailPerHour } from '../settings.js'
import type { PortalRow, SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'
import { expectState, sha256hex } from './guest-session.js'
import type { GuestDetails } from './guest-input.js'
import { assertOffered } from './methods.js'
import { registerSession } from './register.js'

export const CODE_TRIES = 5
export const CODE_MINUTES = 10
const HOUR = 3_600_000

const codeHash = (sessionId: string, code: string) => sha256hex(`${sessionId}:${code}`)

/** The 429 of the contract ({detail, retry_after}, Retry-After), for a budget the plugin counts itself. */
export const tooMany = (retryAfter: number) =>
  new PortcullisError(429, 'RATE_LIMITED', 'core:errors.rate_limited', { vars: { retryAfter }, headers: { 'Retry-After': String(retryAfter) } })

/** Records the guest (pending_code) and mails a code; asking again sends a new one (the old one is void). */
export async function requestCode(c: PortalContext, portal: PortalRow, s: SessionRow, d: GuestDetails, lang: Lang): Promise<SessionRow> {
  assertOffered(portal, 'self_registration')
  expectState(s, 'started', 'pending_code')
  const limit = await c.settings.get(codesPerEmailPerHour)
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  const { row, codeId } = await c.knex.transaction(async (trx) => {
    // One request per address at a time: two at the same moment must not both pass the count below.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(lower(?)))', [d.email])
    const since = new Date(Date.now() - HOUR)
    const recent = await trx('portal_codes').whereRaw('lower(email) = lower(?)', [d.email]).where('created_at', '>', since).orderBy('created_at').select('created_at')
    if (recent.length >= limit) {
      const oldest = new Date(recent[recent.length - limit].created_at).getTime()
      throw tooMany(Math.max(1, Math.ceil((oldest + HOUR - Date.now()) / 1000)))
    }
    let guestId = s.guest_id
    if (guestId) await trx('portal_guests').where({ id: guestId }).update({ name: d.name, email: d.email, fields: d.fields, updated_at: new Date() })
    else [{ id: guestId }] = await trx('portal_guests').insert({ portal_id: portal.id, kind: 'self_registration', name: d.name, email: d.email, fields: d.fields, status: 'pending_code' }).returning('id')
    const [row] = await trx('portal_sessions').where({ id: s.id }).whereIn('state', ['started', 'pending_code']).update({ state: 'pending_code', method: 'self_registration', guest_id: guestId, updated_at: new Date() }).returning('*')
    if (!row) throw PortalErrors.guestStateConflict({ vars: { state: 'ended' } })
    await trx('portal_codes').where({ session_id: s.id }).whereNull('spent_at').update({ spent_at: new Date() })
    const [ins] = await trx('portal_codes').insert({ session_id: s.id, email: d.email, code_hash: codeHash(s.id, code), expires_at: new Date(Date.now() + CODE_MINUTES * 60_000) }).returning('id')
    return { row, codeId: ins.id }
  })
  const t = pageText(lang)
  // After the commit: the mail is slow I/O that must not hold a database connection.
  try {
    await c.mail.send({ to: d.email, subject: t.mailCodeSubject(portalTitle(portal, lang)), text: t.mailCodeBody(code, CODE_MINUTES) })
  } catch (e) {
    c.log.warn({ err: (e as Error)?.message }, 'captive portal: the registration code could not be mailed')
    // A code that never left is not counted against the address; the guest may ask again.
    await c.knex('portal_codes').where({ id: codeId }).delete()
    throw PortalErrors.mailFailed()
  }
  return row
}

export const portalTitle = (p: PortalRow, lang: Lang) => p.branding.texts?.[lang]?.title || p.name

/** Checks the code; right: the device is registered. 422 with the tries left, 410 when used up or expired. */
export async function verifyCode(c: PortalContext, portal: PortalRow, s: SessionRow, code: string): Promise<SessionRow> {
  assertOffered(portal, 'self_registration')
  expectState(s, 'pending_code')
  const row = await c.knex('portal_codes').where({ session_id: s.id }).whereNull('spent_at').orderBy('created_at', 'desc').first()
  if (!row || row.failures >= CODE_TRIES || new Date(row.expires_at).getTime() <= Date.now()) throw PortalErrors.codeExpired()
  const want = Buffer.from(row.code_hash)
  const got = Buffer.from(codeHash(s.id, /^[0-9]{6}$/.test(code) ? code : ''))
  if (!timingSafeEqual(want, got)) {
    // Counted in the database, one statement: concurrent guesses cannot share a try.
    const [after] = await c.knex('portal_codes').where({ id: row.id }).whereNull('spent_at').where('failures', '<', CODE_TRIES).increment('failures', 1).returning('failures')
    const left = after ? CODE_TRIES - after.failures : 0
    if (left <= 0) throw PortalErrors.codeExpired()
    throw PortalErrors.codeInvalid({ field: 'code', vars: { remaining: left } })
  }
  return c.knex.transaction(async (trx) => {
    const spent = await trx('portal_codes').where({ id: row.id }).whereNull('spent_at').update({ spent_at: new Date() })
    if (spent !== 1) throw PortalErrors.codeExpired()
    return registerSession(c, s.id, { trx })
  })
}
