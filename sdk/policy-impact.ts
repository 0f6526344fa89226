/**
 * Change impact: whose access changes if the pending policy is deployed. The AAA policy
 * (`POST /aaa/policy/impact`) and the NAC policy (`POST /nac/policy/impact`) answer in this one
 * shape, built by one accumulator: each plugin replays the distinct real requests of a window of
 * the logs against the deployed inputs and the pending ones (the database as edited) with its own
 * evaluators, and hands every pair of outcomes to `ImpactAccumulator`, which counts, groups and
 * keeps the biggest changes. The console reads one schema for both.
 */
import { Nullable, StringEnum, Timestamp, Type, type Static } from './schema.js'
import { defineSetting } from './services.js'

export const IMPACT_DEFAULT_DAYS = 7
export const IMPACT_MAX_DAYS = 90

/**
 * The bounds of both routes when the request does not lower them. Declared by the aaa-policy plugin
 * (its setting namespace `policy_impact`); the nac plugin reads the same through the settings service.
 */
export const policyImpactSettingRefs = {
  maxRequests: defineSetting(
    'policy_impact.max_requests',
    Type.Integer({ minimum: 1, maximum: 2_000_000 }),
    1_500_000,
    'Change impact: the most distinct requests of the logs one impact report replays (a request may ask for fewer, or up to 2,000,000); reaching it is stated in the answer.',
  ),
  timeBudgetSeconds: defineSetting(
    'policy_impact.time_budget_seconds',
    Type.Integer({ minimum: 1, maximum: 300 }),
    60,
    'Change impact: the longest one impact report may read and replay the logs, in seconds (a request may ask for 1 to 300); the answer then covers what was replayed and says so.',
  ),
}

/** What the caller may bound (both routes); each protocol's route may add its own fields. */
export const PolicyImpactBounds = {
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: IMPACT_MAX_DAYS, default: IMPACT_DEFAULT_DAYS, description: 'The window of the logs replayed: the last `days` days (1–90, default 7).' })),
  max_requests: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_000_000, description: 'The most distinct requests replayed (default: the setting `policy_impact.max_requests`, 1,500,000); reaching it is stated in `limits.reached`.' }),
  ),
  time_budget_seconds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 300, description: 'The longest the replay may run (default: the setting `policy_impact.time_budget_seconds`, 60); reaching it is stated in `limits.reached` and the answer covers what was replayed.' }),
  ),
  changes_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000, default: 200, description: 'The most changed requests listed in `changes`, biggest first (`changes_total` counts all).' })),
  group_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 25, description: 'The most rows of each grouping in `groups`, biggest first.' })),
}

/** How a request's outcome changed, from the most to the least severe (a request is counted under its most severe change). */
export const IMPACT_CHANGES = ['permit_to_deny', 'deny_to_permit', 'attributes', 'rule'] as const
export type ImpactChangeKind = (typeof IMPACT_CHANGES)[number]

/** The kinds of request replayed. */
export const IMPACT_REQUEST_KINDS = ['tacacs_authentication', 'tacacs_session', 'tacacs_command', 'radius_authentication', 'nac_authentication'] as const
export type ImpactRequestKind = (typeof IMPACT_REQUEST_KINDS)[number]

const Ref = Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false })
const RuleRef = Type.Object({ id: Type.String(), name: Type.String(), position: Type.Integer() }, { additionalProperties: false })
const Attribute = Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false })

export const ImpactOutcomeSchema = Type.Object(
  {
    decision: StringEnum(['permit', 'deny'] as const, { description: 'permit (RADIUS and NAC: Access-Accept) or deny (Access-Reject, refused before any rule, or a command denied).' }),
    rule: Nullable(RuleRef),
    profile: Nullable(Ref),
    attributes: Type.Array(Attribute, { description: 'What the NAS gets: priv-lvl and shell attributes (TACACS+), the reply attributes (VLAN, ACL, Filter-Id, Session-Timeout).' }),
    command_line: Nullable(
      Type.Object(
        { command_set: Nullable(Ref), line: Nullable(Type.String({ description: 'The command-set line (pattern) that decided; null when none matched (the set’s default).' })) },
        { additionalProperties: false, description: 'Commands only: the command-set line that decided.' },
      ),
    ),
    reason: Type.String({ description: 'The evaluator’s reason, as the policy test gives it, in the caller’s language (Accept-Language).' }),
  },
  { title: 'PolicyImpactOutcome', additionalProperties: false },
)
export type ImpactOutcome = Static<typeof ImpactOutcomeSchema>

export const ImpactRequestSchema = Type.Object(
  {
    kind: StringEnum(IMPACT_REQUEST_KINDS),
    username: Nullable(Type.String()),
    mac: Nullable(Type.String({ description: 'NAC: the endpoint’s MAC (Calling-Station-Id).' })),
    device: Nullable(Ref),
    nas_ip: Nullable(Type.String()),
    method: Nullable(Type.String({ description: 'The login method (pap, chap, mschapv2, ascii, enable; NAC: peap, eap-tls, mab); null for an authorization.' })),
    service: Nullable(Type.String()),
    command: Nullable(Type.String()),
    priv_lvl: Nullable(Type.Integer()),
    user_groups: Type.Array(Ref),
    device_groups: Type.Array(Ref),
    events: Type.Integer({ description: 'How many real requests of the window were this one.' }),
    last_seen: Timestamp(),
  },
  { title: 'PolicyImpactRequest', additionalProperties: false },
)
export type ImpactRequest = Static<typeof ImpactRequestSchema>

