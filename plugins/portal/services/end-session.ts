/**
 * Ending a portal session (flow 5 of the design): an administrator's end, a
 * revoked guest, an expiry. In the caller's transaction the endpoint leaves
 * the group the session put it in (if it is still there) and the session
 * records its end; after the commit FreeRADIUS gets the change by a deploy
 * (its MAB groups are in the rendered tree), the NAC's automatic CoA follows
 * that deploy, and an administrator's end (or a revoke) also sends an explicit
 * Disconnect once the deploy is active: the device is cut now, and its next
 * MAB meets the tree without it.
 */
import type { Knex } from 'knex'
import type { Actor } from '../../../sdk/index.js'
import { FREERADIUS_DAEMON } from '../../radius/api.js'
import type { SessionEndReason, SessionRow } from '../tables.js'
import type { PortalContext } from './context.js'
import { releaseEndpoint } from './nac-hooks.js'

export interface EndedSession {
  id: string
  mac: string
  endpoint_id: string | null
  /** It had access (state `active`): its endpoint was released and a Disconnect may be due. */
  wasActive: boolean
}

/** The session (locked by the caller) ends in `trx`: released from its group when it was active. */
export async function endSession(c: PortalContext, trx: Knex.Transaction, s: Pick<SessionRow, 'id' | 'mac' | 'state' | 'endpoint_id' | 'endpoint_group_id'>, o: { state: 'ended' | 'expired'; reason: SessionEndReason; at?: Date }): Promise<EndedSession> {
  const at = o.at ?? new Date()
  const wasActive = s.state === 'active'
  if (wasActive && s.endpoint_id && s.endpoint_group_id) await releaseEndpoint(c.nac, s.endpoint_id, s.endpoint_group_id, trx)
  await trx('portal_sessions').where({ id: s.id }).update({ state: o.state, ended_at: at, end_reason: o.reason, updated_at: at })
  return { id: s.id, mac: s.mac, endpoint_id: s.endpoint_id, wasActive }
}

const inFlight = new WeakMap<PortalContext, Set<Promise<void>>>()

/** Resolves when the background work of every end so far (deploy, Disconnect) is done: tests, shutdown. */
export async function endingsIdle(c: PortalContext): Promise<void> {
  await Promise.all([...(inFlight.get(c) ?? [])])
}

/**
 * After the commit, in the background (the API answers at once): the deploy FreeRADIUS needs, then
 * for `disconnect` a Disconnect-Request per session that had access, recorded on the session
 * (`coa_request_id`). Failures are logged: the session has ended whatever the NAS says.
 */
export function afterEnd(c: PortalContext, ended: readonly EndedSession[], o: { disconnect: boolean; actor: Actor | null; comment: string; coaReason?: 'admin' | 'user_access_ended' }): void {
  const active = ended.filter((e) => e.wasActive && e.endpoint_id)
  if (!active.length) return
  const work = (async () => {
    if (c.freeradiusFromFiles) {
      await c.deploys.request(FREERADIUS_DAEMON, o.comment).catch((e: unknown) => c.log.warn({ err: (e as Error).message }, 'portal: the deploy after ending sessions failed; the change goes live with the next deploy'))
    }
    if (!o.disconnect) return
    const requestedBy = o.actor ? { id: o.actor.id, username: o.actor.username } : null
    for (const e of active) {
      try {
        const r = await c.coa.send(e.endpoint_id!, 'disconnect', { reason: o.coaReason ?? 'admin', requestedBy })
        await c.knex('portal_sessions').where({ id: e.id }).update({ coa_request_id: r.id })
      } catch (err) {
        c.log.warn({ err: (err as Error).message, session_id: e.id, mac: e.mac }, 'portal: no Disconnect-Request could be sent for an ended session')
      }
    }
  })()
  let set = inFlight.get(c)
  if (!set) inFlight.set(c, (set = new Set()))
  set.add(work)
  void work.finally(() => set.delete(work))
}

const OPEN = ['started', 'pending_code', 'pending_approval', 'active']

/**
 * A user's access ended (deleted, disabled, expired, network login off): the devices they registered
 * as their own (byod) hold their access by group membership, not by the user's password, so each of
 * their portal sessions ends here (reason `user_access_ended`), the devices leave their group and are
 * disconnected. Subscribed to the kernel's userLifecycle.onAccessEnded.
 */
export async function endUserSessions(c: PortalContext, e: { user_id: string; username: string; reason: string; actor: Actor | null }): Promise<void> {
  const ended = await c.knex.transaction(async (trx) => {
    const rows = await trx('portal_sessions').where({ user_id: e.user_id }).whereIn('state', OPEN).forUpdate().select('id', 'mac', 'state', 'endpoint_id', 'endpoint_group_id')
    const out: EndedSession[] = []
    for (const s of rows) {
      out.push(await endSession(c, trx, s, { state: 'ended', reason: 'user_access_ended' }))
      await c.audit.record({ action: 'portal_session.end', resourceType: 'portal_session', resourceId: s.id, before: { state: s.state }, after: { state: 'ended', end_reason: 'user_access_ended', user_access: e.reason } }, { actor: e.actor, trx })
    }
    return out
  })
  afterEnd(c, ended, { disconnect: true, actor: e.actor, comment: `captive portal: own devices of ${e.username} (${e.reason})`, coaReason: 'user_access_ended' })
}
