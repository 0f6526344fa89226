/**
 * References between plugins. A plugin's tables are its own: no other plugin
 * points a foreign key at them, joins them or puts a trigger on them, so an
 * edition may leave a plugin out and a plugin may change its schema. A kind
 * of record that others may reference (a device, a user, a TACACS+ profile)
 * is published by its owner as a `ReferenceTarget` on its service. The
 * referring plugin
 * - checks and locks the ids it is about to store (`lockExisting`),
 * - reads the names it shows (`names`),
 * - registers a `ReferenceGuard`, which the owner consults in the transaction
 *   that deletes records of the kind (refuse with 409, or clear the
 *   references) and tells about renames (to drop what it cached).
 *
 * Why a delete cannot leave a reference pointing at nothing: the referrer
 * stores an id only after `lockExisting` took the row FOR KEY SHARE in its own
 * transaction, and the owner's `beforeDelete` first takes the rows FOR UPDATE
 * (which conflicts with KEY SHARE), then asks the guards. Whichever comes
 * second waits for the first to commit: a delete that comes second then sees
 * the committed reference (READ COMMITTED: each statement sees what committed
 * before it) and refuses or clears it; a reference that comes second finds
 * the row gone and answers 422. This is the check a foreign key makes, done
 * through the owner.
 */
import type { Knex } from 'knex'
import { defineError } from './errors.js'

type Db = Knex | Knex.Transaction

/** A record that refers to another plugin's record (an AAA policy rule naming a device). */
export interface Referrer {
  /** What refers, as a resource type: `aaa_policy_rule`. */
  type: string
  id: string
  name: string
}

/** What a referring plugin registers with the owner of the records it refers to. */
export interface ReferenceGuard {
  /** `restrict`: a delete is refused (409) while a reference exists. `clear`: the delete removes the references; the referring records stay. */
  onDelete: 'restrict' | 'clear'
  /** The records referring to any of `ids`, read through `db` (the owner's transaction when it deletes). */
  referrers(ids: readonly string[], db: Db): Promise<Referrer[]>
  /** For `clear`: remove the references to `ids`, in the deleting transaction, before the records go. */
  clear?(ids: readonly string[], trx: Knex.Transaction): Promise<void>
  /** Records of the kind were renamed in `trx` (a referrer that shows or caches the names learns it in the same transaction). */
  renamed?(ids: readonly string[], trx: Knex.Transaction): Promise<void>
}

/** One kind of record, as its owner lets other plugins reference it. */
export interface ReferenceTarget {
  /** `device`, `user`, `tacacs_profile` … */
  readonly kind: string
  /**
   * Of `ids`, those that name a record, each locked FOR KEY SHARE until `trx` ends so that it
   * cannot be deleted before the reference to it commits. Lower-case ids; a string that is not a
   * UUID names nothing.
   */
  lockExisting(ids: readonly string[], trx: Knex.Transaction): Promise<Set<string>>
  /** Names by (lower-case) id; an id that names nothing is absent. Pass the transaction you are in. */
  names(ids: readonly string[], db: Db): Promise<Map<string, string>>
  /** Called once, from `init`: the owner consults the guard on every delete and rename of the kind. */
  registerGuard(guard: ReferenceGuard): void
}

/** The owner's side of a target: what its own delete and rename code calls. */
export interface OwnedReferenceTarget extends ReferenceTarget {
  /**
   * Call in the deleting transaction, before the delete: takes the rows FOR UPDATE, then asks
   * every guard. Returns the referrers of `restrict` guards (refuse the delete, 409, when there is
   * one); when there are none, the `clear` guards have removed their references.
   */
  beforeDelete(ids: readonly string[], trx: Knex.Transaction): Promise<Referrer[]>
  /** Call in the transaction that changed the names of `ids`. */
  renamed(ids: readonly string[], trx: Knex.Transaction): Promise<void>
  /** Who refers to `ids`: by the blocking (`restrict`) guards and by the auto-clearing ones, for a references report. */
  report(ids: readonly string[], db: Db): Promise<{ blocking: Referrer[]; auto_clearing: Referrer[] }>
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Distinct, lower-case UUIDs: anything else names no record (and would abort a PostgreSQL transaction). */
export const uuidsOf = (ids: readonly string[]): string[] => [...new Set(ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase()))]

