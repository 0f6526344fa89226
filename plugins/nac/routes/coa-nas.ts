/**
 * How a CoA reaches one inventory device, where it differs from the settings:
 * its UDP port and its dialect. The override belongs to this plugin
 * (nac_coa_nas); the device is the inventory's, referenced through its
 * `references.device` (a device's delete clears the override: index.ts).
 */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, reply } from '../../../sdk/index.js'
import type { Device } from '../../inventory/api.js'
import { CoaErrors } from '../errors.js'
import { NAC_READ, NAC_WRITE } from '../permissions.js'
import { coaPort } from '../settings.js'
import { COA_NAS } from '../services/coa/records.js'
import { CoaNasParams, CoaNasResponse, CoaNasUpdate } from '../schemas/coa.js'
import type { NacRouteDeps } from './deps.js'

export function coaNasRoutes(d: NacRouteDeps) {
  const { knex } = d
  const device = async (db: Knex | Knex.Transaction, id: string): Promise<Device> => {
    const found = d.inventory ? await d.inventory.getDevice(id, db) : null
    if (!found) throw CoaErrors.deviceNotFound({ field: 'device_id', vars: { id } })
    return found
  }
  const view = async (db: Knex | Knex.Transaction, dev: Device) => {
    const row = await db(COA_NAS).where({ device_id: dev.id }).first('port', 'dialect')
    const dialect = row?.dialect ?? 'auto'
    return {
      device_id: dev.id,
      device_name: dev.name,
      port: row?.port ?? null,
      effective_port: row?.port ?? (await d.settings.get(coaPort, db)),
      dialect,
      effective_dialect: dialect !== 'auto' ? dialect : /cisco/i.test(dev.vendor ?? '') ? ('cisco' as const) : ('rfc5176' as const),
    }
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/coa-nas/{device_id}',
      permission: NAC_READ,
      summary: 'How a Change of Authorization reaches a device',
      description: 'The override (`port`, `dialect`) and what applies now (`effective_port`, `effective_dialect`). A device the inventory does not have: 404.',
      tags: ['nac'],
      schema: { params: CoaNasParams, response: { 200: CoaNasResponse, 404: ErrorBody } },
      handler: async ({ params }) => view(knex, await device(knex, params.device_id)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/coa-nas/{device_id}',
      permission: NAC_WRITE,
      summary: 'Set how a Change of Authorization reaches a device',
      description: 'Partial: only the fields given change. A device the inventory does not have: 404. The override goes when the device is deleted.',
      tags: ['nac'],
      schema: { params: CoaNasParams, body: CoaNasUpdate, response: { 200: CoaNasResponse, 404: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const id = req.params.device_id
          // Locked FOR KEY SHARE: the device cannot be deleted (and its override cleared) before this commits.
          if (!d.inventory || !(await d.inventory.references.device.lockExisting([id], trx)).size) throw CoaErrors.deviceNotFound({ field: 'device_id', vars: { id } })
          const dev = await device(trx, id)
          const before = await view(trx, dev)
          const cols = givenFields(req.body, ['port', 'dialect'])
          await trx(COA_NAS)
            .insert({ device_id: dev.id, port: before.port, dialect: before.dialect, ...cols })
            .onConflict('device_id')
            .merge({ ...cols, updated_at: new Date() })
          const after = await view(trx, dev)
          await req.audit({ action: 'coa_nas.update', resourceType: 'device', resourceId: dev.id, before, after }, trx)
          return after
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/coa-nas/{device_id}',
      permission: NAC_WRITE,
      summary: "Remove a device's Change of Authorization override",
      description: 'The device goes back to the settings (`nac.coa_port`, dialect `auto`). Idempotent: 204 also when there was no override; 404 for a device the inventory does not have.',
      tags: ['nac'],
      schema: { params: CoaNasParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const dev = await device(trx, req.params.device_id)
          const before = await view(trx, dev)
          if (await trx(COA_NAS).where({ device_id: dev.id }).delete()) await req.audit({ action: 'coa_nas.delete', resourceType: 'device', resourceId: dev.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
