/** The plugin's coded errors; messages live in locales/ under the `aaa-logs` namespace. */
import { defineError } from '../../sdk/index.js'

export const AaaLogsErrors = {
  exclusionNameTaken: defineError(409, 'LOG_EXCLUSION_NAME_TAKEN', 'aaa-logs:errors.exclusion_name_taken'),
  usernameInvalid: defineError(422, 'LOG_EXCLUSION_VALUE_INVALID', 'aaa-logs:errors.username_invalid'),
  patternInvalid: defineError(422, 'LOG_EXCLUSION_VALUE_INVALID', 'aaa-logs:errors.pattern_invalid'),
  groupUnknown: defineError(422, 'USER_GROUP_UNKNOWN', 'aaa-logs:errors.group_unknown'),
  nasIpInvalid: defineError(422, 'VALIDATION_FAILED', 'aaa-logs:errors.nas_ip_invalid'),
} as const
