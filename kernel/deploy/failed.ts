/**
 * A deploy whose check failed (or could not run while deploy.allow_unchecked is off):
 * nothing is activated; every staged release stays on disk, recorded `failed` with the
 * reason, for inspection, and audited.
 */
import type { Knex } from 'knex'
import { jsonText, type Actor, type AuditService } from '../../sdk/index.js'
import type { FileRecord } from './files.js'
import type { DaemonCheckOutcome } from './render.js'

/** A release written and checked, not yet activated. */
export interface StagedRelease {
  id: string
  daemon: string
  release: string
  dir: string
  files: FileRecord[]
  check: DaemonCheckOutcome
}

/** The columns every row of one deploy shares. */
export interface DeployRowBase {
  node_id: string
  actor_id: string | null
  actor_name: string | null
  comment: string | null
  created_at: Date
}

export async function recordFailed(
  knex: Knex,
  audit: AuditService,
  staged: StagedRelease[],
  failed: StagedRelease,
  base: DeployRowBase,
  ctx: { actor: Actor | null; requestId?: string },
): Promise<void> {
  const skipped = failed.check.ok
  await knex.transaction(async (trx) => {
    for (const s of staged) {
      const output = s === failed ? (skipped ? `not checked, not activated (deploy.allow_unchecked is off): ${s.check.output}` : s.check.output) : `not activated: the check of ${failed.daemon} ${skipped ? 'could not run' : 'failed'}${s.check.output ? '\n' + s.check.output : ''}`
      await trx('deploys').insert({ id: s.id, daemon: s.daemon, release: s.release, status: 'failed', checked: s.check.checked, check_output: output, files: jsonText(s.files), ...base })
      await audit.record({ action: 'deploy.failed', resourceType: 'deploy', resourceId: s.id, after: { daemon: s.daemon, release: s.release, check_output: output } }, { actor: ctx.actor, requestId: ctx.requestId, trx })
    }
  })
}
