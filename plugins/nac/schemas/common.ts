import { Type, referenceReportSchema } from '../../../sdk/index.js'

/**
 * Group names will be written into FreeRADIUS configuration by the NAC
 * policy's renderer: letters, digits and `. _ -`, starting with a letter or
 * digit, as device group names are. No spaces, quotes or braces.
 */
export const ConfigName = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description })

/**
 * A device type as profiling rules, groups' placement rules and admins write it: the NAC policy names
 * device types in its conditions, rendered into FreeRADIUS configuration, so the same safe alphabet
 * as group names (`printer`, `ip-phone`, `apple-ios`). Compared case-insensitively.
 */
export const DeviceType = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description })

export const MAC_NOTATIONS =
  'Any common notation, upper or lower case: `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff` (Cisco), `aabb-ccdd-eeff`, `aabbcc:ddeeff`, `aabbcc-ddeeff`, `aabbccddeeff`, and six groups without leading zeros (`0:1b:63:84:45:e6`); spaces at either end are dropped. Stored and returned as `aa:bb:cc:dd:ee:ff`.'

export const MAC_REFUSALS =
  'Not a MAC in one of those notations (mixed separators, other characters, a wrong length): 422 MAC_INVALID. A group address (the first octet odd: multicast, or the broadcast `ff:ff:ff:ff:ff:ff`): 422 MAC_GROUP_ADDRESS. `00:00:00:00:00:00`: 422 MAC_ZERO.'

export const NacReferenceReport = referenceReportSchema({
  title: 'NacReferenceReport',
  referenceTitle: 'NacReference',
  types: "`nac_policy_rule` (a NAC policy rule whose condition names the group), or another plugin's record.",
})
