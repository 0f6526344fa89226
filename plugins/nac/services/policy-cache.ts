/**
 * The compiled NAC policy kept in memory (per node) for the policy test:
 * compiling reads every rule, profile and group name (~8 ms at 500 rules on an
 * idle machine), reading the version row (migration 0002, bumped by every
 * change to the rules and profiles and by the renames of the groups they name)
 * a fraction of a millisecond. The compiled policy is reused while the version
 * is unchanged, as the AAA policy keeps its rule views (plugins/aaa-policy/services/cache.ts).
 *
 * Use it only from reads that write nothing, outside a transaction that changed
 * the policy (its uncommitted version must never be cached). The renderer gets
 * its compile through its own snapshot, never from here.
 */
import type { Knex } from 'knex'
import type { CompiledNacPolicy } from '../../../sdk/index.js'

export interface CompiledPolicyCache {
  /** The compiled policy, from memory when the version is unchanged. Shared: do not modify. */
  get(db: Knex): Promise<CompiledNacPolicy>
}

export function createCompiledPolicyCache(compile: (db: Knex) => Promise<CompiledNacPolicy>): CompiledPolicyCache {
  let cached: { version: string; compiled: CompiledNacPolicy } | null = null
  return {
    async get(db) {
      // Read before the rules: a change committed between the two reads leaves newer rows under the older version, and the next call reloads.
      const row = await db('nac_policy_version').where({ id: 1 }).first('version')
      if (!row) throw new Error('nac_policy_version has no row: is migration 0002 of nac applied?')
      const version = String(row.version)
      if (cached && cached.version === version) return cached.compiled
      const compiled = await compile(db)
      cached = { version, compiled }
      return compiled
    },
  }
}
