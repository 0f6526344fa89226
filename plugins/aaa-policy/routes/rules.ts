/** /aaa/policy/rules: list (in evaluation order, filtered), create, read, change, delete. */
import type { Knex } from 'knex'
import { applySearch, CommonErrors, defineRoute, ErrorBody, givenFields, reply, uniqueColumn, type ErrorFactory, type Static } from '../../../sdk/index.js'
import { PolicyErrors } from '../errors.js'
import { POLICY_READ, POLICY_WRITE } from '../permissions.js'
import { AaaPolicyRuleCreate, AaaPolicyRuleList, AaaPolicyRuleListQuery, AaaPolicyRuleResponse, AaaPolicyRuleUpdate, RuleParams, Where, Who } from '../schemas/rules.js'
import { DAYS, parseClientPrefix, timeWindowProblem, type StoredTimeWindow } from '../services/conditions.js'
import { applyFilters } from '../services/filter.js'
import { lockOrder, order as ruleOrder } from '../services/order.js'
import { lockReferences, type RefCheck } from '../services/references.js'
import type { PolicyTargets } from '../services/targets.js'
import { loadResponse, RULES, selectRules, toResponses, type RuleResponse } from '../services/rules.js'
import type { PolicyRouteDeps } from './deps.js'

/** A position past the default rule (the highest it may take: `max`). */
const outOfRange = (max: number) => PolicyErrors.positionRange({ field: 'position', vars: { max } })
const RESOURCE = 'aaa_policy_rule'

/** `who`/`where` carry exactly one key; the schema cannot say "exactly one" in a way its errors explain. */
function exactlyOne<T extends object>(value: T | undefined, field: string, err: ErrorFactory): void {
  if (value === undefined) return
  if (Object.values(value).filter((v) => v !== undefined).length !== 1) throw err({ field })
}

type WhoBody = Static<typeof Who>
type WhereBody = Static<typeof Where>

function refChecks(b: { who?: WhoBody; where?: WhereBody; tacacs_profile_id?: string | null; radius_profile_id?: string | null }): RefCheck[] {
  return [
    { kind: 'user', id: b.who?.user_id, field: 'who.user_id' },
    { kind: 'group', id: b.who?.group_id, field: 'who.group_id' },
    { kind: 'device', id: b.where?.device_id, field: 'where.device_id' },
    { kind: 'device_group', id: b.where?.device_group_id, field: 'where.device_group_id' },
    { kind: 'tacacs_profile', id: b.tacacs_profile_id, field: 'tacacs_profile_id' },
    { kind: 'radius_profile', id: b.radius_profile_id, field: 'radius_profile_id' },
  ]
}

/**
 * Rule names: unique case-insensitively (409 RULE_NAME_TAKEN). The unique index has the last word
 * (every writer holds the order lock, so a race past the check should not happen).
 */
const names = uniqueColumn({ table: RULES, taken: PolicyErrors.nameTaken, index: 'aaa_policy_rules_name_lower' })

const whoColumns = (w: WhoBody) => ({ who_user_id: w.user_id ?? null, who_group_id: w.group_id ?? null })
const whereColumns = (w: WhereBody) => ({ where_device_id: w.device_id ?? null, where_device_group_id: w.device_group_id ?? null })

type ConditionBody = { time_window?: StoredTimeWindow | null; client_prefixes?: string[] }

/**
 * The conditions' columns for the fields given, checked before anything is written: a bad window or
 * prefix answers 422 at its field (`time_window.end`, `client_prefixes[2]`). Prefixes are stored
 * canonical, each once; days in week order.
 */
function conditionColumns(b: ConditionBody): ConditionBody {
  const out: ConditionBody = {}
  const w = b.time_window
  if (w !== undefined) {
    const problem = w && timeWindowProblem(w)
    if (problem) throw PolicyErrors.conditionInvalid({ field: problem.field, vars: { reason: problem.reason } })
    out.time_window = w ? { days: DAYS.filter((d) => w.days.includes(d)), start: w.start, end: w.end } : null
  }
  if (b.client_prefixes !== undefined) {
    const texts = b.client_prefixes.map((text, i) => {
      const p = parseClientPrefix(text)
      if (!p.ok) throw PolicyErrors.conditionInvalid({ field: `client_prefixes[${i}]`, vars: { reason: p.reason } })
      return p.text
    })
    out.client_prefixes = [...new Set(texts)]
  }
  return out
}

