/**
 * A rollback: an earlier release made active again, from whichever node
 * receives it. Its files come from the database (store.ts), so the release
 * need not be on this node's disk; every node's agent switches to it (this
 * node's at once, before the answer). Refused when its files are gone, and
 * when it would let back in what was revoked since (revocations.ts).
 */
import type { Knex } from 'knex'
import type { Actor, AuditService, ConfigRenderer, SecretsService } from '../../sdk/index.js'
import type { NodeAgent } from '../cluster/agent.js'
import { RELEASE_CHANNEL } from '../cluster/listen.js'
import type { DeployLease } from './lock.js'
import { DeployErrors } from './model.js'
import { recordReload } from './reload.js'
import type { RenderedDaemons } from './render.js'
import { refuseIfRevoked, revocationsSince } from './revocations.js'
import { loadRelease, releaseStored } from './store.js'

export interface RollbackDeps {
  knex: Knex
  secrets: SecretsService
  audit: AuditService
  agent: NodeAgent
  renderers: ConfigRenderer[]
  /** Today's render of the daemon, to compare the release with. */
  renderNow: (daemon: string) => Promise<RenderedDaemons>
}

/** Under the cluster's deploy lease: activate deploy `id` again. `changed` is false when it was the active one already. */
export async function rollbackTo(d: RollbackDeps, lease: DeployLease, id: string, ctx: { actor: Actor | null; requestId?: string; comment?: string | null }): Promise<{ daemon: string; changed: boolean }> {
  const row = await d.knex('deploys').where({ id }).first()
  if (!row) throw DeployErrors.notFound({ field: 'deploy_id' })
  if (row.status === 'failed' || row.status === 'pending') throw DeployErrors.notRollbackable({ vars: { status: row.status } })
  const before = await d.knex('deploys').where({ daemon: row.daemon, status: 'active' }).first()
  if (before?.id === row.id) return { daemon: row.daemon, changed: false }
  // Pruned (deploy.keep_releases) or purged for a cleartext credential: gone from the database, gone for good.
  if (!(await releaseStored(d.knex, id))) throw DeployErrors.releaseMissing({ vars: { release: row.release } })
  // Never re-admit what was revoked since the release was made: refused with each revocation named.
  const renderers = d.renderers.filter((r) => r.daemon === row.daemon)
  if (renderers.some((r) => r.revokedSince)) {
    const release = (await loadRelease(d.knex, d.secrets, id))?.files ?? []
    const now = (await d.renderNow(row.daemon)).get(row.daemon)?.files ?? []
    refuseIfRevoked(row, await revocationsSince({ knex: d.knex, renderers, release, now, since: new Date(row.created_at), at: new Date() }))
  }
  // The database first: every node's agent (this one's just below) then points `current` at it.
  await d.knex.transaction(async (trx) => {
    await lease.renew(trx)
    await trx('deploys').where({ daemon: row.daemon, status: 'active' }).update({ status: 'rolled_back' })
    await trx('deploys').where({ id }).update({ status: 'active', activated_at: trx.fn.now(), reload_status: null, reload_output: null })
    await d.audit.record(
      { action: 'deploy.rollback', resourceType: 'deploy', resourceId: id, resourceName: `${row.daemon} ${row.release}`, before: before ? { id: before.id, release: before.release } : null, after: { daemon: row.daemon, release: row.release, comment: ctx.comment ?? null } },
      { actor: ctx.actor, requestId: ctx.requestId, trx },
    )
    await trx.raw('select pg_notify(?, ?)', [RELEASE_CHANNEL, row.daemon])
  })
  const done = await d.agent.syncDaemon(row.daemon)
  if (done?.deployId === id) await recordReload(d.knex, id, done.reload)
  return { daemon: row.daemon, changed: true }
}
