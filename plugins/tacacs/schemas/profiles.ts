import { listQuery, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ObjectName } from './common.js'

export const MAX_SHELL_ATTRIBUTES = 30
export const MAX_PROFILE_COMMAND_SETS = 100

export const ShellAttribute = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
      description: 'A TACACS+ attribute of service shell: `idletime`, `timeout`, `autocmd`, `noescape`, or a vendor attribute name. `priv-lvl` is `privilege_level`; `service`, `cmd`, `cmd-arg` and `protocol` are the request\'s own (422 SHELL_ATTRIBUTE_RESERVED).',
    }),
    value: Type.String({
      maxLength: 200,
      // Printable ASCII without `"`, `$` and `\`: it is written in double quotes, where tac_plus-ng expands `${…}`.
      pattern: '^[ !#%-\\[\\]-~]*$',
      description: 'Printable ASCII, without `"`, `$` or `\\`.',
    }),
  },
  { title: 'TacacsShellAttribute', additionalProperties: false },
)

const fields = {
  name: ObjectName('The profile name.'),
  description: OptionalText({ maxLength: 500 }),
  privilege_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 15, default: 1, description: 'Given at the start of an exec shell; default 1.' })),
  shell_attributes: Type.Optional(Type.Array(ShellAttribute, { maxItems: MAX_SHELL_ATTRIBUTES, description: 'Set at the start of an exec shell, in this order.' })),
  command_set_ids: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: MAX_PROFILE_COMMAND_SETS,
      uniqueItems: true,
      description: 'Applied in this order: the first matching command of the first set that has one decides. Each must exist (422 REFERENCE_NOT_FOUND at `command_set_ids[i]`).',
    }),
  ),
  default_action: Type.Optional(StringEnum(['permit', 'deny'] as const, { default: 'deny', description: 'For a command no set matches; default deny.' })),
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
      minLength: 1,
      maxLength: 128,
      // No control characters (a NUL could never be typed on the device's prompt).
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description:
        'Write-only: the enable secret with `enable_mode` `secret` (required when none is stored yet; 422 ENABLE_SECRET_REQUIRED, and with another mode 422 ENABLE_SECRET_UNUSED). Only its SHA-512 crypt verifier is stored and rendered; responses say `has_enable_secret`.',
    }),
  ),
}

export const TacacsProfileCreate = Type.Object(fields, { title: 'TacacsProfileCreate', additionalProperties: false })

export const TacacsProfileUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'TacacsProfileUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `shell_attributes` and `command_set_ids` replace the whole list.' },
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
