/** The plugin's coded errors; messages live in locales/ under the `nac` namespace. */
import { defineError, PortcullisError } from '../../sdk/index.js'
import type { ValueProblem } from './services/values.js'

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
  // The CSV file as a whole (unreadable, a column unknown or missing, too many rows): the SDK's ImportErrors (services/csv.ts).
  // Authorization profiles and the NAC policy (docs/nac.md).
  profileNameTaken: defineError(409, 'AUTHORIZATION_PROFILE_NAME_TAKEN', 'nac:errors.profile_name_taken'),
  /** NAC rules give the profile: deleting it would leave them giving nothing. */
  profileInUse: defineError(409, 'PROFILE_IN_USE', 'nac:errors.profile_in_use'),
  vlanInvalid: defineError(422, 'VLAN_INVALID', 'nac:errors.vlan_invalid'),
  redirectNotUrl: defineError(422, 'VALIDATION_FAILED', 'nac:errors.redirect_not_url'),
  redirectNeedsAcl: defineError(422, 'VALIDATION_FAILED', 'nac:errors.redirect_needs_acl'),
  reauthNeedsTimeout: defineError(422, 'VALIDATION_FAILED', 'nac:errors.reauth_needs_timeout'),
  denyWithAttributes: defineError(422, 'VALIDATION_FAILED', 'nac:errors.deny_with_attributes'),
  ruleNameTaken: defineError(409, 'NAC_RULE_NAME_TAKEN', 'nac:errors.rule_name_taken'),
  /** The default rule answers every request no other rule takes: it cannot go (409: the request is fine, the state forbids it). */
  defaultProtected: defineError(409, 'DEFAULT_RULE_PROTECTED', 'nac:errors.default_protected'),
  /** The default rule stays last, enabled and unconditioned: only its name, description and profile change. */
  defaultFixed: defineError(422, 'DEFAULT_RULE_FIXED', 'nac:errors.default_fixed'),
  positionRange: defineError(422, 'VALIDATION_FAILED', 'nac:errors.position_range'),
  /** A condition the schema's shape lets through but that would not mean what it says (services/conditions.ts). */
  conditionInvalid: defineError(422, 'VALIDATION_FAILED', 'nac:errors.condition_invalid'),
  orderDuplicate: defineError(422, 'RULE_ORDER_DUPLICATE', 'nac:errors.order_duplicate'),
  orderIncomplete: defineError(422, 'RULE_ORDER_INCOMPLETE', 'nac:errors.order_incomplete'),
  defaultNotLast: defineError(422, 'DEFAULT_RULE_NOT_LAST', 'nac:errors.default_not_last'),
  /** The policy test: a field that does not go with the method (a username for MAB, a certificate without EAP-TLS). */
  testField: defineError(422, 'VALIDATION_FAILED', 'nac:errors.test_field'),
  /** The policy test: no device FreeRADIUS would answer as this NAS. */
  testNasUnknown: defineError(422, 'REFERENCE_NOT_FOUND', 'nac:errors.test_nas_unknown'),
  /** The policy test `against: deployed` with no active FreeRADIUS release keeping the NAC inputs. */
  testNotDeployed: defineError(409, 'POLICY_TEST_NOT_DEPLOYED', 'nac:errors.test_not_deployed'),
  /** The change impact: no AAA logs plugin in the edition, so no traffic to replay. */
  impactNoLogs: defineError(409, 'IMPACT_LOGS_UNAVAILABLE', 'nac:errors.impact_no_logs'),
  /** The change impact: the active FreeRADIUS release was rendered before its NAC inputs were kept (services/impact-inputs.ts). */
  impactNotKept: defineError(409, 'IMPACT_NOT_DEPLOYED', 'nac:errors.impact_not_kept'),
  // Profiling and sessions (migration 0003).
  /** Another profiling rule has this name (case-insensitively). */
  profilingRuleNameTaken: defineError(409, 'PROFILING_RULE_NAME_TAKEN', 'nac:errors.profiling_rule_name_taken'),
} as const

/** What a NAC rule or the policy test references; messages under `nac:errors.missing.` and `nac:errors.unavailable.`. */
export type NacRefKind = 'user_group' | 'endpoint_group' | 'device_group' | 'authorization_profile' | 'rule' | 'device'

/** 422 REFERENCE_NOT_FOUND at `field`: an id naming no record of its kind, or (`unavailable`) of a kind whose plugin the edition lacks. */
export const nacReferenceNotFound = (kind: NacRefKind, field: string, id: string, unavailable = false) =>
  new PortcullisError(422, 'REFERENCE_NOT_FOUND', `nac:errors.${unavailable ? 'unavailable' : 'missing'}.${kind}`, { field, vars: { id } })

/** 422 VALIDATION_FAILED at `field`: a value that cannot be written into the FreeRADIUS configuration (services/values.ts). */
export const valueError = (reason: ValueProblem, field: string) => new PortcullisError(422, 'VALIDATION_FAILED', `nac:errors.value.${reason}`, { field })

/** The three MAC refusals, by parse reason. */
export const macError = (reason: 'invalid' | 'group' | 'zero') => (reason === 'group' ? NacErrors.macGroup : reason === 'zero' ? NacErrors.macZero : NacErrors.macInvalid)

// ---- Change of Authorization ----
export const CoaErrors = {
  /** The endpoint was never seen by a NAS (no `last_nas_ip`): there is no session to change. */
  noNas: defineError(409, 'COA_NO_NAS', 'nac:errors.coa_no_nas'),
  /** No enabled inventory device answers for the endpoint's last NAS address (or there is no inventory). */
  nasUnknown: defineError(409, 'COA_NAS_UNKNOWN', 'nac:errors.coa_nas_unknown'),
  /** The device has no RADIUS secret: a CoA could not be signed. */
  nasNoSecret: defineError(409, 'COA_NAS_NO_SECRET', 'nac:errors.coa_nas_no_secret'),
  /** PUT /nac/coa-nas/{device_id} for a device the inventory does not have. */
  deviceNotFound: defineError(404, 'NOT_FOUND', 'nac:errors.coa_device_not_found'),
} as const
