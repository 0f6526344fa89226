import { listQuery, NAME_PATTERN, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { EVIDENCE_ATTRIBUTES } from '../services/evidence.js'
import { ConfigName, DeviceType } from './common.js'

export const PROFILING_OPERATORS = ['equals', 'contains', 'starts_with'] as const

const ATTRIBUTES_DOC =
  '`vendor` (the IEEE registry vendor of the MAC), `dhcp_class_id` (DHCP option 60, vendor class identifier: `MSFT 5.0`, `android-dhcp-13`), `dhcp_parameter_list` (option 55, the option numbers comma-separated: `1,3,6,15,31,33`), `dhcp_hostname` (option 12), `cdp_platform` (CDP platform: `Cisco IP Phone 8845`), `lldp_system_description` (LLDP system description), `user_agent` (HTTP User-Agent from the switch\'s HTTP sensor), `nas_port_type` (`Ethernet`, `Wireless-802.11`). All but `vendor` come from Cisco device-sensor AVPairs and NAS-Port-Type in RADIUS authentication and accounting.'

export const ProfilingCondition = Type.Object(
  {
    attribute: StringEnum(EVIDENCE_ATTRIBUTES, { description: `What the condition tests: ${ATTRIBUTES_DOC}` }),
    operator: StringEnum(PROFILING_OPERATORS, { description: 'How, case-insensitively: `equals`, `contains`, `starts_with`. No regular expressions (a user-supplied one could take the profiler down: ReDoS).' }),
    // One line of printable text: no control characters.
    value: Type.String({ minLength: 1, maxLength: 253, pattern: NAME_PATTERN, description: 'The text compared. One line, 1–253 characters, no control or direction characters (as names).' }),
  },
  { title: 'ProfilingCondition', additionalProperties: false },
)

const fields = {
  name: ConfigName('Unique, case-insensitively. Letters, digits and `. _ -`.'),
  description: OptionalText({ maxLength: 500 }),
  conditions: Type.Array(ProfilingCondition, { minItems: 1, maxItems: 10, description: 'All must hold (AND). A condition on evidence the endpoint never sent does not hold.' }),
  device_type: DeviceType('The device type an endpoint matching the rule gets (`printer`, `ip-phone`, `windows`).'),
  certainty: Type.Integer({ minimum: 0, maximum: 100, description: 'How sure the rule is, 0–100: of the rules that hold, the highest certainty wins; it becomes the endpoint\'s `device_type_confidence`.' }),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled rule is kept but never applied.' })),
  position: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000, description: 'Breaks ties between rules of equal certainty (lower first, then the name). Default: after the last rule.' })),
}

export const ProfilingRuleCreate = Type.Object(fields, { title: 'ProfilingRuleCreate', additionalProperties: false })

export const ProfilingRuleUpdate = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: fields.description,
    conditions: Type.Optional(fields.conditions),
    device_type: Type.Optional(fields.device_type),
    certainty: Type.Optional(fields.certainty),
    enabled: fields.enabled,
    position: fields.position,
  },
  { title: 'ProfilingRuleUpdate', additionalProperties: false, description: 'Partial: only the fields given change.' },
)

export const ProfilingRuleResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    conditions: Type.Array(ProfilingCondition),
    device_type: Type.String(),
    certainty: Type.Integer(),
    enabled: Type.Boolean(),
    position: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'ProfilingRuleResponse', additionalProperties: false },
)

export const ProfilingRuleListResponse = Paginated(ProfilingRuleResponse, 'ProfilingRuleListResponse')

export const ProfilingRuleParams = Type.Object({ rule_id: Uuid() }, { additionalProperties: false })

export const ProfilingRuleListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 50,
  sortBy: ['position', 'name', 'certainty', 'device_type', 'created_at', 'updated_at'] as const,
  filters: {
    enabled: Type.Optional(Type.Boolean()),
    device_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Rules giving exactly this device type, case-insensitively.' })),
  },
})

/** PUT /nac/endpoints/{id}/device-type. */
export const EndpointDeviceTypeBody = Type.Object(
  {
    device_type: Nullable(
      DeviceType('The device type, set by hand: profiling no longer changes it (confidence 100). `null` clears it and hands the endpoint back to profiling, which decides again with the next record.'),
    ),
  },
  { title: 'EndpointDeviceType', additionalProperties: false },
)



export type ProfilingRuleCreate = Static<typeof ProfilingRuleCreate>
export type ProfilingRuleUpdate = Static<typeof ProfilingRuleUpdate>
