/**
 * Time running out (flow 5 of the design), every 30 s on the primary node:
 * - guests whose `valid_until` passed are `expired`, and so are their sessions;
 * - active sessions past `expires_at` are `expired`: the device leaves the
 *   endpoint group its registration gave (FreeRADIUS gets it by a deploy, the
 *   NAC's automatic CoA follows that deploy, and the device's next MAB is the
 *   portal's redirect again);
 * - sponsor requests whose link ran out are `expired`;
 * - ended guests and sessions older than `portal.guest_retention_days` go.
 */
import { guestRetentionDays } from '../settings.js'
import type { PortalContext } from './context.js'
import { afterEnd, endSession, type EndedSession } from './end-session.js'

const DAY = 86_400_000
/** Sessions ended per transaction: a backlog (the node was down for a day) drains over a few runs of bounded size. */
const BATCH = 500
const OPEN = ['started', 'pending_code', 'pending_approval', 'active']
const ENDED = ['ended', 'expired', 'denied']

export interface ExpiryRun {
  guests_expired: number
  sessions_expired: number
  requests_expired: number
  purged_guests: number
  purged_sessions: number
}

/** One run of the job (exported for the tests, which set `expires_at` in the past and call it). */
export async function runExpiry(c: PortalContext, now = new Date()): Promise<ExpiryRun> {
  const run: ExpiryRun = { guests_expired: 0, sessions_expired: 0, requests_expired: 0, purged_guests: 0, purged_sessions: 0 }
  const ended: EndedSession[] = []
  await c.knex.transaction(async (trx) => {
    // Rows another transaction holds (an administrator ending the same session) are left to the next run.
    const guests = await trx('portal_guests').whereIn('status', ['active', 'pending_code', 'pending_approval']).where('valid_until', '<=', now).forUpdate().skipLocked().limit(BATCH).select('id', 'status')
    for (const g of guests) {
      await trx('portal_guests').where({ id: g.id }).update({ status: 'expired', ended_at: now, updated_at: now })
      await c.audit.record({ action: 'portal_guest.expire', resourceType: 'portal_guest', resourceId: g.id, before: { status: g.status }, after: { status: 'expired' } }, { actor: null, trx })
    }
    run.guests_expired = guests.length
    const sessions = await trx('portal_sessions')
      .where((w) =>
        w
          .where((a) => a.where('state', 'active').where('expires_at', '<=', now))
          .orWhere((b) => b.whereIn('state', OPEN).whereIn('guest_id', trx('portal_guests').where({ status: 'expired' }).select('id'))),
      )
      .forUpdate()
      .skipLocked()
      .limit(BATCH)
      .select('id', 'mac', 'state', 'endpoint_id', 'endpoint_group_id')
    for (const s of sessions) {
      ended.push(await endSession(c, trx, s, { state: 'expired', reason: 'expired', at: now }))
      await c.audit.record({ action: 'portal_session.expire', resourceType: 'portal_session', resourceId: s.id, before: { state: s.state }, after: { state: 'expired', end_reason: 'expired' } }, { actor: null, trx })
    }
    run.sessions_expired = sessions.length
    run.requests_expired = Number(await trx('portal_sponsor_requests').where({ status: 'pending' }).where('expires_at', '<=', now).update({ status: 'expired' }))

    const cutoff = new Date(now.getTime() - (await c.settings.get(guestRetentionDays, trx)) * DAY)
    // Ended long ago, or never finished (a redirect nobody registered from) and untouched as long.
    run.purged_sessions = Number(
      await trx('portal_sessions')
        .where((w) => w.where((a) => a.whereIn('state', ENDED).where('ended_at', '<', cutoff)).orWhere((b) => b.whereIn('state', OPEN.filter((s) => s !== 'active')).where('updated_at', '<', cutoff)))
        .delete(),
    )
    run.purged_guests = Number(await trx('portal_guests').whereIn('status', ['denied', 'revoked', 'expired']).where('ended_at', '<', cutoff).delete())
  })
  afterEnd(c, ended, { disconnect: false, actor: null, comment: `captive portal: ${ended.length} guest session(s) expired` })
  if (Object.values(run).some((n) => n > 0)) c.log.info(run, 'portal: expired guests and sessions')
  return run
}

/** The job: every `everyMs` on the primary node (a replica's database may be a standby). Returns its stop function. */
export function startExpiry(c: PortalContext, everyMs = 30_000): () => Promise<void> {
  if (c.cluster.role !== 'primary') return async () => undefined
  let running: Promise<unknown> = Promise.resolve()
  let timer = setTimeout(function again() {
    running = runExpiry(c).catch((e: unknown) => c.log.warn({ err: (e as Error).message }, 'portal: the expiry run failed; tried again in 30 s'))
    timer = setTimeout(again, everyMs).unref()
  }, everyMs).unref()
  return async () => {
    clearTimeout(timer)
    await running
  }
}
