/** The policy test: a simulated request, and what the rendered policy would answer. */
import { Nullable, StringEnum, Type, Uuid } from '../../../sdk/index.js'

export const PolicyTestRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, description: 'The user name as the device would send it.' }),
    device_id: Type.Optional(Uuid({ description: 'The device the request comes from. Give this or `nas_ip`.' })),
    nas_ip: Type.Optional(
      Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })], {
        description: "The device's address as the daemon sees it; the device with the most specific prefix containing it is chosen. Give this or `device_id`.",
      }),
    ),
    protocol: StringEnum(['tacacs', 'radius'] as const),
    service: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'TACACS+ only: the service asked for; default `shell`.' }),
    ),
    command: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'TACACS+ only: a command line to authorize (`show running-config`), decided by the matched profile.' }),
    ),
  },
  { title: 'PolicyTestRequest', additionalProperties: false },
)

export const CommandDecisionSchema = Type.Object(
  {
    decision: StringEnum(['permit', 'deny'] as const),
    matched: Nullable(
      Type.Object(
        { command_set_id: Uuid(), command_set_name: Type.String(), index: Type.Integer({ minimum: 0 }), command: Type.String() },
        { additionalProperties: false },
      ),
    ),
    reason: Type.String(),
  },
  { title: 'PolicyCommandDecision', additionalProperties: false },
)

export const PolicyTraceStep = Type.Object(
  {
    rule_id: Uuid(),
    name: Type.String(),
    position: Type.Integer({ minimum: 0 }),
    enabled: Type.Boolean(),
    matched: Type.Boolean(),
    reason: Type.String({ description: 'Why the rule matched or not (`disabled`, `user is not alice`, `device core-sw1 is not in group branch`, `matched: …`).' }),
  },
  { title: 'PolicyTraceStep', additionalProperties: false },
)

export const PolicyTestResponse = Type.Object(
  {
    decision: StringEnum(['permit', 'deny'] as const, { description: 'The verdict of the ruleset: the session (TACACS+) or Access-Accept (RADIUS).' }),
    reason: Type.String({ description: 'One sentence: why this decision.' }),
    user: Nullable(Type.Object({ id: Uuid(), username: Type.String() }, { additionalProperties: false, description: 'The user the name resolved to.' })),
    device: Nullable(
      Type.Object({ id: Uuid(), name: Type.String(), address: Type.String() }, { additionalProperties: false, description: 'The device the request was taken to come from.' }),
    ),
    matched_rule: Nullable(Type.Object({ id: Uuid(), name: Type.String(), position: Type.Integer({ minimum: 0 }) }, { additionalProperties: false })),
    profile: Nullable(Type.Object({ type: StringEnum(['tacacs', 'radius'] as const), id: Uuid(), name: Type.String() }, { additionalProperties: false })),
    attributes: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false }), {
      description: 'TACACS+: priv-lvl and the shell attributes set at the start of an exec shell. RADIUS: the reply attributes of the profile.',
    }),
    command_decision: Nullable(CommandDecisionSchema),
    trace: Type.Array(PolicyTraceStep, { description: 'The rules tried, in order, up to the one that decided.' }),
  },
  { title: 'PolicyTestResponse', additionalProperties: false },
)
