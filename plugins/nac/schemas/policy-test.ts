/** POST /nac/policy/test: a simulated request in, the decision and its reason out (docs/nac.md "Policy test"). */
import { Nullable, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { CERTIFICATE_FIELDS, NAC_METHODS, NAS_PORT_TYPES } from '../services/conditions.js'
import { NacReplyAttribute } from './profiles.js'
import { NAC_ACCOUNT_REASONS } from '../services/account.js'

const certText = Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: "The Common-Name of the CA that signed the client certificate (its issuer's CN, as written, not escaped)." }))
/** A SAN type a certificate may carry several of: one, or every one (the daemon compares each). */
const certSans = (what: string) =>
  Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 253 }), Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 50 })], { description: `The certificate's ${what}: one, or a list when it carries several (a condition holds when any of them equals one of its values, as in FreeRADIUS).` }))

export const NacPolicyTestRequest = Type.Object(
  {
    method: StringEnum(NAC_METHODS, { description: '`peap` (PEAP-MSCHAPv2), `eap-tls` or `mab`.' }),
    mac: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The endpoint (Calling-Station-Id), any notation; required for `mab`. A MAC no endpoint has is not an error: it is in no group and has no device type. Not a MAC: 422 MAC_INVALID.' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: '^[^\\u0000-\\u001f\\u007f]+$', description: "PEAP's inner identity (compared exactly, as FreeRADIUS does: an unknown one is refused), or the EAP-TLS certificate's Common-Name (a user's in any case; any other, or none, is a device certificate: no user); not with `mab` (422)." })),
    nas: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The switch: a device id, or the address FreeRADIUS sees the request from (the device whose prefix holds it, as clients.conf picks it). None: in no device group. Neither: 422 REFERENCE_NOT_FOUND at `nas`.' })),
    nas_port_type: Type.Optional(StringEnum(NAS_PORT_TYPES, { description: 'NAS-Port-Type as FreeRADIUS names it.' })),
    certificate: Type.Optional(
      Type.Object(
        { issuer_cn: certText, san_email: certSans('SAN e-mail addresses'), san_dns: certSans('SAN DNS names') },
        { additionalProperties: false, description: 'EAP-TLS only (422 otherwise): the client certificate fields the policy can test.' },
      ),
    ),
    time: Type.Optional(Timestamp({ description: "When: its local time on the API server's host (which must share FreeRADIUS's time zone) decides time windows. Default: now." })),
    against: Type.Optional(
      StringEnum(['database', 'deployed'] as const, {
        description: "`database` (default): the policy and data as edited. `deployed`: what the active FreeRADIUS release was built from (kept in it, no secret), so changes not yet deployed do not count; 409 POLICY_TEST_NOT_DEPLOYED when no release keeps it.",
      }),
    ),
  },
  { title: 'NacPolicyTestRequest', additionalProperties: false },
)

const Named = Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false })

export const CompiledCondition = Type.Object(
  {
    type: Type.String(),
    methods: Type.Optional(Type.Array(Type.String())),
    groups: Type.Optional(Type.Array(Named)),
    device_types: Type.Optional(Type.Array(Type.String())),
    field: Type.Optional(StringEnum(CERTIFICATE_FIELDS)),
    values: Type.Optional(Type.Array(Type.String())),
    window: Type.Optional(
      Type.Object(
        {
          label: Type.String(),
          spans: Type.Array(Type.Object({ days: Type.Array(Type.Integer()), from: Type.Integer(), to: Type.Integer() }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'NacCompiledCondition', additionalProperties: false, description: 'A condition as the compiled policy holds it (sdk/nac-policy.ts): groups with names, a time window as minute spans of the week.' },
)

const TraceStep = Type.Object(
  {
    rule_id: Uuid(),
    rule_name: Type.String(),
    position: Nullable(Type.Integer({ description: "The rule's position plus one (1 is first); null for the default rule." })),
    is_default: Type.Boolean(),
    matched: Type.Boolean(),
    failed_condition: Nullable(CompiledCondition),
    reason: Nullable(Type.String({ description: 'Why the condition did not hold.' })),
  },
  { title: 'NacTraceStep', additionalProperties: false },
)

export const NacPolicyTestResponse = Type.Object(
  {
    decision: StringEnum(['accept', 'reject'] as const),
    refused: Nullable(
      Type.Object(
        { reason: StringEnum(NAC_ACCOUNT_REASONS, { description: "The log's reject_reason for the same request." }), detail: Type.String() },
        { additionalProperties: false, description: 'The user the request names is refused before the policy (rule, authorization_profile and trace are then null and empty): the daemon does the same.' },
      ),
    ),
    rule: Nullable(Type.Object({ id: Uuid(), name: Type.String(), position: Nullable(Type.Integer()), is_default: Type.Boolean() }, { additionalProperties: false, description: 'Null when refused before the policy.' })),
    authorization_profile: Nullable(Type.Object({ id: Uuid(), name: Type.String(), deny: Type.Boolean() }, { additionalProperties: false, description: 'Null when refused before the policy.' })),
    reply: Type.Array(NacReplyAttribute, { description: "The reply attributes of an accept; empty for a reject. A user with an expiry gets Session-Timeout at most the seconds left (the profile's own lowered to it, else added last), as FreeRADIUS gives it." }),
    trace: Type.Array(TraceStep, { description: 'Every enabled rule considered, in order, up to the one that decided.' }),
    resolved: Type.Object(
      {
        user: Nullable(Type.Object({ id: Uuid(), username: Type.String() }, { additionalProperties: false })),
        user_groups: Type.Array(Named),
        endpoint: Nullable(Type.Object({ id: Uuid(), mac: Type.String(), device_type: Nullable(Type.String()) }, { additionalProperties: false })),
        mac: Nullable(Type.String({ description: 'The MAC, canonical.' })),
        endpoint_groups: Type.Array(Named),
        device: Nullable(Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false })),
        device_groups: Type.Array(Named, { description: "The switch's group and every group above it." }),
        local_time: Type.Object({ day: Type.Integer({ minimum: 0, maximum: 6 }), minute: Type.Integer({ minimum: 0, maximum: 1439 }) }, { additionalProperties: false }),
      },
      { additionalProperties: false, description: 'What the request was resolved to, from the database.' },
    ),
  },
  { title: 'NacPolicyTestResponse', additionalProperties: false },
)

export type CompiledConditionBody = Static<typeof CompiledCondition>
