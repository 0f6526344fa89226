/** The plugin's coded errors; messages live in locales/ under the `nac` namespace. */
import { defineError } from '../../sdk/index.js'

export const NacErrors = {
  /** Not a MAC in any accepted notation (services/mac.ts). */
  macInvalid: defineError(422, 'MAC_INVALID', 'nac:errors.mac_invalid'),
  /** A group address (multicast, broadcast): no endpoint sends from one. */
  macGroup: defineError(422, 'MAC_GROUP_ADDRESS', 'nac:errors.mac_group'),
  /** 00:00:00:00:00:00: what a NAS reports when it has no address. */
  macZero: defineError(422, 'MAC_ZERO', 'nac:errors.mac_zero'),
  /** Another endpoint has this MAC (in any notation). */
  macTaken: defineError(409, 'ENDPOINT_MAC_TAKEN', 'nac:errors.mac_taken'),
  groupNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'nac:errors.group_not_found'),
  ownerNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'nac:errors.owner_not_found'),
  groupNameTaken: defineError(409, 'ENDPOINT_GROUP_NAME_TAKEN', 'nac:errors.group_name_taken'),
  /** Endpoints are still in the group: deleting it would silently ungroup them. */
  groupInUse: defineError(409, 'GROUP_IN_USE', 'nac:errors.group_in_use'),
  /** Another plugin's record (a NAC policy rule) still points at the group. */
  groupReferenced: defineError(409, 'GROUP_IN_USE', 'nac:errors.group_referenced'),
  /** Another plugin's record still points at the endpoint. */
  endpointInUse: defineError(409, 'ENDPOINT_IN_USE', 'nac:errors.endpoint_referenced'),
  /** An import row names a group that does not exist. */
  groupNameNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'nac:errors.group_name_not_found'),
  /** An import row names an owner that does not exist. */
  ownerNameNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'nac:errors.owner_name_not_found'),
  /** An import row is malformed: more or fewer cells than the header, a description too long or with control characters. */
  importRowWidth: defineError(422, 'IMPORT_ROW_INVALID', 'nac:errors.import_row_width'),
  importRowDescriptionLong: defineError(422, 'IMPORT_ROW_INVALID', 'nac:errors.import_row_description_long'),
  importRowDescriptionText: defineError(422, 'IMPORT_ROW_INVALID', 'nac:errors.import_row_description_text'),
  /** An import row repeats the MAC of an earlier row (in any notation). */
  importDuplicate: defineError(409, 'DUPLICATE_IN_FILE', 'nac:errors.import_duplicate'),
  /** The CSV file as a whole cannot be imported (services/csv.ts): one code, a message for each reason. */
  importNotUtf8: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_not_utf8'),
  importNotCsv: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_not_csv'),
  importEmpty: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_empty'),
  importNoMac: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_no_mac'),
  importUnknownColumn: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_unknown_column'),
  importRepeatedColumn: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_repeated_column'),
  importTooManyRows: defineError(422, 'IMPORT_INVALID', 'nac:errors.import_too_many_rows'),
  // Profiling and sessions (migration 0003).
  /** Another profiling rule has this name (case-insensitively). */
  profilingRuleNameTaken: defineError(409, 'PROFILING_RULE_NAME_TAKEN', 'nac:errors.profiling_rule_name_taken'),
} as const

/** The three MAC refusals, by parse reason. */
export const macError = (reason: 'invalid' | 'group' | 'zero') => (reason === 'group' ? NacErrors.macGroup : reason === 'zero' ? NacErrors.macZero : NacErrors.macInvalid)
