/** The shapes of /ncm/rules and /ncm/compliance (docs/ncm.md "Compliance"). */
import { listQuery, Name, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'

const Requirement = StringEnum(['must_contain', 'must_not_contain'] as const, {
  description: '`must_contain`: some line of the configuration matches (else the device fails). `must_not_contain`: no line matches (else it fails).',
})
const Match = StringEnum(['literal', 'regex'] as const, {
  description:
    '`literal`: a whole line, leading and trailing spaces removed, equals the pattern (case matters). `regex`: a safe regex (the dialect of TACACS+ command rules, `/` allowed) matches a whole trimmed line, case-insensitively; only the first 4,096 characters of a line are tested.',
})
const Pattern = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'One line. A literal is compared trimmed, as the lines are. A regex outside the safe subset answers 422 NCM_REGEX_UNSAFE at `pattern`.',
  // One line: no control characters (a configuration line holds none once split).
  pattern: '^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]+$',
})
const GroupId = Nullable(Uuid({ description: 'The device group whose devices (its descendants too) the rule covers; null: every tracked device.' }))

export const RuleCreate = Type.Object(
  {
    name: Name({ maxLength: 64, description: 'Unique, case-insensitively.' }),
    description: OptionalText({ maxLength: 500 }),
    device_group_id: Type.Optional(GroupId),
    requirement: Requirement,
    match: Match,
    pattern: Pattern,
    notify: Type.Optional(Type.Boolean({ default: false, description: 'Mail `ncm.compliance_mail_to` when a device newly fails this rule (one mail per device and new version).' })),
    enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled rule is not evaluated and has no results.' })),
  },
  { title: 'NcmRuleCreate', additionalProperties: false },
)

export const RuleUpdate = Type.Object(
  {
    name: Type.Optional(Name({ maxLength: 64 })),
    description: OptionalText({ maxLength: 500 }),
    device_group_id: Type.Optional(GroupId),
    requirement: Type.Optional(Requirement),
    match: Type.Optional(Match),
    pattern: Type.Optional(Pattern),
    notify: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'NcmRuleUpdate', additionalProperties: false, description: 'Partial: only the fields given change. A change of scope, requirement, match, pattern or enabling re-evaluates the rule on every device.' },
)

export const RuleResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    device_group_id: Nullable(Uuid()),
    device_group_name: Nullable(Type.String()),
    requirement: Requirement,
    match: Match,
    pattern: Type.String(),
    notify: Type.Boolean(),
    enabled: Type.Boolean(),
    evaluating: Type.Boolean({ description: 'True while the tracked devices are being (re-)evaluated against this rule; the report shows older results until then.' }),
    evaluated_at: Nullable(Timestamp({ description: 'When every device was last evaluated against this version of the rule.' })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'NcmRuleResponse', additionalProperties: false },
)
export const RulePage = Paginated(RuleResponse, 'NcmRulePage')
export const RuleParams = Type.Object({ rule_id: Uuid() }, { additionalProperties: false })
export const RuleListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at'] as const })

const Evidence = Type.Object(
  { line: Type.Integer({ minimum: 1, description: 'Line number, from 1.' }), text: Type.String({ description: 'The line as stored for readers: secrets masked.' }) },
  { title: 'NcmEvidenceLine', additionalProperties: false },
)

export const ComplianceItem = Type.Object(
  {
    rule_id: Uuid(),
    rule_name: Type.String(),
    requirement: Requirement,
    device_id: Uuid(),
    device_name: Nullable(Type.String()),
    version_id: Uuid({ description: 'The configuration version the result is of.' }),
    status: StringEnum(['pass', 'fail'] as const),
    match_count: Type.Integer({ minimum: 0, description: 'Lines that matched the pattern.' }),
    evidence: Type.Array(Evidence, { maxItems: 5, description: 'Up to 5 matching lines (for must_not_contain, the offending ones), masked.' }),
    since: Timestamp({ description: 'Since when the device has had this status for this rule.' }),
    evaluated_at: Timestamp(),
  },
  { title: 'NcmComplianceItem', additionalProperties: false },
)
export const CompliancePage = Paginated(ComplianceItem, 'NcmCompliancePage')
export const ComplianceQuery = listQuery({
  maxPerPage: 200,
  defaultPerPage: 50,
  sortBy: ['rule_name', 'status', 'since'] as const,
  filters: {
    rule_id: Type.Optional(Uuid()),
    device_group_id: Type.Optional(Uuid({ description: 'Devices of this group and its descendants.' })),
    device_id: Type.Optional(Uuid()),
    status: Type.Optional(StringEnum(['pass', 'fail'] as const)),
  },
})

const RuleSummary = Type.Object(
  {
    rule_id: Uuid(),
    name: Type.String(),
    requirement: Requirement,
    notify: Type.Boolean(),
    evaluating: Type.Boolean(),
    pass: Type.Integer({ minimum: 0 }),
    fail: Type.Integer({ minimum: 0 }),
  },
  { title: 'NcmRuleSummary', additionalProperties: false },
)
export const ComplianceSummary = Type.Object(
  {
    rules: Type.Array(RuleSummary, { description: 'Every enabled rule, by name.' }),
    devices_evaluated: Type.Integer({ minimum: 0, description: 'Devices with at least one result.' }),
    devices_failing: Type.Integer({ minimum: 0, description: 'Devices failing at least one rule.' }),
    evaluating: Type.Boolean({ description: 'True while some rule is being (re-)evaluated.' }),
  },
  { title: 'NcmComplianceSummary', additionalProperties: false },
)
export const SummaryQuery = Type.Object({ device_group_id: Type.Optional(Uuid({ description: 'Devices of this group and its descendants.' })) }, { additionalProperties: false })

export type RuleCreate = Static<typeof RuleCreate>
export type RuleUpdate = Static<typeof RuleUpdate>
export type RuleResponse = Static<typeof RuleResponse>
