/** The plugin's coded errors; messages live in locales/ under the `inventory` namespace. */
import { defineError } from '../../sdk/index.js'

export const InventoryErrors = {
  deviceNameTaken: defineError(409, 'DEVICE_NAME_TAKEN', 'inventory:errors.device_name_taken'),
  /** Not an address or prefix: `abc`, `10.0.0.300`, `10.0.0.0/33`. */
  addressInvalid: defineError(422, 'ADDRESS_INVALID', 'inventory:errors.address_invalid'),
  /** `10.1.2.3/16`: a typo far more often than a request for the whole /16, so it is refused, naming the network. */
  addressHostBits: defineError(422, 'ADDRESS_HOST_BITS', 'inventory:errors.address_host_bits'),
  /** Two devices with the same prefix: the daemons could not tell which one a client is. */
  addressTaken: defineError(409, 'ADDRESS_TAKEN', 'inventory:errors.address_taken'),
  groupNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'inventory:errors.group_not_found'),
  /** Another plugin's record (a policy rule) still points at the device. */
  deviceInUse: defineError(409, 'DEVICE_IN_USE', 'inventory:errors.device_referenced'),
  groupNameTaken: defineError(409, 'DEVICE_GROUP_NAME_TAKEN', 'inventory:errors.group_name_taken'),
  groupCycle: defineError(422, 'GROUP_CYCLE', 'inventory:errors.group_cycle'),
  groupTooDeep: defineError(422, 'GROUP_TOO_DEEP', 'inventory:errors.group_too_deep'),
  /** Devices or child groups still in the group: deleting it would silently move them to the top level. */
  groupInUse: defineError(409, 'GROUP_IN_USE', 'inventory:errors.group_in_use'),
  /** Another plugin's record (a policy rule) still points at the group. */
  groupReferenced: defineError(409, 'GROUP_IN_USE', 'inventory:errors.group_referenced'),
} as const
