/** The inventory service other plugins reach through `inventoryServiceRef` (see api.ts). */
import type { Knex } from 'knex'
import type { SecretsService } from '../../../sdk/index.js'
import type { Device, InventoryService } from '../api.js'
import { parseHost, parsePrefix } from './address.js'
import { deviceGroupIds, groupAncestry, groupDescendants } from './hierarchy.js'
import { DEVICES, isUuid, loadDevice, loadGroup, selectDevices, selectGroups, toDevice, toGroup } from './rows.js'

/** Purposes the device secrets are sealed under: a value sealed as one cannot be opened as the other. */
export const SEAL = { tacacs_key: 'inventory.tacacs_key', radius_secret: 'inventory.radius_secret' } as const

export function createInventoryService(knex: Knex, secrets: SecretsService, references: InventoryService['references']): InventoryService {
  return {
    references,

    getDevice: (id, db = knex) => loadDevice(db, id),

    // Ordered by name, then id: names are unique already, the id only makes the order total whatever the collation.
    async listDevices(db = knex) {
      return (await selectDevices(db).orderBy('name').orderBy('id')).map(toDevice)
    },

    getGroup: (id, db = knex) => loadGroup(db, id),

    async listGroups(db = knex) {
      return (await selectGroups(db).orderBy('name').orderBy('id')).map(toGroup)
    },

    // An unknown device has no secrets: renderers ask only for devices they listed in the same snapshot.
    async deviceSecrets(id, db = knex) {
      if (!isUuid(id)) return { tacacs_key: null, radius_secret: null }
      const row = await db(DEVICES).where({ id }).first('tacacs_key_sealed', 'radius_secret_sealed')
      return {
        tacacs_key: row?.tacacs_key_sealed ? secrets.decrypt(SEAL.tacacs_key, row.tacacs_key_sealed) : null,
        radius_secret: row?.radius_secret_sealed ? secrets.decrypt(SEAL.radius_secret, row.radius_secret_sealed) : null,
      }
    },

    async allDeviceSecrets(kind, db = knex) {
      const column = kind === 'tacacs_key' ? 'tacacs_key_sealed' : 'radius_secret_sealed'
      const rows = await db(DEVICES).whereNotNull(column).select({ id: 'id', sealed: column })
      const out = new Map<string, string>()
      for (const r of rows) if (r.sealed !== null) out.set(r.id, secrets.decrypt(SEAL[kind], r.sealed))
      return out
    },

    /**
     * Longest prefix among enabled devices, as tac_plus-ng and FreeRADIUS pick
     * a client. Prefixes are unique, so there is never a tie. `>>=` is false
     * across address families, and parseHost turns a mapped address
     * (`::ffff:10.0.0.1`) into IPv4. Something that is not one address
     * contains no device: null.
     */
    async findDeviceByAddress(ip, db = knex): Promise<Device | null> {
      const host = parseHost(ip)
      if (host === null) return null
      const row = await selectDevices(db)
        .where('enabled', true)
        .whereRaw(`${DEVICES}.address_cidr >>= ?::inet`, [host])
        .orderByRaw(`masklen(${DEVICES}.address_cidr) DESC`)
        .first()
      return row ? toDevice(row) : null
    },

    async findRadiusClient(address, db = knex): Promise<Device | null> {
      const parsed = parsePrefix(address)
      if (!parsed.ok) return null
      const row = await selectDevices(db)
        .where('enabled', true)
        .whereNotNull(`${DEVICES}.radius_secret_sealed`)
        .whereRaw(`${DEVICES}.address_cidr >>= ?::inet`, [address])
        .orderByRaw(`masklen(${DEVICES}.address_cidr) DESC`)
        .first()
      return row ? toDevice(row) : null
    },

    groupAncestry: (groupId, db = knex) => groupAncestry(db, groupId),
    deviceGroupIds: (deviceId, db = knex) => deviceGroupIds(db, deviceId),
    groupDescendants: (groupId, db = knex) => groupDescendants(db, groupId),
  }
}
