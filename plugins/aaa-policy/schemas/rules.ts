/** Request and response schemas of the policy rules, named as the contract names them. */
import { Nullable, OptionalText, StringEnum, Timestamp, Type, Uuid } from '../../../sdk/index.js'
import { DAYS, MAX_CLIENT_PREFIXES } from '../services/conditions.js'

/** Rule names appear in the rendered tac_plus-ng ruleset (`rule NAME { … }`) and in the daemons' logs: no spaces or quotes. */
export const RuleName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Unique (case-insensitive); letters, digits, `.`, `_`, `-`, starting with a letter or digit.',
})

export const Who = Type.Object(
  {
    user_id: Type.Optional(Uuid({ description: 'The rule applies to this user.' })),
    group_id: Type.Optional(Uuid({ description: 'The rule applies to the members of this user group.' })),
  },
  { title: 'AaaPolicyWho', additionalProperties: false, description: 'WHO the rule applies to: exactly one of `user_id`, `group_id`.' },
)

export const Where = Type.Object(
  {
    device_id: Type.Optional(Uuid({ description: 'The rule applies on this device.' })),
    device_group_id: Type.Optional(Uuid({ description: 'The rule applies on every device of this group or of any group below it.' })),
  },
  { title: 'AaaPolicyWhere', additionalProperties: false, description: 'WHERE the rule applies: exactly one of `device_id`, `device_group_id`.' },
)

export const TimeWindow = Type.Object(
  {
    days: Type.Array(StringEnum(DAYS), { minItems: 1, maxItems: 7, uniqueItems: true, description: 'The days the window starts on: `mon` … `sun`, each at most once.' }),
    start: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Start time of day, `HH:MM` (00:00-23:59), inclusive.' }),
    end: Type.String({
      pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
      description: 'End time of day, `HH:MM` (00:01-24:00), exclusive: 18:00 means up to 17:59. Not after `start`: the window crosses midnight into the next day. Equal to `start`: 422.',
    }),
  },
  {
    title: 'AaaPolicyTimeWindow',
    additionalProperties: false,
    description:
      "When the rule applies, in the local time of the host the daemons run on (its time zone: TZ, else /etc/localtime; the policy test uses the API server's, which must be the same). Outside it the rule does not match and the next rule is tried. A window crossing midnight (`22:00`-`06:00`) starts on `days` and ends the next morning: fri 22:00-06:00 holds Friday 22:00 to Saturday 05:59.",
  },
)

const ClientPrefixes = (d: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: MAX_CLIENT_PREFIXES,
    description: `NAS address prefixes (the field keeps the name \`client_prefixes\`: renaming it would break API clients): the address of the network device (NAS) sending the request, not the user's terminal. ${d} IPv4 or IPv6 prefixes in CIDR form (\`10.1.0.0/16\`, \`2001:db8::/32\`; an address alone is one host), at most ${MAX_CLIENT_PREFIXES}: the request's source address (the NAS as the daemon sees it) must be inside one of them, narrowing WHERE. Stored canonical (\`2001:DB8::/32\` as \`2001:db8::/32\`), duplicates once. A prefix with host bits set (\`10.1.2.3/16\`) or an IPv4-mapped IPv6 one answers 422 at \`client_prefixes[i]\`.`,
  })

const ProfileRef = (what: string) => Type.Optional(Nullable(Uuid({ description: what })))

export const AaaPolicyRuleCreate = Type.Object(
  {
    name: RuleName,
    description: OptionalText({ maxLength: 500 }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true. A disabled rule is skipped.' })),
    who: Who,
    where: Where,
    tacacs_profile_id: ProfileRef('TACACS+ profile a match gets; null or absent: a TACACS+ match is denied.'),
    radius_profile_id: ProfileRef('RADIUS profile a match gets; null or absent: a RADIUS match is rejected.'),
    time_window: Type.Optional(Nullable(TimeWindow)),
    client_prefixes: Type.Optional(ClientPrefixes('Empty or absent: any source.')),
    position: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: "Insert before the rule at this position (0 = first). Default: just before the default rule. At most the default rule's position.",
      }),
    ),
  },
  { title: 'AaaPolicyRuleCreate', additionalProperties: false },
)

