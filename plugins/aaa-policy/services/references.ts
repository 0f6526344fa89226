/**
 * What a rule references, reached only through each owner's contract
 * (sdk/references.ts): users and user groups through the kernel's identity
 * service, devices and device groups through the inventory, profiles through
 * the tacacs and radius plugins when the edition has them. No foreign key, join
 * or trigger touches their tables.
 *
 * - Storing a reference: `lockReferences` checks each id through its owner,
 *   which locks the record FOR KEY SHARE until the rule's transaction ends.
 * - WHO and WHERE are blocking: the guard answers the rules naming a record, and
 *   the owner refuses its delete (409) while there is one.
 * - Profiles are auto-clearing: the guard clears them from the rules in the
 *   deleting transaction (the rule then denies that protocol).
 * - Renames of what the cached views show (user, group, device and device group
 *   names) bump the policy's version in the renaming transaction
 *   (services/cache.ts). Profile names are not cached: they are read per answer.
 *
 * Lock order, the same everywhere so that nothing deadlocks: the referenced
 * records (their owner's lock), then the order (the default rule's row, see
 * order.ts), then the rule rows.
 */
import type { Knex } from 'knex'
import { uuidArray, type Referrer } from '../../../sdk/index.js'
import { referenceNotFound } from '../errors.js'
import { RULES } from './rules.js'
import { COLUMN, type PolicyTargets, type RefColumn, type TargetKind } from './targets.js'

type Db = Knex | Knex.Transaction

/** The rules whose `column` holds one of `ids`, by name. */
async function rulesNaming(db: Db, column: RefColumn, ids: readonly string[]): Promise<Referrer[]> {
  const rows = await db(RULES).whereRaw('?? = ANY(?::uuid[])', [column, uuidArray(ids)]).orderBy('name').select('id', 'name')
  return rows.map((r) => ({ type: 'aaa_policy_rule', id: r.id, name: r.name }))
}

/** A name the cached views show changed: the views are stale from this transaction on. */
const bumpVersion = async (_ids: readonly string[], trx: Knex.Transaction) => {
  await trx('aaa_policy_version').where({ id: 1 }).increment('version', 1)
}

/** Register the policy's guards with every owner (once, from init). */
export function registerGuards(targets: PolicyTargets): void {
  for (const kind of ['user', 'group', 'device', 'device_group'] as const) {
    targets[kind].registerGuard({ onDelete: 'restrict', referrers: (ids, db) => rulesNaming(db, COLUMN[kind], ids), renamed: bumpVersion })
  }
  for (const kind of ['tacacs_profile', 'radius_profile'] as const) {
    const column = COLUMN[kind]
    targets[kind]?.registerGuard({
      onDelete: 'clear',
      referrers: (ids, db) => rulesNaming(db, column, ids),
      async clear(ids, trx) {
        // The owner holds the profiles FOR UPDATE: no rule can take them any more, so the set read
        // here is final. Only then the order lock (before the rule rows, as every writer does).
        if (!(await trx(RULES).whereRaw('?? = ANY(?::uuid[])', [column, uuidArray(ids)]).first('id'))) return
        await trx(RULES).where({ is_default: true }).forUpdate().first('id')
        await trx(RULES).whereRaw('?? = ANY(?::uuid[])', [column, uuidArray(ids)]).update({ [column]: null })
      },
    })
  }
}

export interface RefCheck {
  kind: TargetKind
  id: string | null | undefined
  field: string
}

/**
 * 422 REFERENCE_NOT_FOUND at the field of the first id that names nothing (or names a profile of
 * a plugin this edition lacks). The records found stay locked by their owner (FOR KEY SHARE) until
 * commit, so they cannot be deleted between this check and the rule's commit.
 */
export async function lockReferences(trx: Knex.Transaction, targets: PolicyTargets, refs: RefCheck[]): Promise<void> {
  for (const r of refs) {
    if (!r.id) continue
    const target = targets[r.kind]
    if (!target) throw referenceNotFound(r.kind, r.field, r.id, true)
    if (!(await target.lockExisting([r.id], trx)).has(r.id.toLowerCase())) throw referenceNotFound(r.kind, r.field, r.id)
  }
}