/** An array literal rather than a bound JS array: both drivers (pg, PGlite) read it the same way, as one parameter. */
export const uuidArray = (ids: readonly string[]): string => `{${uuidsOf(ids).join(',')}}`
/** A PostgreSQL text[] literal for a `?::text[]` binding, every element quoted (the text holds no NUL). */
export const textArray = (xs: readonly string[]): string => `{${xs.map((x) => `"${x.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`

const byName = (a: Referrer, b: Referrer) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)

/**
 * A target over the owner's table `table` (primary key `id`, uuid) with the name in `nameColumn`.
 * The owner keeps the result to itself and hands out the `ReferenceTarget` part on its service.
 * `allow` limits the guards others may register: a kind whose delete is always allowed (a
 * profile) takes `['clear']`, so no plugin can make it refuse.
 */
export function defineReferenceTarget(o: { kind: string; table: string; nameColumn: string; allow?: readonly ReferenceGuard['onDelete'][] }): OwnedReferenceTarget {
  const allow = o.allow ?? ['restrict', 'clear']
  const guards: ReferenceGuard[] = []
  const referrersOf = async (which: 'restrict' | 'clear', ids: string[], db: Db) => {
    const out: Referrer[] = []
    // One after another: a transaction is one connection, which takes one query at a time.
    for (const g of guards) if (g.onDelete === which) out.push(...(await g.referrers(ids, db)))
    return out.sort(byName)
  }
  return {
    kind: o.kind,
    async lockExisting(ids, trx) {
      const valid = uuidsOf(ids)
      if (!valid.length) return new Set()
      const rows = (await trx(o.table).whereRaw('id = ANY(?::uuid[])', [uuidArray(valid)]).forKeyShare().select('id')) as { id: string }[]
      return new Set(rows.map((r) => r.id.toLowerCase()))
    },
    async names(ids, db) {
      const valid = uuidsOf(ids)
      if (!valid.length) return new Map()
      const rows = (await db(o.table).whereRaw('id = ANY(?::uuid[])', [uuidArray(valid)]).select('id', `${o.nameColumn} as name`)) as { id: string; name: string }[]
      return new Map(rows.map((r) => [r.id.toLowerCase(), r.name]))
    },
    registerGuard(guard) {
      if (!allow.includes(guard.onDelete)) throw new Error(`reference guard on ${o.kind}: onDelete must be ${allow.join(' or ')}`)
      if (guard.onDelete === 'clear' && typeof guard.clear !== 'function') throw new Error(`reference guard on ${o.kind}: onDelete clear needs clear()`)
      guards.push(guard)
    },
    async beforeDelete(ids, trx) {
      const valid = uuidsOf(ids)
      if (!valid.length || !guards.length) return []
      // The rows first, FOR UPDATE: a reference being stored holds them FOR KEY SHARE, so this waits
      // for it to commit, and the guards' reads below see it. That needs READ COMMITTED (a snapshot
      // taken before the wait would not see it): checked in the same round trip.
      const rows = (await trx(o.table)
        .whereRaw('id = ANY(?::uuid[])', [uuidArray(valid)])
        .forUpdate()
        .select('id', trx.raw("current_setting('transaction_isolation') AS isolation"))) as { id: string; isolation: string }[]
      if (rows.length && rows[0].isolation !== 'read committed') {
        throw new Error(`${o.kind}: beforeDelete needs a READ COMMITTED transaction (this one is ${rows[0].isolation})`)
      }
      const blocking = await referrersOf('restrict', valid, trx)
      if (blocking.length) return blocking
      for (const g of guards) if (g.onDelete === 'clear') await g.clear!(valid, trx)
      return []
    },
    async renamed(ids, trx) {
      const valid = uuidsOf(ids)
      if (!valid.length) return
      for (const g of guards) await g.renamed?.(valid, trx)
    },
    async report(ids, db) {
      const valid = uuidsOf(ids)
      return { blocking: await referrersOf('restrict', valid, db), auto_clearing: await referrersOf('clear', valid, db) }
    },
  }
}

/**
 * 409 RECORD_IN_USE naming the referrers, for an owner without an error of its own: throw
 * `recordReferenced({ field, vars: { referrers: referrerList(found) } })`.
 */
export const recordReferenced = defineError(409, 'RECORD_IN_USE', 'core:errors.record_referenced')

/** Referrers for a message: `aaa_policy_rule "core-admins", …`, at most `max` of them. */
export function referrerList(referrers: readonly Referrer[], max = 20): string {
  const shown = referrers.slice(0, max).map((r) => `${r.type} "${r.name}"`)
  return shown.join(', ') + (referrers.length > max ? ', …' : '')
}
