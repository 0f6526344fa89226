/**
 * A guest session: a device passing through a portal, from the NAS's redirect to its registration.
 * The guest holds a random token (cookie `portcullis_guest` on the pages, `X-Guest-Token` in the
 * JSON API); only its sha256 is stored, so a database read gives nobody a live session. A token
 * works only on its own portal and only while the session has not ended.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { PortalErrors } from '../errors.js'
import type { PortalRow, SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'

export const GUEST_COOKIE = 'portcullis_guest'
/** States after which a session token opens nothing. */
const ENDED = new Set(['ended', 'expired'])

export const sha256hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')
export const newSecret = () => randomBytes(32).toString('base64url')

/** An enabled portal by its path segment; 404 PORTAL_NOT_FOUND otherwise. */
export async function portalBySlug(c: PortalContext, slug: string): Promise<PortalRow> {
  const p = slug.length <= 100 ? await c.knex('portal_portals').where({ slug, enabled: true }).first() : undefined
  if (!p) throw PortalErrors.portalNotFound()
  return p
}

export interface StartRequest {
  portal: PortalRow
  redirect: Record<string, string | undefined>
  clientIp: string
  language: string | null
}

/**
 * Checks the redirect's parameters (the NAC recomputes their signature) and opens a session for
 * the MAC they name. An unsigned redirect is taken only where the portal accepts one (Aruba).
 */
export async function startSession(c: PortalContext, r: StartRequest): Promise<{ session: SessionRow; token: string }> {
  const v = await c.nac.verifyPortalRedirect(r.redirect)
  if (!v || (!v.signed && !r.portal.accept_unsigned_redirect)) throw PortalErrors.redirectInvalid()
  const token = newSecret()
  const [session] = await c.knex('portal_sessions')
    .insert({
      portal_id: r.portal.id,
      mac: v.mac,
      nas_ip: v.nas_ip,
      ssid: v.ssid,
      redirect_signed: v.signed,
      client_ip: r.clientIp,
      language: r.language,
      token_hash: sha256hex(token),
      state: 'started',
    })
    .returning('*')
  return { session, token }
}

/** The live session of this token on this portal; 401 GUEST_TOKEN_INVALID for anything else. */
export async function sessionOfToken(c: PortalContext, token: string | undefined, portalId?: string): Promise<SessionRow> {
  if (!token || token.length > 100) throw PortalErrors.guestTokenInvalid()
  const s = await c.knex('portal_sessions').where({ token_hash: sha256hex(token) }).first()
  if (!s || ENDED.has(s.state) || (portalId !== undefined && s.portal_id !== portalId)) throw PortalErrors.guestTokenInvalid()
  return s
}

/** The cookie's value from a Cookie header. */
export function cookieToken(header: string | undefined): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === GUEST_COOKIE) return v.join('=')
  }
  return undefined
}

/** Set-Cookie for a new session: HttpOnly (no script reads it), Lax (a foreign site's POST does not carry it). */
export const sessionCookie = (token: string, secure: boolean) => `${GUEST_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`

/**
 * The CSRF token of a session's forms: an HMAC of a fixed label keyed with the session token, so it
 * needs no storage, is different for every session, and a page of another origin cannot know it.
 */
export const csrfToken = (sessionToken: string) => createHmac('sha256', sessionToken).update('portal-form').digest('base64url')

export function csrfValid(sessionToken: string, sent: string | undefined): boolean {
  if (!sent) return false
  const want = Buffer.from(csrfToken(sessionToken))
  const got = Buffer.from(sent)
  return want.length === got.length && timingSafeEqual(want, got)
}

/** Moves a session on, only from the states given (a concurrent step loses: 409). */
export async function moveSession(c: PortalContext, id: string, from: readonly SessionRow['state'][], patch: Partial<SessionRow>, db = c.knex): Promise<SessionRow> {
  const [row] = await db('portal_sessions').where({ id }).whereIn('state', from).update({ ...patch, updated_at: new Date() }).returning('*')
  if (!row) {
    const now = await db('portal_sessions').where({ id }).first('state')
    throw PortalErrors.guestStateConflict({ vars: { state: now?.state ?? 'ended' } })
  }
  return row
}

/** The step a session in this state may take: 409 GUEST_STATE_CONFLICT otherwise. */
export function expectState(s: SessionRow, ...states: SessionRow['state'][]): void {
  if (!states.includes(s.state)) throw PortalErrors.guestStateConflict({ vars: { state: s.state } })
}
