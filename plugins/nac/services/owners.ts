/**
 * Owners are kernel users, referenced through the identity service's
 * `references.user` (sdk/references.ts): the id is checked and locked when it
 * is stored, names are read per answer (so a rename needs nothing here), and
 * a guard tells the kernel what to do when the user goes.
 *
 * A deleted owner is cleared, not a refusal: an endpoint is a device that
 * outlives the person who registered it (a phone handed on, a printer whose
 * owner left), and offboarding must not stall on the devices someone once
 * registered. Cleared in the deleting transaction, each endpoint audited
 * (`endpoint.owner_cleared`, before and after), so the trail says where every
 * owner went. docs/nac.md, Owners.
 */
import type { Knex } from 'knex'
import { uuidArray, type AuditService, type ReferenceTarget, type Referrer } from '../../../sdk/index.js'
import { NacErrors as E } from '../errors.js'
import { ENDPOINTS } from './rows.js'

type Db = Knex | Knex.Transaction

async function endpointsOwnedBy(db: Db, userIds: readonly string[]): Promise<Referrer[]> {
  const rows = await db(ENDPOINTS).whereRaw('owner_user_id = ANY(?::uuid[])', [uuidArray(userIds)]).orderBy('mac').select('id', 'mac')
  return rows.map((r) => ({ type: 'nac_endpoint', id: r.id, name: r.mac }))
}

export function registerOwnerGuard(users: ReferenceTarget, audit: AuditService): void {
  users.registerGuard({
    onDelete: 'clear',
    referrers: (ids, db) => endpointsOwnedBy(db, ids),
    async clear(ids, trx) {
      const owned = await trx(ENDPOINTS).whereRaw('owner_user_id = ANY(?::uuid[])', [uuidArray(ids)]).forUpdate().select('id', 'mac', 'owner_user_id')
      if (!owned.length) return
      await trx(ENDPOINTS).whereRaw('id = ANY(?::uuid[])', [uuidArray(owned.map((o) => o.id))]).update({ owner_user_id: null, updated_at: new Date() })
      // The deleting request's actor is the kernel's to record on the user's own entry; this one says what followed from it.
      for (const o of owned) {
        await audit.record(
          { action: 'endpoint.owner_cleared', resourceType: 'endpoint', resourceId: o.id, before: { mac: o.mac, owner_user_id: o.owner_user_id }, after: { mac: o.mac, owner_user_id: null } },
          { actor: null, trx },
        )
      }
    },
  })
}

/** 422 REFERENCE_NOT_FOUND at `field` unless `userId` names a user; the user stays locked (FOR KEY SHARE) until commit. */
export async function lockOwner(trx: Knex.Transaction, users: ReferenceTarget, userId: string | null | undefined, field = 'owner_user_id'): Promise<void> {
  if (!userId) return
  if (!(await users.lockExisting([userId], trx)).has(userId.toLowerCase())) throw E.ownerNotFound({ field, vars: { id: userId } })
}
