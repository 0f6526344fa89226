/**
 * Sponsored guests: the guest names an employee; the address must be in one of the portal's
 * sponsor domains, or belong to a member of its sponsor group. The sponsor gets a mail with a
 * single-use link to the sponsor callback (the token only its hash is stored), sees who asks and
 * approves or denies; the guest's page waits. Administrators holding portal.sponsor decide the same
 * requests in the console (part B calls decideSponsorRequest).
 */
import type { Knex } from 'knex'
import { identitySettingRefs, type Actor } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import { pageText, type Lang } from '../pages/strings.js'
import type { PortalRow, SessionRow, SponsorRequestRow } from '../tables.js'
import { portalTitle } from './codes.js'
import type { PortalContext } from './context.js'
import { expectState, newSecret, sha256hex } from './guest-session.js'
import type { GuestDetails } from './guest-input.js'
import { assertOffered } from './methods.js'
import { registerSession } from './register.js'

export const CALLBACK_PATH = '/api/v1/captive-portal/sponsor/callback'

/** The sponsor as a platform user (for the decision's record), and whether the address may sponsor here. */
async function sponsorOf(c: PortalContext, portal: PortalRow, email: string): Promise<{ allowed: boolean; userId: string | null }> {
  const user = await c.identity.findUserByEmail(email)
  const usable = user && user.enabled && (user.expires_at == null || new Date(user.expires_at).getTime() > Date.now()) ? user : null
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
  if (portal.sponsor_domains.some((d) => d.toLowerCase() === domain)) return { allowed: true, userId: usable?.id ?? null }
  if (usable && portal.sponsor_group_id && (await c.identity.groupIdsOf(usable.id)).includes(portal.sponsor_group_id)) return { allowed: true, userId: usable.id }
  return { allowed: false, userId: null }
}

/** Text the guest typed, as a mail line: no control characters (they were refused already), kept short. */
const line = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 200)

/** Records the request (guest and session pending_approval) and mails the sponsor. 422 SPONSOR_NOT_ALLOWED at `sponsor_email`. */
export async function askSponsor(c: PortalContext, portal: PortalRow, s: SessionRow, d: GuestDetails & { sponsorEmail: string }, lang: Lang): Promise<SessionRow> {
  assertOffered(portal, 'sponsored')
  expectState(s, 'started')
  const sponsor = await sponsorOf(c, portal, d.sponsorEmail)
  if (!sponsor.allowed) throw PortalErrors.sponsorNotAllowed({ field: 'sponsor_email' })
  const token = newSecret()
  const base = await c.settings.get(identitySettingRefs.publicUrl)
  const { row, guestId } = await c.knex.transaction(async (trx) => {
    const [g] = await trx('portal_guests')
      .insert({ portal_id: portal.id, kind: 'sponsored', name: d.name, email: d.email, fields: d.fields, sponsor_email: d.sponsorEmail, sponsor_user_id: sponsor.userId, status: 'pending_approval' })
      .returning('id')
    const [row] = await trx('portal_sessions').where({ id: s.id, state: 'started' }).update({ state: 'pending_approval', method: 'sponsored', guest_id: g.id, updated_at: new Date() }).returning('*')
    if (!row) throw PortalErrors.guestStateConflict({ vars: { state: 'ended' } })
    await trx('portal_sponsor_requests').insert({
      session_id: s.id,
      guest_id: g.id,
      sponsor_email: d.sponsorEmail,
      sponsor_user_id: sponsor.userId,
      token_hash: sha256hex(token),
      expires_at: new Date(Date.now() + portal.sponsor_link_minutes * 60_000),
    })
    return { row, guestId: g.id as string }
  })
  const t = pageText(lang)
  // Without identity.public_url the request's Host never chooses where a mailed link points: the mail carries the path and the token.
  const link = base ? `${base.replace(/\/+$/, '')}${CALLBACK_PATH}?token=${token}` : null
  // After the commit: the mail is slow I/O that must not hold a database connection.
  try {
    await c.mail.send({
      to: d.sponsorEmail,
      subject: t.mailSponsorSubject(line(portalTitle(portal, lang))),
      text: t.mailSponsorBody({ name: line(d.name), email: line(d.email), fields: Object.entries(d.fields).map(([k, v]) => `${k}: ${line(v)}`), link, path: CALLBACK_PATH, token, minutes: portal.sponsor_link_minutes }),
    })
  } catch (e) {
    c.log.warn({ err: (e as Error)?.message }, 'captive portal: the sponsor mail could not be sent')
    // Nobody can decide a request nobody was told of: undone, the guest may ask again.
    await c.knex.transaction(async (trx) => {
      await trx('portal_sessions').where({ id: s.id, state: 'pending_approval' }).update({ state: 'started', method: null, guest_id: null, updated_at: new Date() })
      await trx('portal_guests').where({ id: guestId }).delete()
    })
    throw PortalErrors.mailFailed()
  }
  return row
}

