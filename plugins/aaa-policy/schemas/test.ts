/** The policy test: a simulated request, and what the rendered policy would answer. */
import { Nullable, StringEnum, Type, Uuid } from '../../../sdk/index.js'

/** The authentication methods the test answers for; `ascii` and `enable` are TACACS+ ones. */
export const METHODS = ['pap', 'chap', 'mschapv2', 'ascii', 'enable'] as const
export const TACACS_ONLY_METHODS: readonly string[] = ['ascii', 'enable']

/** An AV pair the NAS sends with its authorization request, beyond `service`, `cmd` and `cmd-arg`. */
export const NasAttribute = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      // Printable ASCII without the separators `=` and `*` (the daemon splits a pair at the first one); service, cmd and cmd-arg come from their own inputs.
      pattern: '^(?!(?:service|cmd|cmd-arg)$)[!-)+-<>-~]+$',
      description: 'The attribute name (`priv-lvl`, `protocol`, `shell:roles`): printable ASCII without `=` or `*`; not `service`, `cmd` or `cmd-arg` (give those as `service` and `command`).',
    }),
    value: Type.String({ maxLength: 190, pattern: '^[ -~]*$', description: 'The value, printable ASCII; may be empty (`cmd*` style).' }),
    optional: Type.Optional(Type.Boolean({ description: 'true: sent as an optional pair (`name*value`); default false: mandatory (`name=value`).' })),
  },
  { title: 'PolicyTestNasAttribute', additionalProperties: false },
)

const NasAttributes = Type.Array(NasAttribute, {
  maxItems: 64,
  description:
    "TACACS+ only (422 for RADIUS): the AV pairs the NAS sends with its authorization request after `service=<service>`, in order, as tac_plus-ng merges them into its reply (`authorization_reply`): a mandatory pair the profile does not set exactly fails the authorization; an optional pair is replaced by the profile's mandatory pair of that name or deleted (the reply becomes PASS_REPL, the whole list). `protocol` passes through unchanged. Default: none, as a NAS starting an exec shell sends only `service=shell` and an empty `cmd`.",
})

