/**
 * GET /devices/covering: which device entries contain an address, most
 * specific first, and which one each daemon answers it as. The choice is the
 * inventory service's own (findDeviceByAddress, findRadiusClient), the same
 * the policy test and the renderers use, not a copy of it.
 */
import { defineRoute, ErrorBody } from '../../../sdk/index.js'
import { InventoryErrors as E } from '../errors.js'
import { INVENTORY_READ } from '../permissions.js'
import { parseHost } from '../services/address.js'
import { DEVICES, selectDevices, toDevice } from '../services/rows.js'
import { CoveringQuery, CoveringResponse, OVERLAP_RULE } from '../schemas/devices.js'
import type { InventoryRouteDeps } from './deps.js'

export function deviceCoveringRoutes(d: InventoryRouteDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/devices/covering',
      permission: INVENTORY_READ,
      summary: 'Find the device entries that cover an address',
      description: `Every device whose prefix contains \`address\`, enabled or not, the most specific (longest prefix) first. Prefixes are unique, so there are at most 33 (IPv4) or 129 (IPv6) and the answer is not paginated. An IPv4-mapped IPv6 address (\`::ffff:10.0.0.1\`) is looked up as IPv4, as the daemons see it. \`tacacs_client\` marks the device tac_plus-ng answers the address as; \`radius_client\` the client FreeRADIUS answers it as (the most specific enabled device with a RADIUS secret: clients.conf holds only those). ${OVERLAP_RULE} Not one address: 422 ADDRESS_INVALID at \`address\`.`,
      tags: ['inventory'],
      schema: { query: CoveringQuery, response: { 200: CoveringResponse, 422: ErrorBody } },
      handler: async ({ query }) => {
        const host = parseHost(query.address)
        if (host === null) throw E.addressInvalid({ field: 'address' })
        const tacacs = await d.inventory.findDeviceByAddress(host)
        const radius = await d.inventory.findRadiusClient(host)
        const rows = await selectDevices(d.knex).whereRaw(`${DEVICES}.address_cidr >>= ?::inet`, [host]).orderByRaw(`masklen(${DEVICES}.address_cidr) DESC`)
        return {
          address: host,
          items: rows.map(toDevice).map((device) => ({
            device,
            prefix_length: Number(device.address.split('/')[1]),
            tacacs_client: device.id === tacacs?.id,
            radius_client: device.id === radius?.id,
          })),
        }
      },
    }),
  ]
}
