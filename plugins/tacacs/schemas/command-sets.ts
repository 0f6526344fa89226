import { listQuery, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ObjectName } from './common.js'

export const MAX_COMMANDS = 500
export const MAX_ARGUMENT_RULES = 20

/** Printable ASCII words, one space apart: what a normalized command line is made of. */
const WORDS = '[!-~]+(?: [!-~]+)*'
/** The same without quotes, slashes, backslashes and backquotes. */
const COMMAND_CHAR = '[!#-&(-.0-\\[\\]-_a-~]'

const MatchType = StringEnum(['exact', 'prefix', 'regex'] as const, {
  description: '`exact`: the arguments equal the value; `prefix`: they start with it; `regex`: the pattern matches them whole. Case-insensitive, as in tac_plus-ng.',
})

export const ArgumentRule = Type.Object(
  {
    match_type: MatchType,
    value: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: `^${WORDS}$`,
      description:
        'Printable ASCII, single spaces between words. A `regex` must stay within the subset PCRE and JavaScript read alike and must not risk catastrophic backtracking (see docs/tacacs.md): otherwise 422 REGEX_INVALID.',
    }),
  },
  { title: 'CommandArgumentRule', additionalProperties: false },
)

const command = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: `^${COMMAND_CHAR}+(?: ${COMMAND_CHAR}+)*$`,
  description: 'The command word(s) as the device sends them (`show`, `configure terminal`): printable ASCII words one space apart, no quotes, slashes or backslashes.',
})
const action = StringEnum(['permit', 'deny'] as const)
const minPrivilegeLevel = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 15,
    description:
      'The entry applies only to a request made at this privilege level or above (the `priv_lvl` a NAS such as Cisco IOS sends with each command, after `enable` 15): below it the entry is skipped and the next one decides. Absent: any level.',
  }),
)

export const CommandInput = Type.Object(
  {
    command,
    action,
    min_privilege_level: minPrivilegeLevel,
    arguments: Type.Optional(
      Type.Array(ArgumentRule, { maxItems: MAX_ARGUMENT_RULES, description: 'Empty or absent: any arguments. Otherwise the entry matches when any rule matches the arguments.' }),
    ),
  },
  { title: 'CommandSetCommandInput', additionalProperties: false },
)

export const CommandOutput = Type.Object(
  { command: Type.String(), action, min_privilege_level: minPrivilegeLevel, arguments: Type.Array(ArgumentRule) },
  { title: 'CommandSetCommand', additionalProperties: false },
)

const commands = Type.Array(CommandInput, {
  maxItems: MAX_COMMANDS,
  description: 'In matching order: the first entry that matches a command line decides.',
})

export const CommandSetCreate = Type.Object(
  {
    name: ObjectName('The command set name.'),
    description: OptionalText({ maxLength: 500 }),
    commands: Type.Optional(commands),
  },
  { title: 'CommandSetCreate', additionalProperties: false },
)

export const CommandSetUpdate = Type.Object(
  {
    name: Type.Optional(ObjectName('The command set name.')),
    description: OptionalText({ maxLength: 500 }),
    commands: Type.Optional(commands),
  },
  { title: 'CommandSetUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `commands` replaces the whole list.' },
)

export const CommandSetResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    commands: Type.Array(CommandOutput),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'CommandSetResponse', additionalProperties: false },
)

export const CommandSetListResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    command_count: Type.Integer({ minimum: 0 }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'CommandSetListResponse', additionalProperties: false },
)

export const CommandSetPage = Paginated(CommandSetListResponse, 'CommandSetPage')

export const CommandSetParams = Type.Object({ command_set_id: Uuid() }, { additionalProperties: false })

export const CommandSetListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at'] as const })

export type CommandSetCreate = Static<typeof CommandSetCreate>
export type CommandSetUpdate = Static<typeof CommandSetUpdate>
export type CommandInput = Static<typeof CommandInput>
