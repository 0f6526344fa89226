/**
 * The inventory's contract with other plugins: network access devices and
 * device groups. Other plugins import this file (through index.ts) and reach
 * the implementation through `inventoryServiceRef`.
 */
import type { Knex } from 'knex'
import { createServiceRef, type ReferenceTarget } from '../../sdk/index.js'

/** A network access device (switch, router, firewall, wireless controller). */
export interface Device {
  id: string
  name: string
  /** Management address or prefix in CIDR form, IPv4 or IPv6 (`10.0.0.1/32`, `10.1.0.0/16`, `2001:db8::/64`). */
  address: string
  vendor: string | null
  model: string | null
  description: string | null
  device_group_id: string | null
  enabled: boolean
  has_tacacs_key: boolean
  has_radius_secret: boolean
  created_at: string
  updated_at: string
}

export interface DeviceGroup {
  id: string
  name: string
  description: string | null
  /** Hierarchy: a group inherits membership into its ancestors. */
  parent_id: string | null
  created_at: string
  updated_at: string
}

type Db = Knex | Knex.Transaction

export interface InventoryService {
  getDevice(id: string, db?: Db): Promise<Device | null>
  /** Every device, ordered by name; renderers pass their snapshot. */
  listDevices(db?: Db): Promise<Device[]>
  getGroup(id: string, db?: Db): Promise<DeviceGroup | null>
  /** Every group, ordered by name. */
  listGroups(db?: Db): Promise<DeviceGroup[]>
  /** Decrypted keys, for renderers only (they land in 0600 daemon files). */
  deviceSecrets(id: string, db?: Db): Promise<{ tacacs_key: string | null; radius_secret: string | null }>
  /**
   * One kind of secret of every device that has one, decrypted, by device id: one statement for
   * all devices (a renderer passes its snapshot), instead of `deviceSecrets` once per device.
   */
  allDeviceSecrets(kind: 'tacacs_key' | 'radius_secret', db?: Db): Promise<Map<string, string>>
  /**
   * The enabled device whose prefix contains `ip`, the most specific (longest) prefix winning,
   * as tac_plus-ng and FreeRADIUS choose a client. Null when none contains it.
   */
  findDeviceByAddress(ip: string, db?: Db): Promise<Device | null>
  /**
   * The client FreeRADIUS answers an address (or every address of a prefix) as: the enabled device
   * with a RADIUS secret whose prefix contains it, the most specific winning. clients.conf holds
   * exactly those devices, so a device without a secret (or disabled) inside a wider one that has
   * one is answered as that wider one. Null when none contains it.
   */
  findRadiusClient(address: string, db?: Db): Promise<Device | null>
  /** The group and every ancestor, nearest first. */
  groupAncestry(groupId: string, db?: Db): Promise<string[]>
  /** The ids of every group the device belongs to: its own group and that group's ancestors. */
  deviceGroupIds(deviceId: string, db?: Db): Promise<string[]>
  /** A group and all its descendants (for "device in group" filters). */
  groupDescendants(groupId: string, db?: Db): Promise<string[]>
  /**
   * Devices and device groups as other plugins reference them (sdk/references.ts): ids checked
   * and locked, names, and the guards the inventory consults when it deletes or renames one (a
   * `restrict` guard's reference answers 409 DEVICE_IN_USE / GROUP_IN_USE). Nobody else touches
   * the inventory's tables.
   */
  references: { device: ReferenceTarget; device_group: ReferenceTarget }
}

export const inventoryServiceRef = createServiceRef<InventoryService>({ id: 'inventory.service' })
