/**
 * The registration an approval makes (flow 4 of the design), for the API's
 * decision. STOPGAP: part C's `services/register.ts` (`registerSession`, see
 * notes portal29.md "changes") is the one registration of the plugin; until it
 * lands on this branch this does the same state change, and the decision route
 * switches to it by its import.
 */
import type { Knex } from 'knex'
import type { Actor } from '../../../sdk/index.js'
import { FREERADIUS_DAEMON } from '../../radius/api.js'
import { PortalErrors as E } from '../errors.js'
import type { SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'
import { registerEndpoint } from './nac-hooks.js'

const PENDING = ['started', 'pending_code', 'pending_approval']

/** As C's `RegisterOptions` (services/register.ts), so that the swap is the import alone. */
export interface RegisterOptions {
  trx: Knex.Transaction
  actor?: Actor | null
  requestId?: string
}

export async function registerSession(c: PortalContext, sessionId: string, o: RegisterOptions): Promise<SessionRow> {
  const trx = o.trx
  const s = (await trx('portal_sessions').where({ id: sessionId }).forUpdate().first())!
  if (!PENDING.includes(s.state)) throw E.guestStateConflict({ field: 'session_id', vars: { state: s.state } })
  const portal = (await trx('portal_portals').where({ id: s.portal_id }).first('guest_endpoint_group_id', 'guest_minutes'))!
  if (!portal.guest_endpoint_group_id) throw E.methodNeedsGroup({ field: 'guest_endpoint_group_id', vars: { method: s.method ?? 'sponsored' } })
  const guest = s.guest_id ? await trx('portal_guests').where({ id: s.guest_id }).first('name', 'valid_until') : null
  const now = new Date()
  let expires = new Date(now.getTime() + portal.guest_minutes * 60_000)
  if (guest?.valid_until && guest.valid_until < expires) expires = guest.valid_until
  const endpoint = await registerEndpoint(c.nac, { mac: s.mac, endpoint_group_id: portal.guest_endpoint_group_id, description: guest?.name ? `guest: ${guest.name}`.slice(0, 500) : 'guest' }, trx)
  await trx('portal_sessions')
    .where({ id: sessionId })
    .update({ state: 'active', endpoint_id: endpoint.id, endpoint_group_id: portal.guest_endpoint_group_id, registered_at: now, expires_at: expires, updated_at: now })
  if (s.guest_id) await trx('portal_guests').where({ id: s.guest_id }).update({ status: 'active', valid_from: now, valid_until: expires, updated_at: now })
  // Once the caller's transaction commits, FreeRADIUS gets the endpoint's new group by a deploy (background; the NAC's CoA follows it).
  trx.executionPromise.then(
    () => {
      if (c.freeradiusFromFiles) void c.deploys.request(FREERADIUS_DAEMON, `captive portal: ${s.mac} registered`).catch((e: unknown) => c.log.warn({ err: (e as Error).message, mac: s.mac }, 'portal: the deploy after a registration failed'))
    },
    () => undefined,
  )
  return (await trx('portal_sessions').where({ id: sessionId }).first())!
}
