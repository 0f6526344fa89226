/** The plugin's coded errors; messages live in locales/ under the `tacacs` namespace. */
import { defineError, PortcullisError } from '../../sdk/index.js'
import type { RegexProblem } from '../../sdk/index.js'

export const TacacsErrors = {
  commandSetNameTaken: defineError(409, 'COMMAND_SET_NAME_TAKEN', 'tacacs:errors.command_set_name_taken'),
  /** `detail` names the profiles (the first 20 of `count`). */
  commandSetInUse: defineError(409, 'COMMAND_SET_IN_USE', 'tacacs:errors.command_set_in_use'),
  profileNameTaken: defineError(409, 'TACACS_PROFILE_NAME_TAKEN', 'tacacs:errors.profile_name_taken'),
  commandSetNotFound: defineError(422, 'REFERENCE_NOT_FOUND', 'tacacs:errors.command_set_not_found'),
  shellAttributeReserved: defineError(422, 'SHELL_ATTRIBUTE_RESERVED', 'tacacs:errors.shell_attribute_reserved'),
  shellAttributePrivLvl: defineError(422, 'SHELL_ATTRIBUTE_RESERVED', 'tacacs:errors.shell_attribute_priv_lvl'),
  /** `detail` says how many bytes the pair takes. */
  attributeTooLong: defineError(422, 'ATTRIBUTE_TOO_LONG', 'tacacs:errors.attribute_too_long'),
  serviceShell: defineError(422, 'TACACS_SERVICE_SHELL', 'tacacs:errors.service_shell'),
  serviceDuplicate: defineError(422, 'TACACS_SERVICE_DUPLICATE', 'tacacs:errors.service_duplicate'),
  enableSecretRequired: defineError(422, 'ENABLE_SECRET_REQUIRED', 'tacacs:errors.enable_secret_required'),
  enableSecretUnused: defineError(422, 'ENABLE_SECRET_UNUSED', 'tacacs:errors.enable_secret_unused'),
}

/** 422 REGEX_INVALID, its detail saying what the pattern breaks. */
export const regexInvalid = (problem: RegexProblem, field: string) => new PortcullisError(422, 'REGEX_INVALID', `tacacs:errors.regex.${problem}`, { field })
