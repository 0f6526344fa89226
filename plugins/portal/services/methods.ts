/**
 * The two ways in that need nothing but the guest themselves: hotspot (accept the terms) and an
 * event's guest account (username and password an administrator handed out). Each makes the
 * session's guest and registers the device at once.
 */
import argon2 from 'argon2'
import { CommonErrors } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import type { PortalMethod, PortalRow, SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'
import { expectState } from './guest-session.js'
import { registerSession } from './register.js'

export function assertOffered(portal: PortalRow, method: PortalMethod): void {
  if (!portal.methods.includes(method)) throw PortalErrors.methodNotOffered()
}

/** Hotspot: the terms accepted, the device joins the guest group for the portal's duration. */
export async function hotspot(c: PortalContext, portal: PortalRow, s: SessionRow, acceptTerms: boolean): Promise<SessionRow> {
  assertOffered(portal, 'hotspot')
  expectState(s, 'started')
  if (!acceptTerms) throw CommonErrors.validation({ field: 'accept_terms' })
  return c.knex.transaction(async (trx) => {
    const [g] = await trx('portal_guests').insert({ portal_id: portal.id, kind: 'hotspot', status: 'active' }).returning('id')
    await trx('portal_sessions').where({ id: s.id, state: 'started' }).update({ guest_id: g.id, method: 'hotspot', updated_at: new Date() })
    return registerSession(c, s.id, { trx })
  })
}

// A real argon2id hash of a random string: an unknown username costs the same work as a known one.
const DUMMY_HASH = '$argon2id$v=19$m=65536,p=4,t=3$c29tZXNhbHRzb21lc2FsdA$oAGadQgJoCUnkcUbXOa9shs5al/hdEHy7XtcQku7QUI'

/**
 * An event's guest account of this portal, inside its validity; 401 GUEST_CREDENTIALS_INVALID for a
 * wrong password, an unknown name, another portal's account, or one revoked, expired or not yet valid.
 */
export async function accountSignIn(c: PortalContext, portal: PortalRow, s: SessionRow, username: string, password: string): Promise<SessionRow> {
  expectState(s, 'started')
  const g = username.length <= 64 ? await c.knex('portal_guests').whereRaw('lower(username) = lower(?)', [username]).where({ kind: 'account' }).first() : undefined
  const now = Date.now()
  const usable =
    g && g.portal_id === portal.id && g.password_hash && ['active', 'pending_code', 'pending_approval'].includes(g.status) &&
    (g.valid_from === null || new Date(g.valid_from).getTime() <= now) && (g.valid_until === null || new Date(g.valid_until).getTime() > now)
  const ok = await argon2.verify(usable ? g.password_hash! : DUMMY_HASH, password).catch(() => false)
  if (!ok || !usable) throw PortalErrors.credentialsInvalid()
  return c.knex.transaction(async (trx) => {
    await trx('portal_sessions').where({ id: s.id, state: 'started' }).update({ guest_id: g.id, method: 'account', updated_at: new Date() })
    return registerSession(c, s.id, { trx })
  })
}
