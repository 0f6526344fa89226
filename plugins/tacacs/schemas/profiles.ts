import { listQuery, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ObjectName } from './common.js'

export const MAX_SHELL_ATTRIBUTES = 30
export const MAX_PROFILE_COMMAND_SETS = 100

export const MAX_SERVICES = 10
/** An AV pair travels as `name=value` (or `name*value`) in one argument of at most 255 bytes. */
export const MAX_AV_PAIR_BYTES = 255

/** An attribute name: letters, digits, `_`, `-`, with one `:` for a vendor prefix (`shell:roles`). */
const AttributeName = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_-]*(?::[A-Za-z][A-Za-z0-9_-]*)?$', description })

const attributeFields = {
  value: Type.String({
    maxLength: 250,
    // Printable ASCII; written in double quotes with `"` and `\` escaped and `%` doubled. Not `${`, which
    // tac_plus-ng replaces (its variables, the environment) whatever the quoting.
    pattern: '^(?:[ -#%-~]|\\$(?!\\{))*$',
    description:
      'Printable ASCII (`"` and `\\` included, as NX-OS wants `"network-admin"` in quotes), without `${`. The pair `name=value` must fit 255 bytes (422 ATTRIBUTE_TOO_LONG).',
  }),
  optional: Type.Optional(
    Type.Boolean({
      // No `default`: the response writer would then add `optional: false` to attributes stored without it.
      description:
        'Absent or false: mandatory, sent as `name=value` (tac_plus-ng `set`): a NAS that does not know the attribute fails the authorization. true: optional, sent as `name*value` whether or not the NAS asked (tac_plus-ng `add`): a NAS that does not know it ignores it (NX-OS roles beside IOS devices).',
    }),
  ),
}

export const ShellAttribute = Type.Object(
  {
    name: AttributeName(
      'A TACACS+ attribute of service shell: `idletime`, `timeout`, `autocmd`, `noescape`, or a vendor attribute name (`shell:roles` for NX-OS). `priv-lvl` is `privilege_level`; `service`, `cmd`, `cmd-arg` and `protocol` are the request\'s own (422 SHELL_ATTRIBUTE_RESERVED).',
    ),
    ...attributeFields,
  },
  { title: 'TacacsShellAttribute', additionalProperties: false },
)

export const ServiceAttribute = Type.Object(
  {
    name: AttributeName('An attribute of the service (`local-user-name`, `allow-commands`, `memberof`, `role1` …). `service`, `cmd`, `cmd-arg` and `protocol` are the request\'s own (422 SHELL_ATTRIBUTE_RESERVED).'),
    ...attributeFields,
  },
  { title: 'TacacsServiceAttribute', additionalProperties: false },
)

export const ProfileService = Type.Object(
  {
    service: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description:
        'The TACACS+ service a NAS asks authorization for, exactly as it sends it (tac_plus-ng compares case-sensitively): `junos-exec` (Juniper), `fortigate` (Fortinet), `PaloAlto` (Palo Alto), `ciscowlc` (Cisco WLC), … Not `shell`: that is `privilege_level`, `shell_attributes` and the command sets (422 TACACS_SERVICE_SHELL); each service once (422 TACACS_SERVICE_DUPLICATE).',
    }),
    attributes: Type.Array(ServiceAttribute, { maxItems: MAX_SHELL_ATTRIBUTES, description: 'Returned when the service is authorized: the mandatory ones in this order, then the optional ones in this order (as tac_plus-ng sends them).' }),
  },
  { title: 'TacacsProfileService', additionalProperties: false },
)

const fields = {
  name: ObjectName('The profile name.'),
  description: OptionalText({ maxLength: 500 }),
  privilege_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 15, default: 1, description: 'Given at the start of an exec shell; default 1.' })),
  shell_attributes: Type.Optional(Type.Array(ShellAttribute, { maxItems: MAX_SHELL_ATTRIBUTES, description: 'Set at the start of an exec shell after priv-lvl: the mandatory ones in this order, then the optional ones in this order (as tac_plus-ng sends them).' })),
  command_set_ids: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: MAX_PROFILE_COMMAND_SETS,
      uniqueItems: true,
      description: 'Applied in this order: the first matching command of the first set that has one decides. Each must exist (422 REFERENCE_NOT_FOUND at `command_set_ids[i]`).',
    }),
  ),
  default_action: Type.Optional(StringEnum(['permit', 'deny'] as const, { default: 'deny', description: 'For a command no set matches; default deny.' })),
  services: Type.Optional(
    Type.Array(ProfileService, {
      maxItems: MAX_SERVICES,
      description:
        'Services other than shell that the profile authorizes (permit) with their attributes; any other service is denied. Replaces the whole list. Default none.',
    }),
  ),
  enable_mode: Type.Optional(
    StringEnum(['none', 'login', 'secret'] as const, {
      default: 'none',
      description:
        'TACACS+ enable (the NAS `enable` command, `aaa authentication enable default group tacacs+`) for the users a rule gives this profile: `none` refuses it (default); `login` takes the user\'s own network password (tac_plus-ng `enable N = login`); `secret` takes the profile\'s `enable_secret`. Changing away from `secret` forgets the stored secret.',
    }),
  ),
  enable_privilege_level: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 15, default: 15, description: 'The highest level enable grants (default 15): `enable` (level 15) and `enable N` up to it pass, a NAS asking for a higher level is refused.' }),
  ),
  enable_secret: Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: 128,
      writeOnly: true,
      // No control characters (a NUL could never be typed on the device's prompt).
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description:
        'Write-only, 8 to 128 characters without control characters: the enable secret with `enable_mode` `secret` (required when none is stored yet; 422 ENABLE_SECRET_REQUIRED, and with another mode 422 ENABLE_SECRET_UNUSED). Only its SHA-512 crypt verifier is stored and rendered; responses say `has_enable_secret`.',
    }),
  ),
}

export const TacacsProfileCreate = Type.Object(fields, { title: 'TacacsProfileCreate', additionalProperties: false })

export const TacacsProfileUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'TacacsProfileUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `shell_attributes`, `services` and `command_set_ids` replace the whole list.' },
)

export const TacacsProfileResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    privilege_level: Type.Integer({ minimum: 0, maximum: 15 }),
    shell_attributes: Type.Array(ShellAttribute),
    command_set_ids: Type.Array(Uuid()),
    default_action: StringEnum(['permit', 'deny'] as const),
    services: Type.Array(ProfileService),
    enable_mode: StringEnum(['none', 'login', 'secret'] as const),
    enable_privilege_level: Type.Integer({ minimum: 0, maximum: 15 }),
    has_enable_secret: Type.Boolean({ description: 'An enable secret is stored (its verifier is never returned).' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'TacacsProfileResponse', additionalProperties: false },
)

export const TacacsProfilePage = Paginated(TacacsProfileResponse, 'TacacsProfilePage')

export const TacacsProfileParams = Type.Object({ profile_id: Uuid() }, { additionalProperties: false })

export const TacacsProfileListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at'] as const })

export type TacacsProfileCreate = Static<typeof TacacsProfileCreate>
export type TacacsProfileUpdate = Static<typeof TacacsProfileUpdate>
