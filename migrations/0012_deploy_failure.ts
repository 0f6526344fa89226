import type { Knex } from 'knex'

/**
 * Why a deploy's release was not activated, apart from the checker's text (kernel/deploy/failed.ts):
 * `failure_reason` is `check_failed` (its own check failed), `check_skipped` (its check could not run
 * and deploy.allow_unchecked is off), `not_activated` (its check passed, another daemon's of the same
 * deploy did not: it can be deployed alone) or `interrupted` (recovery); `blocked_by` names, comma
 * separated, the daemons of the same deploy whose check stopped it. Both null on every other row and on
 * rows recorded before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('deploys', (t) => {
    t.string('failure_reason', 32)
    t.string('blocked_by', 1000)
  })
}