export const AaaPolicyRuleUpdate = Type.Object(
  {
    name: Type.Optional(RuleName),
    description: OptionalText({ maxLength: 500 }),
    enabled: Type.Optional(Type.Boolean()),
    who: Type.Optional(Who),
    where: Type.Optional(Where),
    tacacs_profile_id: ProfileRef('null clears it.'),
    radius_profile_id: ProfileRef('null clears it.'),
    time_window: Type.Optional(Nullable(TimeWindow)),
    client_prefixes: Type.Optional(ClientPrefixes('Replaces the list; empty clears it.')),
    position: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Move the rule to this position; the rules between shift by one. Below the default rule.' }),
    ),
  },
  { title: 'AaaPolicyRuleUpdate', additionalProperties: false },
)

const Ref = (d: string) => Nullable(Uuid({ description: d }))
const RefName = (d: string) => Nullable(Type.String({ description: d }))

export const AaaPolicyRuleResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    position: Type.Integer({ minimum: 0, description: 'Evaluation order: 0 is tried first; the default rule is last.' }),
    is_default: Type.Boolean(),
    who_user_id: Ref('Set when the rule targets a user.'),
    who_group_id: Ref('Set when the rule targets a user group.'),
    where_device_id: Ref('Set when the rule targets a device.'),
    where_device_group_id: Ref('Set when the rule targets a device group (and the groups below it).'),
    tacacs_profile_id: Ref('Null: a TACACS+ request this rule matches is denied.'),
    radius_profile_id: Ref('Null: a RADIUS request this rule matches is rejected.'),
    who_name: RefName("The user's name or the group's name; null for the default rule (anyone)."),
    where_name: RefName("The device's or the device group's name; null for the default rule (anywhere)."),
    tacacs_profile_name: RefName('Name of the TACACS+ profile.'),
    radius_profile_name: RefName('Name of the RADIUS profile.'),
    time_window: Nullable(TimeWindow),
    client_prefixes: Type.Array(Type.String(), { description: 'NAS address prefixes: canonical CIDR prefixes the address of the NAS sending the request must be inside one of; empty: any NAS address.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'AaaPolicyRuleResponse', additionalProperties: false },
)

const Filter = (d: string) => Type.Optional(Type.Array(Uuid(), { maxItems: 100, description: `${d} Repeat the parameter for several values (they combine with OR).` }))

export const AaaPolicyRuleListQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Rules whose name or description holds this text (case-insensitive substring).' })),
    who_user_id: Filter('Rules that target this user.'),
    who_group_id: Filter('Rules that target this user group.'),
    where_device_id: Filter('Rules that target this device.'),
    where_device_group_id: Filter('Rules that target this device group.'),
    tacacs_profile_id: Filter('Rules that give this TACACS+ profile.'),
    radius_profile_id: Filter('Rules that give this RADIUS profile.'),
    resolve_groups: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          '`who_user_id` also matches rules that target a group the user belongs to, `where_device_id` rules that target the device group of the device or any group above it, and both match the default rule (it applies to anyone, anywhere).',
      }),
    ),
  },
  { additionalProperties: false },
)

export const AaaPolicyRuleList = Type.Array(AaaPolicyRuleResponse, { title: 'AaaPolicyRuleListResponse' })

export const AaaPolicyReorderRequest = Type.Object(
  {
    rule_ids: Type.Array(Uuid(), {
      minItems: 1,
      maxItems: 20_000,
      description: 'Every rule id exactly once, in the new evaluation order; the default rule last.',
    }),
  },
  { title: 'AaaPolicyReorderRequest', additionalProperties: false },
)

export const RuleParams = Type.Object({ rule_id: Uuid() }, { additionalProperties: false })

export const RuleTacacsPreviewResponse = Type.Object(
  {
    rule_id: Uuid(),
    snippet: Type.String({ description: 'The tac_plus-ng ruleset text this rule renders to, exactly as in the full configuration.' }),
    profile_snippet: Nullable(Type.String({ description: "The tac_plus-ng text of the rule's TACACS+ profile, with its command sets; null without a profile." })),
  },
  { title: 'RuleTacacsPreviewResponse', additionalProperties: false },
)
