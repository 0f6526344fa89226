/**
 * Log exclusion rules: the table, the row → API shape, and the matcher the
 * ingester asks about every event.
 *
 * Semantics (docs/aaa-logs.md):
 * - `username`: the whole name, exactly, case-sensitively (tac_plus-ng and
 *   FreeRADIUS compare user names case-sensitively, so `Admin` and `admin` are
 *   two users in the logs too).
 * - `username_pattern`: a glob (`*`, `?`) over the whole name, case-sensitive.
 * - `user_group`: the user is a member of the named group when the rules are
 *   loaded (members are the enabled accounts with network login; group names
 *   compare case-insensitively, as they are unique that way).
 * - `protocol`: `all`, or only `tacacs` / `radius` events.
 */
import type { Knex } from 'knex'
import type { IdentityService } from '../../../sdk/index.js'
import type { ExclusionMatcher, LoadExclusions } from '../api.js'
import type { ExclusionRecord } from '../tables.js'
import { compileGlob, type Glob } from './glob.js'

export const EXCLUSIONS = 'aaa_log_exclusions'
export const DROPS = 'aaa_log_exclusion_drops'

// The columns' domains are the table's (tables.ts); here for the routes and schemas that import them from the service.
export { PROTOCOLS, MATCH_TYPES, type ExclusionProtocol, type MatchType } from '../tables.js'

/** A rule with its drops summed over nodes and days (`exclusionsWithDrops`). */
export type ExclusionRow = ExclusionRecord & { dropped_total: number }

export const toExclusion = (r: ExclusionRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  protocol: r.protocol,
  match_type: r.match_type,
  match_value: r.match_value,
  dropped_total: r.dropped_total,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
})
export type Exclusion = ReturnType<typeof toExclusion>

/**
 * The rules (as `e`) with their drop counts summed over nodes and days. knex
 * cannot type a select with a subquery column: this is the one place that
 * says what it returns.
 */
export const exclusionsWithDrops = (db: Knex | Knex.Transaction): Knex.QueryBuilder<ExclusionRow, ExclusionRow[]> =>
  db<ExclusionRow, ExclusionRow[]>(`${EXCLUSIONS} as e`).select<ExclusionRow[]>(
    'e.*',
    db.raw(`COALESCE((SELECT SUM(d.dropped) FROM ${DROPS} d WHERE d.exclusion_id = e.id), 0) AS dropped_total`),
  )

export async function loadExclusion(db: Knex | Knex.Transaction, id: string): Promise<Exclusion | null> {
  const row = await exclusionsWithDrops(db).where('e.id', id).first()
  return row ? toExclusion(row) : null
}

interface RuleSet {
  exact: Map<string, string>
  globs: { id: string; glob: Glob }[]
  /** group name (lower case) → rule id; the first rule (by creation) wins. */
  groups: Map<string, string>
}

const emptySet = (): RuleSet => ({ exact: new Map(), globs: [], groups: new Map() })

/** Build the matcher from rules and, for group rules, each user's group names (lower case). */
export function buildMatcher(
  rules: readonly Pick<ExclusionRow, 'id' | 'protocol' | 'match_type' | 'match_value'>[],
  groupsOfUser: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): ExclusionMatcher {
  const sets = { tacacs: emptySet(), radius: emptySet() }
  for (const r of rules) {
    const targets = r.protocol === 'all' ? [sets.tacacs, sets.radius] : [sets[r.protocol]]
    for (const t of targets) {
      if (r.match_type === 'username') {
        if (!t.exact.has(r.match_value)) t.exact.set(r.match_value, r.id)
      } else if (r.match_type === 'username_pattern') t.globs.push({ id: r.id, glob: compileGlob(r.match_value) })
      else {
        const g = r.match_value.toLowerCase()
        if (!t.groups.has(g)) t.groups.set(g, r.id)
      }
    }
  }
  return {
    match(protocol, username) {
      const t = sets[protocol]
      const exact = t.exact.get(username)
      if (exact) return exact
      for (const g of t.globs) if (g.glob.test(username)) return g.id
      if (t.groups.size) {
        const mine = groupsOfUser.get(username)
        if (mine) for (const g of mine) {
          const id = t.groups.get(g)
          if (id) return id
        }
      }
      return null
    },
  }
}

/** Loads the rules (oldest first) and, only when a `user_group` rule exists, the members of the groups. */
export const exclusionLoader =
  (identity: IdentityService): LoadExclusions =>
  async (db) => {
    const rules = await db(EXCLUSIONS).orderBy([{ column: 'created_at' }, { column: 'id' }]).select('id', 'protocol', 'match_type', 'match_value')
    const groupsOfUser = new Map<string, Set<string>>()
    if (rules.some((r) => r.match_type === 'user_group')) {
      const wanted = new Set(rules.filter((r) => r.match_type === 'user_group').map((r) => r.match_value.toLowerCase()))
      const nameOf = new Map<string, string>()
      for (const g of await identity.userGroups(db)) if (wanted.has(g.name.toLowerCase())) nameOf.set(g.id, g.name.toLowerCase())
      if (nameOf.size) {
        for (const u of await identity.networkUsers(db)) {
          const names = u.group_ids.map((id) => nameOf.get(id)).filter((n): n is string => n !== undefined)
          if (names.length) groupsOfUser.set(u.username, new Set(names))
        }
      }
    }
    return buildMatcher(rules, groupsOfUser)
  }
