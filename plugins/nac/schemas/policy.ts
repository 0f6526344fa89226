/** The NAC policy's rules (docs/nac.md "The NAC policy"). */
import { DAYS, Nullable, OptionalText, StringEnum, Timestamp, TIME_WINDOW_END, TIME_WINDOW_START, Type, Uuid, type Static } from '../../../sdk/index.js'
import { CERTIFICATE_FIELDS, CONDITION_TYPES, NAC_METHODS } from '../services/conditions.js'
import { ConfigName } from './common.js'

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) => Type.Optional(Type.Array(item, { minItems: 1, maxItems: 50, description }))

export const NacConditionInput = Type.Object(
  {
    type: StringEnum(CONDITION_TYPES, { description: 'Which condition; it takes the fields named below for it, and no others (422 at the field).' }),
    methods: Type.Optional(
      Type.Array(StringEnum(NAC_METHODS), { minItems: 1, maxItems: 3, uniqueItems: true, description: '`method`: how the endpoint authenticated: `peap` (PEAP-MSCHAPv2), `eap-tls`, `mab`.' }),
    ),
    group_ids: list(Uuid(), '`user_group`: user groups the user is a member of; `endpoint_group`: endpoint groups the endpoint (by Calling-Station-Id) is in; `device_group`: device groups the switch is in, or below. Unknown: 422 REFERENCE_NOT_FOUND at `conditions[i].group_ids[j]`.'),
    device_types: list(Type.String({ minLength: 1, maxLength: 128 }), '`device_type`: what profiling concluded the endpoint is, compared exactly.'),
    field: Type.Optional(StringEnum(CERTIFICATE_FIELDS, { description: '`certificate`: which field of the EAP-TLS client certificate: issuer CN, SAN e-mail or SAN DNS name (no certificate template: FreeRADIUS 3.2 cannot read one).' })),
    values: list(Type.String({ minLength: 1, maxLength: 253 }), '`certificate`: the field equals one of them, case-insensitively. `nas_port_type`: NAS-Port-Type as FreeRADIUS names it (`Ethernet`, `Wireless-802.11`, `Virtual`…).'),
    days: Type.Optional(Type.Array(StringEnum(DAYS), { minItems: 1, maxItems: 7, uniqueItems: true, description: '`time_window`: the days the window starts on.' })),
    start: Type.Optional(Type.String({ pattern: TIME_WINDOW_START, description: '`time_window`: `HH:MM`, inclusive.' })),
    end: Type.Optional(Type.String({ pattern: TIME_WINDOW_END, description: '`time_window`: `HH:MM` up to 24:00, exclusive; not after `start`: the window crosses midnight; equal: 422.' })),
  },
  {
    title: 'NacConditionInput',
    additionalProperties: false,
    description:
      'One condition. A rule holds when all its conditions hold; a condition with several values holds when any does. At most one condition of each type. Device types refuse quotes, backslashes, control characters, `%`, `${` and braces; certificate values take printable ASCII only (any of it; FreeRADIUS compares other characters as bytes and folds only ASCII letters). Time windows are in the local time of the host FreeRADIUS runs on, as the AAA policy\'s.',
  },
)

export const NacConditionResponse = Type.Object(
  {
    ...NacConditionInput.properties,
    groups: Type.Optional(Type.Array(Type.Object({ id: Uuid(), name: Nullable(Type.String()) }, { additionalProperties: false }), { description: 'The groups with their names as they are now.' })),
    label: Type.Optional(Type.String({ description: '`time_window`: as the operator reads it, `Mon-Fri 08:00-18:00`.' })),
  },
  { title: 'NacConditionResponse', additionalProperties: false },
)

const Conditions = Type.Array(NacConditionInput, { maxItems: CONDITION_TYPES.length, description: 'All must hold; empty: the rule holds for every request.' })

export const NacRuleName = ConfigName('Unique, case-insensitively (409 NAC_RULE_NAME_TAKEN); letters, digits and `. _ -`: it is written in the FreeRADIUS configuration and its logs.')

export const NacPolicyRuleCreate = Type.Object(
  {
    name: NacRuleName,
    description: OptionalText({ maxLength: 500 }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true. A disabled rule is skipped.' })),
    conditions: Type.Optional(Conditions),
    authorization_profile_id: Uuid({ description: 'What a request the rule takes gets. Unknown: 422 REFERENCE_NOT_FOUND.' }),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: "Insert before the rule at this position (0 = first). Default: just before the default rule; at most the default rule's position." })),
  },
  { title: 'NacPolicyRuleCreate', additionalProperties: false },
)

export const NacPolicyRuleUpdate = Type.Object(
  {
    name: Type.Optional(NacRuleName),
    description: OptionalText({ maxLength: 500 }),
    enabled: Type.Optional(Type.Boolean()),
    conditions: Type.Optional(Conditions),
    authorization_profile_id: Type.Optional(Uuid()),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Move the rule here; the rules between shift by one. Above the default rule.' })),
  },
  { title: 'NacPolicyRuleUpdate', additionalProperties: false, description: 'Partial: only the fields given change; `conditions` replaces the list.' },
)

export const NacPolicyRuleResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    position: Type.Integer({ minimum: 0, description: 'Evaluation order: 0 first; the default rule last.' }),
    is_default: Type.Boolean(),
    conditions: Type.Array(NacConditionResponse),
    authorization_profile_id: Uuid(),
    authorization_profile_name: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'NacPolicyRuleResponse', additionalProperties: false },
)

export const NacPolicyRuleList = Type.Array(NacPolicyRuleResponse, { title: 'NacPolicyRuleListResponse' })

export const NacPolicyRuleListQuery = Type.Object(
  {
    authorization_profile_id: Type.Optional(Uuid({ description: 'Only the rules giving this profile.' })),
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Rules whose name or description holds this text (case-insensitive substring).' })),
  },
  { additionalProperties: false },
)

export const NacPolicyReorderRequest = Type.Object(
  { rule_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 20_000, description: 'Every rule id exactly once, in the new evaluation order; the default rule last.' }) },
  { title: 'NacPolicyReorderRequest', additionalProperties: false },
)

export const NacRuleParams = Type.Object({ rule_id: Uuid() }, { additionalProperties: false })

export type NacPolicyRuleCreate = Static<typeof NacPolicyRuleCreate>
export type NacPolicyRuleUpdate = Static<typeof NacPolicyRuleUpdate>