/** The default rule matches anyone, anywhere, at any time: it takes no condition (null or empty is no change). */
function assertUnconditioned(b: ConditionBody): void {
  if (b.time_window) throw PolicyErrors.defaultFixed({ field: 'time_window', vars: { name: 'time_window' } })
  if (b.client_prefixes?.length) throw PolicyErrors.defaultFixed({ field: 'client_prefixes', vars: { name: 'client_prefixes' } })
}

const mustLoad = async (db: Knex | Knex.Transaction, targets: PolicyTargets, id: string): Promise<RuleResponse> => {
  const rule = await loadResponse(db, targets, id)
  if (!rule) throw CommonErrors.notFound({ field: 'rule_id' })
  return rule
}

export function ruleRoutes(d: PolicyRouteDeps) {
  const { knex } = d.database
  const { targets } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/aaa/policy/rules',
      permission: POLICY_READ,
      summary: 'List the AAA policy rules in evaluation order',
      description:
        'Not paginated: the whole ordered list, the default rule last. Filters of different dimensions (WHO: `who_user_id`, `who_group_id`; WHERE: `where_device_id`, `where_device_group_id`; `tacacs_profile_id`; `radius_profile_id`) combine with AND; values within one dimension (repeat a parameter, or give both parameters of a dimension) combine with OR. `search` keeps the rules whose name or description holds the text (case-insensitive), the default rule included when it matches. Without filters the default rule is listed; with a WHO or WHERE filter it is listed only when `resolve_groups` is true (it applies to anyone, anywhere). With `resolve_groups`, `who_user_id` also matches rules that target a group of the user, and `where_device_id` rules that target the device group of the device or any group above it.',
      tags: ['aaa-policy'],
      schema: { query: AaaPolicyRuleListQuery, response: { 200: AaaPolicyRuleList } },
      handler: async ({ query }) => {
        const qb = selectRules(knex)
        await applyFilters(qb, query, d)
        applySearch(qb, [`${RULES}.name`, `${RULES}.description`], query.search)
        return toResponses(await qb, targets, knex)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/aaa/policy/rules',
      permission: POLICY_WRITE,
      summary: 'Create an AAA policy rule',
      description:
        'WHO is exactly one of `who.user_id`, `who.group_id`; WHERE exactly one of `where.device_id`, `where.device_group_id` (422 VALIDATION_FAILED at `who`/`where`). An id that names nothing, or a profile of a protocol whose plugin the edition does not load, answers 422 REFERENCE_NOT_FOUND at its field. The rule goes in just before the default rule, or at `position` (the rules from there on move down one; at most the default rule\'s position: 422 at `position`). A rule without a TACACS+ (RADIUS) profile denies the requests of that protocol it matches. Names are unique, case-insensitively (409 RULE_NAME_TAKEN). Optional conditions narrow the rule further: `time_window` (days, start, end, in the daemons\' local time; a window that does not hold now does not match, and the next rule is tried) and `client_prefixes` (the request\'s source address must be inside one); a bad window (start equal to end) or prefix (malformed, host bits set, more than 32) answers 422 VALIDATION_FAILED at its field and changes nothing. See docs/aaa-policy.md.',
      tags: ['aaa-policy'],
      schema: { body: AaaPolicyRuleCreate, response: { 201: AaaPolicyRuleResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        exactlyOne(b.who, 'who', PolicyErrors.whoExactlyOne)
        exactlyOne(b.where, 'where', PolicyErrors.whereExactlyOne)
        const conditions = conditionColumns(b)
        return req.transaction(async (trx) => {
          await lockReferences(trx, targets, refChecks(b))
          const order = await lockOrder(trx)
          await names.assertFree(trx, b.name)
          const position = await ruleOrder.place(trx, order, b.position, outOfRange)
          const [{ id }] = await trx(RULES)
            .insert({
              name: b.name,
              description: b.description ?? null,
              enabled: b.enabled ?? true,
              position,
              ...whoColumns(b.who),
              ...whereColumns(b.where),
              tacacs_profile_id: b.tacacs_profile_id ?? null,
              radius_profile_id: b.radius_profile_id ?? null,
              ...conditions,
            })
            .returning('id')
            .catch(names.onViolation(b.name))
          const created = await mustLoad(trx, targets, id)
          await req.audit({ action: `${RESOURCE}.create`, resourceType: RESOURCE, resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/aaa/policy/rules/{rule_id}',
      permission: POLICY_READ,
      summary: 'Get an AAA policy rule',
      tags: ['aaa-policy'],
      schema: { params: RuleParams, response: { 200: AaaPolicyRuleResponse, 404: ErrorBody } },
      handler: async ({ params }) => mustLoad(knex, targets, params.rule_id),
    }),
    defineRoute({
      method: 'PUT',
      path: '/aaa/policy/rules/{rule_id}',
      permission: POLICY_WRITE,
      summary: 'Change an AAA policy rule',
      description:
        "Partial: only the fields given change. `who` or `where` replaces that part whole; `tacacs_profile_id`/`radius_profile_id` null clears the profile. `position` moves the rule there (the rules between shift by one); it must stay above the default rule (422 at `position`). `time_window` null and `client_prefixes` [] remove those conditions. The default rule's `who`, `where`, `position` and conditions cannot be set (422 DEFAULT_RULE_FIXED); its name, description, enabled flag and profiles can.",
      tags: ['aaa-policy'],
      schema: { params: RuleParams, body: AaaPolicyRuleUpdate, response: { 200: AaaPolicyRuleResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.rule_id
        exactlyOne(b.who, 'who', PolicyErrors.whoExactlyOne)
        exactlyOne(b.where, 'where', PolicyErrors.whereExactlyOne)
        const conditions = conditionColumns(b)
        return req.transaction(async (trx) => {
          // Not found answers before the body's references are looked at; the lock order comes after.
          await mustLoad(trx, targets, id)
          await lockReferences(trx, targets, refChecks(b))
          const order = await lockOrder(trx)
          const before = await mustLoad(trx, targets, id)
          if (before.is_default) {
            for (const k of ['who', 'where', 'position'] as const) if (b[k] !== undefined) throw PolicyErrors.defaultFixed({ field: k, vars: { name: k } })
            assertUnconditioned(conditions)
          }
          if (b.name !== undefined) await names.assertFree(trx, b.name, id)
          if (b.position !== undefined) await ruleOrder.moveAbove(trx, order, id, before.position, b.position, outOfRange)
          const cols = {
            ...givenFields(b, ['name', 'description', 'enabled', 'tacacs_profile_id', 'radius_profile_id']),
            ...(b.who && whoColumns(b.who)),
            ...(b.where && whereColumns(b.where)),
            ...conditions,
            updated_at: new Date(),
          }
          await trx(RULES).where({ id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          const now = await mustLoad(trx, targets, id)
          await req.audit({ action: `${RESOURCE}.update`, resourceType: RESOURCE, resourceId: id, before, after: now }, trx)
          return now
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/aaa/policy/rules/{rule_id}',
      permission: POLICY_WRITE,
      summary: 'Delete an AAA policy rule',
      description: 'The rules after it move up one, so positions stay 0..n-1. The default rule cannot be deleted: 409 DEFAULT_RULE_PROTECTED.',
      tags: ['aaa-policy'],
      schema: { params: RuleParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          // The table's delete trigger closes the gap (for deletes in bare SQL too).
          const before = await ruleOrder.remove(trx, () => mustLoad(trx, targets, req.params.rule_id), () => PolicyErrors.defaultProtected({ field: 'rule_id' }))
          await req.audit({ action: `${RESOURCE}.delete`, resourceType: RESOURCE, resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
