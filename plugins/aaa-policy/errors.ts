/** The plugin's coded errors; messages live in locales/ under the `aaa-policy` namespace. See docs/aaa-policy.md. */
import { defineError, PortcullisError } from '../../sdk/index.js'

export type RefKind = 'user' | 'group' | 'device' | 'device_group' | 'tacacs_profile' | 'radius_profile' | 'rule'

export const PolicyErrors = {
  nameTaken: defineError(409, 'RULE_NAME_TAKEN', 'aaa-policy:errors.name_taken'),
  /** The contract says deleting the default rule fails; 409 because the request is fine, the state forbids it. */
  defaultProtected: defineError(409, 'DEFAULT_RULE_PROTECTED', 'aaa-policy:errors.default_protected'),
  /** The default rule matches anyone anywhere and stays last: its WHO, WHERE and position are not settable. */
  defaultFixed: defineError(422, 'DEFAULT_RULE_FIXED', 'aaa-policy:errors.default_fixed'),
  whoExactlyOne: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.who_exactly_one'),
  whereExactlyOne: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.where_exactly_one'),
  positionRange: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.position_range'),
  /** A time window or client prefix the schema's shape lets through but the daemons could not take (services/conditions.ts). */
  conditionInvalid: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.condition_invalid'),
  orderDuplicate: defineError(422, 'RULE_ORDER_DUPLICATE', 'aaa-policy:errors.order_duplicate'),
  orderIncomplete: defineError(422, 'RULE_ORDER_INCOMPLETE', 'aaa-policy:errors.order_incomplete'),
  defaultNotLast: defineError(422, 'DEFAULT_RULE_NOT_LAST', 'aaa-policy:errors.default_not_last'),
  testTarget: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.test_target'),
  testTacacsOnly: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.test_tacacs_only'),
  testCommandShell: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.test_command_shell'),
  /** A word `<cr>` other than the end marker: the daemon's answer would depend on the NAS's own marker. */
  testCommandCr: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.test_command_cr'),
  /** `ascii` or `enable` asked of RADIUS, which has neither. */
  testMethodTacacsOnly: defineError(422, 'VALIDATION_FAILED', 'aaa-policy:errors.test_method_tacacs_only'),
  /** The edition has no plugin for the protocol asked (a RADIUS-only edition asked about TACACS+): no daemon would decide. */
  testProtocolUnavailable: defineError(422, 'PROTOCOL_UNAVAILABLE', 'aaa-policy:errors.test_protocol_unavailable'),
  /** `against: deployed` with no active release of the protocol's daemon holding the policy test's inputs. */
  testNotDeployed: defineError(409, 'POLICY_TEST_NOT_DEPLOYED', 'aaa-policy:errors.test_not_deployed'),
} as const

/**
 * 422 REFERENCE_NOT_FOUND at `field`: an id in the body that names no record of its kind, or
 * (`unavailable`) a profile of a protocol whose plugin this edition does not load.
 */
export const referenceNotFound = (kind: RefKind, field: string, id: string, unavailable = false) =>
  new PortcullisError(422, 'REFERENCE_NOT_FOUND', `aaa-policy:errors.${unavailable ? 'unavailable' : 'missing'}.${kind}`, { field, vars: { id } })
