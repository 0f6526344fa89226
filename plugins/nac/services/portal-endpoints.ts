/**
 * The captive portal's writes to endpoints (NacService.registerEndpoint, releaseEndpoint): a guest's
 * or employee's device put in the group the portal grants, and taken out of it when the access
 * ends. The same checks as the API's endpoint writes (routes/endpoint-writes.ts) and the same
 * authorization change after the commit (events.ts adminChange); the CoA is the caller's to send.
 */
import type { Knex } from 'knex'
import { CommonErrors, type ReferenceTarget } from '../../../sdk/index.js'
import type { Endpoint, EndpointAuthorizationChange, NacService } from '../api.js'
import { canonicalMac, lockGroup } from '../routes/endpoint-writes.js'
import { adminChange, type AuthorizationEvents } from './events.js'
import { ouiVendor } from './oui.js'
import { lockOwner } from './owners.js'
import { ENDPOINTS, isUuid, loadEndpoint } from './rows.js'

type Db = Knex | Knex.Transaction
type Written = { endpoint: Endpoint | null; changes: EndpointAuthorizationChange[] }

/** As the API's description (OptionalText, 500): one line, no control characters. */
function description(v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null) return v
  const clean = v.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim()
  if (clean.length > 500) throw CommonErrors.validation({ field: 'description' })
  return clean || null
}

export function createPortalEndpoints(knex: Knex, users: ReferenceTarget, events: AuthorizationEvents): Pick<NacService, 'registerEndpoint' | 'releaseEndpoint'> {
  /**
   * `fn` in a transaction of its own, or in a savepoint of the caller's; the changes go to the
   * listeners once the outermost transaction given committed (never when it rolls back).
   */
  async function write(db: Db, fn: (trx: Knex.Transaction) => Promise<Written>): Promise<Endpoint | null> {
    const out = await db.transaction(fn)
    if (db.isTransaction) {
      const trx = db as Knex.Transaction
      trx.executionPromise.then(
        () => events.emit(out.changes),
        () => undefined,
      )
    } else await events.emit(out.changes)
    return out.endpoint
  }

  return {
    async registerEndpoint(r, db = knex) {
      const mac = canonicalMac(r.mac)
      const desc = description(r.description)
      const endpoint = await write(db, async (trx) => {
        if (!isUuid(r.endpoint_group_id)) throw CommonErrors.validation({ field: 'endpoint_group_id' })
        await lockGroup(trx, r.endpoint_group_id)
        if (r.owner_user_id !== undefined) await lockOwner(trx, users, r.owner_user_id)
        // A new MAC is inserted; a known one (or one another request inserted meanwhile) is locked and updated.
        await trx(ENDPOINTS).insert({ mac, vendor: ouiVendor(mac) }).onConflict('mac').ignore()
        const row = await trx(ENDPOINTS).where({ mac }).forUpdate().first('id')
        const before = (await loadEndpoint(trx, row!.id))!
        await trx(ENDPOINTS)
          .where({ id: before.id })
          .update({
            // Static membership, as a group set through the API: profiling's placement rules leave it.
            endpoint_group_id: r.endpoint_group_id,
            endpoint_group_placed: false,
            ...(r.owner_user_id === undefined ? {} : { owner_user_id: r.owner_user_id }),
            ...(desc === undefined ? {} : { description: desc }),
            updated_at: new Date(),
          })
        const after = (await loadEndpoint(trx, before.id))!
        return { endpoint: after, changes: adminChange(before, after) }
      })
      return endpoint!
    },

    async releaseEndpoint(endpointId, fromGroupId, db = knex) {
      if (!isUuid(endpointId)) return null
      return write(db, async (trx) => {
        const row = await trx(ENDPOINTS).where({ id: endpointId }).forUpdate().first('id', 'endpoint_group_id')
        if (!row) return { endpoint: null, changes: [] }
        const before = (await loadEndpoint(trx, endpointId))!
        if (row.endpoint_group_id === null || row.endpoint_group_id.toLowerCase() !== fromGroupId.toLowerCase()) return { endpoint: before, changes: [] }
        await trx(ENDPOINTS).where({ id: endpointId }).update({ endpoint_group_id: null, endpoint_group_placed: false, updated_at: new Date() })
        const after = (await loadEndpoint(trx, endpointId))!
        return { endpoint: after, changes: adminChange(before, after) }
      })
    },
  }
}