export const ImpactChangeSchema = Type.Object(
  {
    request: ImpactRequestSchema,
    change: StringEnum(IMPACT_CHANGES),
    before: ImpactOutcomeSchema,
    after: ImpactOutcomeSchema,
    changed_attributes: Type.Array(Type.Object({ name: Type.String(), before: Nullable(Type.String()), after: Nullable(Type.String()) }, { additionalProperties: false })),
    policy_test: Type.Object(
      {
        path: Type.String({ description: 'The policy test that answers why: `/api/v1/aaa/policy/test` or `/api/v1/nac/policy/test`.' }),
        deployed: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Its body against the deployed policy (null where the test cannot take the deployed policy).' })),
        pending: Type.Record(Type.String(), Type.Unknown(), { description: 'Its body against the policy as edited.' }),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'PolicyImpactChange', additionalProperties: false },
)
export type ImpactChange = Static<typeof ImpactChangeSchema>

const Count = Type.Object({ requests: Type.Integer({ description: 'Distinct requests.' }), events: Type.Integer({ description: 'Real requests behind them.' }) }, { additionalProperties: false })

export const ImpactGroupRowSchema = Type.Object(
  {
    id: Nullable(Type.String()),
    name: Type.String(),
    permit_to_deny: Type.Integer(),
    deny_to_permit: Type.Integer(),
    attributes: Type.Integer(),
    rule: Type.Integer(),
    events: Type.Integer({ description: 'Real requests behind this row’s changes (what orders the rows).' }),
  },
  { title: 'PolicyImpactGroupRow', additionalProperties: false },
)
export type ImpactGroupRow = Static<typeof ImpactGroupRowSchema>

export const PolicyImpactResponse = Type.Object(
  {
    window: Type.Object({ from: Timestamp(), to: Timestamp(), days: Type.Integer() }, { additionalProperties: false }),
    compared: Type.Object(
      {
        deployed: Type.Array(
          Type.Object({ daemon: Type.String(), release: Nullable(Type.String()), deploy_id: Nullable(Type.String()), deployed_at: Nullable(Timestamp()) }, { additionalProperties: false }),
          { description: 'The active release each daemon’s side was read from (release null: never deployed, every request is then compared against nothing deployed: deny).' },
        ),
        pending: Type.Literal('database'),
      },
      { additionalProperties: false },
    ),
    requests: Type.Object(
      {
        distinct: Type.Integer({ description: 'Distinct requests found in the window (up to the limit).' }),
        events: Type.Integer({ description: 'Real requests behind them.' }),
        evaluated: Type.Integer(),
        unchanged: Type.Integer(),
        unaffected: Type.Object(
          {
            events: Type.Integer({ description: 'Real requests of the window outside the edit’s reach.' }),
          },
          {
            additionalProperties: false,
            description:
              'Requests no edit can reach: their user, their device, and every rule that could match them (with its profile and command sets, and its order among the others) are the same on both sides, so they are answered alike and not replayed. Counted in real requests only (their distinct count would cost the whole scan); not part of `distinct` or `events`.',
          },
        ),
        unreplayable: Type.Object(
          {
            requests: Type.Integer(),
            events: Type.Integer(),
            by_reason: Type.Array(Type.Object({ reason: Type.String(), description: Type.String(), requests: Type.Integer(), events: Type.Integer() }, { additionalProperties: false })),
          },
          { additionalProperties: false, description: 'Requests the evaluators cannot replay (a wrong password, an MFA step, directory groups): counted and named, never guessed.' },
        ),
      },
      { additionalProperties: false },
    ),
    limits: Type.Object(
      {
        reached: Nullable(StringEnum(['max_requests', 'time_budget'] as const, { description: 'Which bound stopped the replay; null when the whole window was replayed.' })),
        max_requests: Type.Integer(),
        time_budget_seconds: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    summary: Type.Object(
      {
        permit_to_deny: Count,
        deny_to_permit: Count,
        attributes: Count,
        rule: Count,
        users_losing_access: Type.Integer({ description: 'Users (or, NAC, endpoints without a user) with at least one permit that becomes a deny.' }),
        devices_losing_access: Type.Integer({ description: 'Devices (NAS) where a permit becomes a deny.' }),
        rules_newly_deciding: Type.Integer({ description: 'Rules that decide, after the deploy, requests they did not decide before.' }),
        requests_newly_decided: Count,
        text: Type.String({ description: 'The summary in one English sentence ("12 users lose access to 4 devices; 2 rules now decide 1,980 requests they did not").' }),
      },
      { additionalProperties: false },
    ),
    groups: Type.Object(
      { users: Type.Array(ImpactGroupRowSchema), user_groups: Type.Array(ImpactGroupRowSchema), devices: Type.Array(ImpactGroupRowSchema), device_groups: Type.Array(ImpactGroupRowSchema), rules: Type.Array(ImpactGroupRowSchema) },
      { additionalProperties: false, description: 'Each changed request counted once in each row it belongs to, biggest first (by events). Rules: the rule that decides after the deploy, or before when none does after.' },
    ),
    changes: Type.Array(ImpactChangeSchema, { description: 'The changed requests, most severe first, then by events.' }),
    changes_total: Type.Integer(),
    timing: Type.Object({ total_ms: Type.Integer(), log_scan_ms: Type.Integer(), evaluate_ms: Type.Integer() }, { additionalProperties: false }),
    replica_lag_ms: Nullable(Type.Integer({ description: 'How stale the logs read were (the log replica), null when read on the primary.' })),
  },
  { title: 'PolicyImpactResponse', additionalProperties: false },
)
export type PolicyImpact = Static<typeof PolicyImpactResponse>
