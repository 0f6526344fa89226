/**
 * The inventory's records this plugin refers to (sdk/references.ts): a device with stored
 * configurations cannot be deleted (its history goes first, through the audited
 * DELETE /ncm/devices/{id}/history); a device without any just leaves tracking; a deleted group
 * takes its schedule with it.
 */
import { uuidArray } from '../../sdk/index.js'
import type { NcmContext } from './services/context.js'

export function registerInventoryGuards(c: NcmContext): void {
  const { device, device_group } = c.inventory.references
  device.registerGuard({
    onDelete: 'restrict',
    referrers: async (ids, db) =>
      (await db('ncm_versions').whereRaw('device_id = ANY(?::uuid[])', [uuidArray(ids)]).distinct('device_id')).map((r) => ({ type: 'ncm_configuration_history', id: r.device_id, name: 'stored configurations' })),
  })
  device.registerGuard({
    onDelete: 'clear',
    referrers: async (ids, db) => (await db('ncm_devices').whereRaw('device_id = ANY(?::uuid[])', [uuidArray(ids)]).select('device_id')).map((r) => ({ type: 'ncm_device', id: r.device_id, name: 'configuration tracking' })),
    clear: async (ids, trx) => {
      await c.forget.run(trx, ids)
      await trx('ncm_fetches').whereRaw('device_id = ANY(?::uuid[])', [uuidArray(ids)]).delete()
      await trx('ncm_devices').whereRaw('device_id = ANY(?::uuid[])', [uuidArray(ids)]).delete()
    },
  })
  device_group.registerGuard({
    onDelete: 'clear',
    referrers: async (ids, db) => (await db('ncm_schedules').whereRaw('device_group_id = ANY(?::uuid[])', [uuidArray(ids)]).select('id')).map((r) => ({ type: 'ncm_schedule', id: r.id, name: 'configuration schedule' })),
    clear: async (ids, trx) => {
      const gone = await trx('ncm_schedules').whereRaw('device_group_id = ANY(?::uuid[])', [uuidArray(ids)]).delete().returning('id')
      if (gone.length) await trx('ncm_devices').whereIn('schedule_id', gone.map((g) => g.id)).update({ schedule_id: null, collector_id: null })
    },
  })
}
