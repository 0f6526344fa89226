/** A device's CoA override (nac_coa_nas) goes with the device: a `clear` guard on the inventory's `references.device`. */
import type { ReferenceTarget } from '../../../../sdk/index.js'
import { COA_NAS } from './records.js'

export function registerCoaNasGuard(devices: ReferenceTarget): void {
  devices.registerGuard({
    onDelete: 'clear',
    async referrers(ids, db) {
      const rows = await db(COA_NAS).whereIn('device_id', [...ids]).select('device_id')
      return rows.map((r) => ({ type: 'nac_coa_nas', id: r.device_id, name: 'Change of Authorization override' }))
    },
    async clear(ids, trx) {
      await trx(COA_NAS).whereIn('device_id', [...ids]).delete()
    },
  })
}
