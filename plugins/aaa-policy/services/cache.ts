/**
 * The ordered rule views kept in memory (per node), for the policy test and `listRules()` without
 * a transaction: reading all rules with their names is ~18 ms at 5,000 rules, reading the version
 * row (migration 0002, bumped by a trigger on every change to the rules, and through the owners'
 * rename events for the names they show: references.ts) a fraction of a millisecond. The views
 * are reused while the version is unchanged.
 *
 * Use it only from reads that write nothing: a transaction that changed the rules sees its own,
 * uncommitted, version and rows, which must never be stored (a rollback would leave them cached
 * under a version another change may reach). The renderers pass their snapshot transaction to
 * `listRules` and always read through it, never from here.
 */
import type { Knex } from 'knex'
import type { PolicyRuleView } from '../api.js'
import type { PolicyTargets } from './targets.js'
import { loadViews } from './rules.js'

type Db = Knex | Knex.Transaction

export const VERSION = 'aaa_policy_version'

export interface RuleViewCache {
  /** Every rule in evaluation order, from memory when the policy's version is unchanged. Frozen: do not modify. */
  views(db: Db): Promise<readonly PolicyRuleView[]>
}

const freeze = (v: PolicyRuleView): PolicyRuleView => {
  Object.freeze(v.who)
  Object.freeze(v.where)
  return Object.freeze(v)
}

export function createRuleViewCache(targets: PolicyTargets): RuleViewCache {
  let cached: { version: string; views: readonly PolicyRuleView[] } | null = null
  return {
    async views(db) {
      // Read before the rules: in a snapshot both agree; outside one, a change committed between
      // the two reads leaves newer rows under the older version, and the next call reloads.
      const row = await db(VERSION).where('id', 1).first('version')
      if (!row) throw new Error(`${VERSION} has no row: is migration 0002 of aaa-policy applied?`)
      const version = String(row.version)
      if (cached && cached.version === version) return cached.views
      const views = Object.freeze((await loadViews(db, targets)).map(freeze))
      cached = { version, views }
      return views
    },
  }
}
