/**
 * A deploy whose check failed (or could not run while deploy.allow_unchecked is off):
 * nothing is activated; every staged release stays on disk, recorded `failed` with the
 * reason, for inspection, and audited `deploy.failed` with the outcome `failure`.
 *
 * Each release says why on its own: the daemon whose check failed says so with the
 * checker's output; every other daemon of the same deploy says it was not activated
 * because of that check (`not_activated`, `blocked_by`), so the history never shows a
 * FreeRADIUS release failed without a word on the tac_plus-ng check that stopped it,
 * and says it can be deployed alone.
 */
import type { Knex } from 'knex'
import { jsonText, type Actor, type AuditService } from '../../sdk/index.js'
import type { FileRecord } from './files.js'
import type { DaemonCheckOutcome } from './check.js'

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

/** Why a release of a refused deploy was not activated (the deploys row's `failure_reason`). */
export type RefusalReason = 'check_failed' | 'check_skipped' | 'not_activated'

/** One daemon's result in a refused deploy: the 422's per-daemon sentence and the history row say the same. */
export interface DaemonRefusal {
  daemon: string
  reason: RefusalReason
  /** The checker's output (its own, also for `not_activated`). */
  output: string
  /** For `not_activated`: the daemons whose check stopped the deploy. */
  blocked_by: string[]
  /** Whether its own check ran (null: none is configured, or it was let through unchecked): the sentence says "passed" only when it did. */
  checked: boolean | null
}

/** Per staged release, why the deploy activates none of them; null when the deploy goes on. */
export function refusals(staged: StagedRelease[], allowUnchecked: boolean): DaemonRefusal[] | null {
  // A release nobody checked is refused too, unless an administrator allowed it (deploy.allow_unchecked).
  const stops = (s: StagedRelease): RefusalReason | null => (!s.check.ok ? 'check_failed' : !allowUnchecked && s.check.unchecked ? 'check_skipped' : null)
  const blockers = staged.filter((s) => stops(s) !== null).map((s) => s.daemon)
  if (!blockers.length) return null
  return staged.map((s) => ({ daemon: s.daemon, reason: stops(s) ?? 'not_activated', output: s.check.output, blocked_by: stops(s) ? [] : blockers, checked: s.check.checked }))
}

/** The row's check_output: the checker's text, after a line saying why (English, as the checkers' own text is). */
function recordedOutput(r: DaemonRefusal, all: DaemonRefusal[]): string {
  if (r.reason === 'check_failed') return r.output
  if (r.reason === 'check_skipped') return `not checked, not activated (deploy.allow_unchecked is off): ${r.output}`
  const why = r.blocked_by.map((d) => `the check of ${d} ${all.find((x) => x.daemon === d)?.reason === 'check_failed' ? 'failed' : 'could not run'}`).join('; ')
  return `not activated: ${why}; deploy ${r.daemon} alone to activate it${r.output ? '\n' + r.output : ''}`
}

export async function recordFailed(
  knex: Knex,
  audit: AuditService,
  staged: StagedRelease[],
  results: DaemonRefusal[],
  base: DeployRowBase,
  ctx: { actor: Actor | null; requestId?: string },
): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const s of staged) {
      const r = results.find((x) => x.daemon === s.daemon)!
      const output = recordedOutput(r, results)
      const blocked = r.blocked_by.length ? r.blocked_by.join(',') : null
      await trx('deploys').insert({ id: s.id, daemon: s.daemon, release: s.release, status: 'failed', checked: s.check.checked, check_output: output, files: jsonText(s.files), failure_reason: r.reason, blocked_by: blocked, ...base })
      await audit.record(
        { action: 'deploy.failed', resourceType: 'deploy', resourceId: s.id, resourceName: `${s.daemon} ${s.release}`, outcome: 'failure', reason: r.reason, after: { daemon: s.daemon, release: s.release, failure_reason: r.reason, blocked_by: r.blocked_by, check_output: output } },
        { actor: ctx.actor, requestId: ctx.requestId, trx },
      )
    }
  })
}
