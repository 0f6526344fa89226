import { Name, Nullable, OptionalText, StringEnum, Type, Uuid } from '../../../sdk/index.js'

export const ProfileParams = Type.Object({ profile_id: Uuid() }, { additionalProperties: false })

const Pattern = (d: string) => Type.String({ minLength: 1, maxLength: 200, description: `${d} A safe regex (the command sets' dialect).` })
const Patterns = (d: string) => Type.Array(Pattern(d), { maxItems: 50 })

export const Profile = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    builtin: Type.Boolean({ description: 'Built-in profiles cannot be changed or deleted.' }),
    mode: StringEnum(['shell', 'exec'] as const),
    prompt: Type.String(),
    login_prompt: Nullable(Type.String()),
    login_answer: Nullable(Type.String()),
    pre_commands: Type.Array(Type.String()),
    enable_command: Nullable(Type.String()),
    enable_prompt: Nullable(Type.String()),
    command: Type.String(),
    pager_pattern: Nullable(Type.String()),
    pager_answer: Type.String(),
    strip_lines: Type.Array(Type.String()),
    secret_lines: Type.Array(Type.String()),
    command_timeout_seconds: Type.Integer(),
    legacy_algorithms: Type.Boolean(),
  },
  { title: 'NcmProfile', additionalProperties: false },
)

export const ProfileList = Type.Object({ items: Type.Array(Profile) }, { title: 'NcmProfileList', additionalProperties: false })

const Command = (d: string) => Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x20-\\x7e]+$', description: d })

const optional = {
  description: OptionalText({ maxLength: 500 }),
  login_prompt: Type.Optional(Nullable(Pattern('A banner step before the prompt (e.g. "Press any key").'))),
  login_answer: Type.Optional(Nullable(Type.String({ maxLength: 64, pattern: '^[\\x20-\\x7e]*$' }))),
  pre_commands: Type.Optional(Type.Array(Command('Sent before the command (paging off).'), { maxItems: 10 })),
  enable_command: Type.Optional(Nullable(Command('Sent to enter privileged mode.'))),
  enable_prompt: Type.Optional(Nullable(Pattern("The enable prompt, answered with the credential's enable secret."))),
  pager_pattern: Type.Optional(Nullable(Pattern('A pager prompt (--More--), answered with pager_answer and removed.'))),
  pager_answer: Type.Optional(Type.String({ minLength: 1, maxLength: 4, default: ' ' })),
  strip_lines: Type.Optional(Patterns('Whole lines dropped before hashing (timestamps, uptime).')),
  secret_lines: Type.Optional(Patterns("Matched at a line's start after its indentation: the rest of the line is hidden from readers.")),
  command_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 30 })),
  legacy_algorithms: Type.Optional(Type.Boolean({ description: 'Also offer SHA-1 key exchange and ssh-rsa host keys (old devices).' })),
}

export const ProfileCreate = Type.Object(
  {
    name: Name({ maxLength: 64 }),
    mode: Type.Optional(StringEnum(['shell', 'exec'] as const, { default: 'shell' })),
    prompt: Pattern('The device prompt, matched against the last unterminated line.'),
    command: Command('The command that prints the configuration.'),
    ...optional,
  },
  { title: 'NcmProfileCreate', additionalProperties: false },
)

export const ProfileUpdate = Type.Object(
  {
    name: Type.Optional(Name({ maxLength: 64 })),
    mode: Type.Optional(StringEnum(['shell', 'exec'] as const)),
    prompt: Type.Optional(Pattern('The device prompt.')),
    command: Type.Optional(Command('The command that prints the configuration.')),
    ...optional,
  },
  { title: 'NcmProfileUpdate', additionalProperties: false, minProperties: 1 },
)