export const AuthorizationReplySchema = Type.Object(
  {
    status: StringEnum(['pass_add', 'pass_repl', 'fail'] as const, {
      description: '`pass_add`: the NAS keeps its pairs and adds `attributes`; `pass_repl`: `attributes` replace the pairs the NAS sent; `fail`: authorization refused.',
    }),
    attributes: Type.Array(
      Type.Object({ name: Type.String(), value: Type.String(), optional: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      { description: 'The AV pairs of the REPLY, in the order tac_plus-ng sends them (`optional`: sent as `name*value`).' },
    ),
  },
  {
    title: 'PolicyTestAuthorizationReply',
    additionalProperties: false,
    description:
      "TACACS+ only: the authorization REPLY tac_plus-ng sends for this request (`nas_attributes` included). A command authorization under service shell is answered PASS_ADD without pairs. Null for RADIUS, for `method` enable (an authentication, not an authorization), and for a deny before the matched profile is reached.",
  },
)

export const PolicyTestRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, description: 'The user name as the device would send it.' }),
    device_id: Type.Optional(Uuid({ description: 'The device the request comes from. Give this or `nas_ip`.' })),
    nas_ip: Type.Optional(
      Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })], {
        description: "The device's address as the daemon sees it; the device with the most specific prefix containing it is chosen, and rules with `client_prefixes` check it. Give this or `device_id` (then the client condition checks the device's whole address prefix).",
      }),
    ),
    protocol: StringEnum(['tacacs', 'radius'] as const),
    against: Type.Optional(
      StringEnum(['database', 'deployed'] as const, {
        description:
          "What to answer for: `database` (default), the policy as edited now; `deployed`, the inputs the protocol's daemon's active release on this node was rendered from (tac_plus-ng for TACACS+, FreeRADIUS for RADIUS), so changes not yet deployed do not count. No such release (never deployed, or deployed before releases kept their inputs): 409 POLICY_TEST_NOT_DEPLOYED. `answered_from` says which.",
      }),
    ),
    service: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'TACACS+ only: the service asked for; default `shell`.' }),
    ),
    command: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'TACACS+ only: a command line to authorize (`show running-config`), decided by the matched profile. Split as a NAS splits it: into words on space and TAB only (the first word is `cmd`, the others `cmd-arg`; runs and leading or trailing ones dropped), joined by one space as tac_plus-ng joins them. NBSP and other Unicode spaces stay inside their word; a line holding LF, CR or another control character is denied, as the daemon denies it. A last word `<cr>` is the end marker a Cisco NAS appends (as the daemon logs the line: `show version <cr>` is decided as `show version`); a `<cr>` anywhere else answers 422 at `command`: the daemon decides such a line differently with and without the NAS\'s own marker after it.',
      }),
    ),
    priv_lvl: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 15,
        description: 'TACACS+ only: the privilege level the NAS sends with `command` (after `enable` 15, 15). Default: the profile\'s privilege_level, what the session started at. Command entries with a higher `min_privilege_level` are skipped.',
      }),
    ),
    nas_attributes: Type.Optional(NasAttributes),
    trace: Type.Optional(
      StringEnum(['all', 'relevant'] as const, {
        default: 'all',
        description:
          "`all` (default): every rule tried is in `trace`. `relevant`: the steps of rules whose WHO is another user or a group the user is not in are left out (they say nothing about this user); the walk and the decision are the same, and `rules_tried` still counts every rule tried. At thousands of rules this keeps a deep match's answer small.",
      }),
    ),
    at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "When the request is made, for the rules' time windows: an ISO 8601 timestamp (`2026-03-02T07:59:00Z`, `2026-03-02T08:59:00+01:00`); default now. Windows are in the local time of the host the daemons run on, which the API server's must be: the instant is read in the API server's time zone (TZ, else /etc/localtime).",
      }),
    ),
    method: Type.Optional(
      StringEnum(METHODS, {
        description:
          'The authentication method of the login to answer for: `pap`, `chap`, `mschapv2` (both protocols), `ascii`, `enable` (TACACS+ only, else 422). RADIUS: default `pap` (every Access-Request authenticates). TACACS+: absent, the answer is for authorization only (the session and commands, which tac_plus-ng decides by the ruleset alone). A login the daemon cannot check for this user (no network password set, CHAP, or TACACS+ MS-CHAPv2, without a kept password (`chap_enabled` with a password set while it was on), a method the rendered configuration gives no password for) is `deny` with that reason; the password is taken to be right.',
      }),
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
    reason: Type.String({ description: 'Why the rule matched or not (`disabled`, `user is not alice`, `device core-sw1 is not in group branch`, `NAS address 10.9.9.9 is not in 10.1.0.0/16`, `outside its time window Mon-Fri 08:00-18:00`, `matched: …`).' }),
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
    attributes: Type.Array(
      Type.Object(
        { name: Type.String(), value: Type.String(), optional: Type.Optional(Type.Boolean({ description: 'TACACS+ only, present when true: an optional AV pair (`name*value`).' })) },
        { additionalProperties: false },
      ),
      {
        description:
          'TACACS+: for service shell, priv-lvl and the shell attributes set at the start of an exec shell; for another service the profile lists, its attributes; mandatory ones first, then optional ones, as tac_plus-ng sends them. RADIUS: the reply attributes of the profile.',
      },
    ),
    method: Nullable(StringEnum(METHODS, { description: 'The authentication method the answer is for (RADIUS: `pap` unless asked); `null`: TACACS+ authorization only.' })),
    command_decision: Nullable(CommandDecisionSchema),
    authorization_reply: Nullable(AuthorizationReplySchema),
    answered_from: Type.Optional(
      Type.Object(
        {
          against: StringEnum(['database', 'deployed'] as const),
          daemon: Nullable(Type.String({ description: 'The daemon whose release answered; null for `database`.' })),
          release: Nullable(Type.String({ description: 'The release (folder name) whose inputs answered; null for `database`.' })),
          deploy_id: Nullable(Uuid({ description: 'The deploy that activated that release.' })),
          deployed_at: Nullable(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false, description: 'Always present: what the answer was computed from (`against`).' },
      ),
    ),
    rules_tried: Type.Integer({ minimum: 0, description: 'How many rules were tried, up to and including the deciding one (0 when the request was refused before any rule); with `trace: relevant` more than `trace` lists.' }),
    trace: Type.Array(PolicyTraceStep, { description: 'The rules tried, in order, up to the one that decided (with `trace: relevant`, only those whose WHO concerns the user).' }),
  },
  { title: 'PolicyTestResponse', additionalProperties: false },
)
