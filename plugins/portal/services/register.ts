/**
 * Flow 4 of the captive portal (docs/portal.md "The guest's side"): the device a guest or employee
 * registered joins the portal's endpoint group. The NAC records the change and queues its automatic
 * reauthenticate CoA; FreeRADIUS answers MAB from its rendered tree, so the platform asks for a
 * deploy (coalesced with others) and the NAC's CoA leaves once that release is active. No CoA is
 * sent here: one sent before the deploy would make the switch re-ask a daemon that still has the
 * old tree. The guest's page does not wait for the deploy.
 */
import type { Knex } from 'knex'
import type { Actor } from '../../../sdk/index.js'
import { FREERADIUS_DAEMON } from '../../radius/api.js'
import { PortalErrors } from '../errors.js'
import type { SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'

export interface RegisterOptions {
  /** Run inside this transaction (an administrator's approval); the deploy is asked for once it commits. */
  trx?: Knex.Transaction
  /** Who registered it, for the audit trail: null for the guest themselves. */
  actor?: Actor | null
  requestId?: string
}

/** Shown as the endpoint's description in the NAC: who registered it, by which method. */
function describe(s: SessionRow, who: string | null): string {
  const by = s.method === 'byod' ? 'employee device' : `guest (${s.method})`
  return `Captive portal ${by}${who ? `: ${who}` : ''}`.slice(0, 200)
}

/**
 * Registers a session whose guest or employee is known (method, guest_id or user_id set): the
 * endpoint joins the portal's guest group (byod: its BYOD group), the session becomes `active`
 * with its expiry, earlier active sessions of the same MAC on the portal end (`replaced`).
 * 409 GUEST_STATE_CONFLICT when the session has ended or is active already.
 */
export async function registerSession(c: PortalContext, sessionId: string, opts: RegisterOptions = {}): Promise<SessionRow> {
  const run = async (trx: Knex.Transaction) => {
    const s = await trx('portal_sessions').where({ id: sessionId }).forUpdate().first()
    if (!s || !['started', 'pending_code', 'pending_approval'].includes(s.state)) throw PortalErrors.guestStateConflict({ vars: { state: s?.state ?? 'ended' } })
    const portal = await trx('portal_portals').where({ id: s.portal_id }).first()
    if (!portal) throw PortalErrors.portalNotFound()
    const byod = s.method === 'byod'
    const groupId = byod ? portal.byod_endpoint_group_id : portal.guest_endpoint_group_id
    // A portal without a group for the method registers nothing: the admin must name one first.
    if (!groupId) throw PortalErrors.methodNeedsGroup({ field: byod ? 'byod_endpoint_group_id' : 'guest_endpoint_group_id', vars: { method: s.method ?? 'hotspot' } })
    const guest = s.guest_id ? await trx('portal_guests').where({ id: s.guest_id }).first() : undefined
    const user = s.user_id ? await c.identity.findUser({ id: s.user_id }, trx) : null
    const now = new Date()
    let expires: Date | null = byod
      ? portal.byod_days === null ? null : new Date(now.getTime() + portal.byod_days * 86_400_000)
      : new Date(now.getTime() + portal.guest_minutes * 60_000)
    // An event's account ends with the account.
    if (guest?.valid_until && (expires === null || new Date(guest.valid_until) < expires)) expires = new Date(guest.valid_until)
    const endpoint = await c.nac.registerEndpoint(
      { mac: s.mac, endpoint_group_id: groupId, owner_user_id: byod ? s.user_id : null, description: describe(s, user?.username ?? guest?.email ?? guest?.name ?? guest?.username ?? null) },
      trx,
    )
    await trx('portal_sessions')
      .where({ portal_id: s.portal_id, mac: s.mac, state: 'active' })
      .whereNot({ id: s.id })
      .update({ state: 'ended', end_reason: 'replaced', ended_at: now, updated_at: now })
    const [row] = await trx('portal_sessions')
      .where({ id: s.id })
      .update({ state: 'active', registered_at: now, expires_at: expires, endpoint_id: endpoint.id, endpoint_group_id: groupId, updated_at: now })
      .returning('*')
    // A guest of a method lasts as its access does (the expiry job ends both); an event's account keeps its own validity.
    if (guest && guest.kind !== 'account') await trx('portal_guests').where({ id: guest.id }).update({ status: 'active', valid_from: now, valid_until: expires, updated_at: now })
    else if (guest && guest.status !== 'active') await trx('portal_guests').where({ id: guest.id }).update({ status: 'active', updated_at: now })
    await c.audit.record(
      { action: 'portal_session.register', resourceType: 'portal_session', resourceId: s.id, after: { mac: s.mac, method: s.method, endpoint_id: endpoint.id, endpoint_group_id: groupId, guest_id: s.guest_id, user_id: s.user_id, expires_at: expires } },
      { actor: opts.actor ?? null, requestId: opts.requestId, trx },
    )
    return row
  }
  const row = opts.trx ? await run(opts.trx) : await c.knex.transaction(run)
  const committed = opts.trx ? opts.trx.executionPromise : Promise.resolve()
  committed.then(() => requestDeploy(c, row.mac), () => undefined)
  return row
}

/**
 * The deploy that carries the new group to FreeRADIUS, in the background: the guest's page does not
 * wait for it. A failure is logged (the endpoint stays registered; the next deploy carries it).
 */
export function requestDeploy(c: PortalContext, mac: string): void {
  if (!c.freeradiusFromFiles) return
  c.deploys.request(FREERADIUS_DAEMON, `captive portal: ${mac} registered`).catch((e: unknown) => {
    c.log.warn({ err: (e as Error)?.message, mac }, 'captive portal: the deploy carrying a registration failed; the next deploy carries it')
  })
}
