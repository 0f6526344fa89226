/** Network access devices: the clients the TACACS+ and RADIUS daemons accept, with their shared secrets. */
import { defineRoute, ErrorBody, isReferenceViolation, paginate, referrerList, reply, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { Device } from '../api.js'
import { InventoryErrors as E } from '../errors.js'
import { INVENTORY_READ, INVENTORY_WRITE } from '../permissions.js'
import { parseHost } from '../services/address.js'
import { SUBTREE_IDS } from '../services/hierarchy.js'
import { DEVICES, loadDevice, selectDevices, toDevice } from '../services/rows.js'
import { DeviceCreate, DeviceListQuery, DeviceListResponse, DeviceParams, DeviceResponse, DeviceUpdate, OVERLAP_RULE } from '../schemas/devices.js'
import type { InventoryRouteDeps } from './deps.js'
import { changeDevice, insertDevice } from './device-writes.js'

const SECRETS =
  '`tacacs_key` and `radius_secret` are write-only: they are sealed with the master key and never returned; `has_tacacs_key` and `has_radius_secret` say whether they are set, and the audit trail records only that.'

export function deviceRoutes(d: InventoryRouteDeps) {
  const { knex, secrets } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/devices',
      permission: INVENTORY_READ,
      summary: 'List network devices',
      description: `\`search\` matches name, address, vendor, model and description. \`sort_by=address\` orders by address family, then network, then prefix length. ${OVERLAP_RULE}`,
      tags: ['inventory'],
      schema: { query: DeviceListQuery, response: { 200: DeviceListResponse } },
      handler: async ({ query }) => {
        // Parsed before the query runs: a malformed address is the caller's 422, not a database cast error.
        const contains = query.address_contains === undefined ? undefined : parseHost(query.address_contains)
        if (contains === null) throw E.addressInvalid({ field: 'address_contains' })
        return paginate(query, {
          base: () => selectDevices(knex),
          equals: { enabled: `${DEVICES}.enabled` },
          filter: (qb) => {
            if (query.device_group_id) {
              if (query.include_subgroups) qb.whereRaw(`${DEVICES}.device_group_id IN (${SUBTREE_IDS})`, [query.device_group_id])
              else qb.where(`${DEVICES}.device_group_id`, query.device_group_id)
            }
            if (query.vendor !== undefined) qb.whereRaw(`lower(${DEVICES}.vendor) = lower(?)`, [query.vendor])
            if (contains !== undefined) qb.whereRaw(`${DEVICES}.address_cidr >>= ?::inet`, [contains])
          },
          searchColumns: [`${DEVICES}.name`, `${DEVICES}.address`, `${DEVICES}.vendor`, `${DEVICES}.model`, `${DEVICES}.description`],
          sortColumns: {
            name: `${DEVICES}.name`,
            address: `${DEVICES}.address_cidr`,
            vendor: `${DEVICES}.vendor`,
            created_at: `${DEVICES}.created_at`,
            updated_at: `${DEVICES}.updated_at`,
          },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: `${DEVICES}.id`,
          map: toDevice,
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/devices',
      permission: INVENTORY_WRITE,
      summary: 'Add a network device',
      description: `Name taken (case-insensitively): 409 DEVICE_NAME_TAKEN. ${OVERLAP_RULE} ${SECRETS}`,
      tags: ['inventory'],
      schema: { body: DeviceCreate, response: { 201: DeviceResponse, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const device = await insertDevice(trx, secrets, req.body)
          await req.audit({ action: 'device.create', resourceType: 'device', resourceId: device.id, after: device }, trx)
          return device
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/devices/{device_id}',
      permission: INVENTORY_READ,
      summary: 'Get a network device',
      description: SECRETS,
      tags: ['inventory'],
      schema: { params: DeviceParams, response: { 200: DeviceResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await loadDevice(knex, params.device_id), 'device_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/devices/{device_id}',
      permission: INVENTORY_WRITE,
      summary: 'Change a network device',
      description: `Partial: only the fields given change. \`device_group_id: null\` takes the device out of its group. For the keys, \`null\` removes, absence keeps. ${OVERLAP_RULE} ${SECRETS}`,
      tags: ['inventory'],
      schema: { params: DeviceParams, body: DeviceUpdate, response: { 200: DeviceResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const { before, after, secretsChanged } = await changeDevice(trx, d, req.params.device_id, req.body)
          await req.audit({ action: 'device.update', resourceType: 'device', resourceId: after.id, before, after: { ...after, secrets_changed: secretsChanged } }, trx)
          return after
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/devices/{device_id}',
      permission: INVENTORY_WRITE,
      summary: 'Remove a network device',
      description: 'The device and its sealed keys go. A device still referenced by another plugin (an AAA policy rule naming it) answers 409 DEVICE_IN_USE, whose detail names the references.',
      tags: ['inventory'],
      schema: { params: DeviceParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.device_id
        await req.transaction(async (trx) => {
          const before: Device = await lockForChange(trx, DEVICES, id, 'device_id', loadDevice)
          // The contract with referring plugins (sdk/references.ts): they registered guards, never foreign keys.
          const referrers = await d.references.device.beforeDelete([id], trx)
          if (referrers.length) throw E.deviceInUse({ field: 'device_id', vars: { referrers: referrerList(referrers) } })
          await trx(DEVICES)
            .where({ id })
            .delete()
            .catch((e: unknown) => {
              // A foreign key that still points here (an out-of-tree plugin's schema): a 409 all the same.
              throw isReferenceViolation(e) ? E.deviceInUse({ field: 'device_id', vars: { referrers: '…' } }) : e
            })
          await req.audit({ action: 'device.delete', resourceType: 'device', resourceId: id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