/** A pending request by its link's token: 404 unknown, 410 decided (single use) or expired. */
export async function requestOfToken(c: PortalContext, token: string): Promise<SponsorRequestRow> {
  const r = token && token.length <= 100 ? await c.knex('portal_sponsor_requests').where({ token_hash: sha256hex(token) }).first() : undefined
  if (!r) throw PortalErrors.sponsorLinkNotFound()
  if (r.status === 'approved' || r.status === 'denied') throw PortalErrors.sponsorLinkSpent()
  if (r.status === 'expired' || new Date(r.expires_at).getTime() <= Date.now()) throw PortalErrors.sponsorLinkExpired()
  return r
}

export interface DecideOptions {
  via: 'link' | 'api'
  actor?: Actor | null
  requestId?: string
  trx?: Knex.Transaction
}

/**
 * Approves (the device is registered) or denies (guest and session denied) a pending request, once:
 * the row moves from pending in one statement, so a second decision, however close, gets 409
 * SPONSOR_REQUEST_DECIDED (the link answers 410 before it gets here). Expired: 410.
 */
export async function decideSponsorRequest(c: PortalContext, requestId: string, decision: 'approve' | 'deny', o: DecideOptions): Promise<SponsorRequestRow> {
  const run = async (trx: Knex.Transaction) => {
    const now = new Date()
    const status = decision === 'approve' ? 'approved' : 'denied'
    const [r] = await trx('portal_sponsor_requests')
      .where({ id: requestId, status: 'pending' })
      .where('expires_at', '>', now)
      .update({ status, decided_via: o.via, decided_by: o.actor?.id ?? null, decided_at: now })
      .returning('*')
    if (!r) {
      const was = await trx('portal_sponsor_requests').where({ id: requestId }).first()
      if (!was) throw PortalErrors.sponsorLinkNotFound()
      if (was.status === 'pending') throw PortalErrors.sponsorLinkExpired()
      throw PortalErrors.requestDecided({ vars: { status: was.status } })
    }
    await c.audit.record(
      { action: `portal_sponsor_request.${decision}`, resourceType: 'portal_sponsor_request', resourceId: r.id, after: { guest_id: r.guest_id, session_id: r.session_id, sponsor_email: r.sponsor_email, via: o.via } },
      { actor: o.actor ?? null, requestId: o.requestId, trx },
    )
    if (decision === 'approve') await registerSession(c, r.session_id, { trx, actor: o.actor, requestId: o.requestId })
    else {
      await trx('portal_guests').where({ id: r.guest_id }).update({ status: 'denied', ended_at: now, updated_at: now })
      await trx('portal_sessions').where({ id: r.session_id, state: 'pending_approval' }).update({ state: 'denied', ended_at: now, updated_at: now })
    }
    return r
  }
  return o.trx ? run(o.trx) : c.knex.transaction(run)
}

/** Who asks, for the sponsor's page. */
export async function requestDetails(c: PortalContext, r: SponsorRequestRow) {
  const g = await c.knex('portal_guests').where({ id: r.guest_id }).first()
  const s = await c.knex('portal_sessions').where({ id: r.session_id }).first()
  const p = s ? await c.knex('portal_portals').where({ id: s.portal_id }).first() : undefined
  return { name: g?.name ?? '', email: g?.email ?? '', fields: g?.fields ?? {}, mac: s?.mac ?? '', portal: p?.name ?? '' }
}
