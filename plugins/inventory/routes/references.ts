/**
 * What refers to a device or a device group (an AAA policy rule naming it, an NCM record…): the
 * report a console shows in the delete confirmation, before the delete answers 409 naming them.
 * The referring plugins answer through their guards (sdk/references.ts); the inventory knows none.
 */
import { CommonErrors, defineRoute, ErrorBody } from '../../../sdk/index.js'
import { INVENTORY_READ } from '../permissions.js'
import { DEVICES, GROUPS } from '../services/rows.js'
import { InventoryReferenceReport } from '../schemas/common.js'
import { DeviceGroupParams } from '../schemas/device-groups.js'
import { DeviceParams } from '../schemas/devices.js'
import type { InventoryRouteDeps } from './deps.js'

export function inventoryReferenceRoutes(d: InventoryRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/devices/{device_id}/references',
      permission: INVENTORY_READ,
      summary: 'What refers to a device',
      description:
        '`blocking`: records of other plugins naming the device (an AAA policy rule whose WHERE is the device…); while there is one, DELETE answers 409 DEVICE_IN_USE. `auto_clearing`: references a delete removes by itself. Only the plugins the edition loads answer.',
      tags: ['inventory'],
      schema: { params: DeviceParams, response: { 200: InventoryReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex(DEVICES).where({ id: params.device_id }).first('id'))) throw CommonErrors.notFound({ field: 'device_id' })
        return d.references.device.report([params.device_id], knex)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/device-groups/{device_group_id}/references',
      permission: INVENTORY_READ,
      summary: 'What refers to a device group',
      description:
        '`blocking`: records of other plugins naming the group (an AAA policy rule whose WHERE is the group, a NAC policy rule condition…); while there is one, DELETE answers 409 GROUP_IN_USE. `auto_clearing`: references a delete removes by itself. The devices and subgroups in the group are counted in `device_count` and `child_count`, not here.',
      tags: ['inventory'],
      schema: { params: DeviceGroupParams, response: { 200: InventoryReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex(GROUPS).where({ id: params.device_group_id }).first('id'))) throw CommonErrors.notFound({ field: 'device_group_id' })
        return d.references.device_group.report([params.device_group_id], knex)
      },
    }),
  ]
}
