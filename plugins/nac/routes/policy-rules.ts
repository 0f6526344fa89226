/** /nac/policy/rules: the NAC policy's ordered rules (list in evaluation order, create, read, change, delete). */
import type { Knex } from 'knex'
import { CommonErrors, defineRoute, ErrorBody, givenFields, jsonText, reply, uniqueColumn } from '../../../sdk/index.js'
import { nacReferenceNotFound, NacErrors as E } from '../errors.js'
import { NAC_POLICY_READ, NAC_POLICY_WRITE } from '../permissions.js'
import { NacPolicyRuleCreate, NacPolicyRuleList, NacPolicyRuleListQuery, NacPolicyRuleResponse, NacPolicyRuleUpdate, NacRuleParams } from '../schemas/policy.js'
import { lockConditionRefs, referencedIds, storedConditions, type ConditionInput, type ConditionTargets, type StoredCondition } from '../services/conditions.js'
import { lockOrder, order as ruleOrder, RULES } from '../services/policy-order.js'
import { loadRule, loadRules, type RuleResponse } from '../services/policy-rules.js'
import { PROFILES } from '../services/profiles.js'
import type { NacRouteDeps } from './deps.js'

/** A position past the default rule (the highest it may take: `max`). */
const outOfRange = (max: number) => E.positionRange({ field: 'position', vars: { max } })
const RESOURCE = 'nac_policy_rule'

const names = uniqueColumn({ table: RULES, taken: E.ruleNameTaken, index: 'nac_policy_rules_name_unique' })

const mustLoad = async (db: Knex | Knex.Transaction, targets: ConditionTargets, id: string): Promise<RuleResponse> => {
  const rule = await loadRule(db, targets, id)
  if (!rule) throw CommonErrors.notFound({ field: 'rule_id' })
  return rule
}

/** The profile, locked FOR KEY SHARE so that it cannot be deleted before the rule commits; 422 when there is none. */
async function lockProfile(trx: Knex.Transaction, id: string): Promise<void> {
  if (!(await trx(PROFILES).where({ id }).forKeyShare().first('id'))) throw nacReferenceNotFound('authorization_profile', 'authorization_profile_id', id)
}

const conditionColumns = (list: StoredCondition[]) => ({ conditions: jsonText(list), ...referencedIds(list) })

export function policyRuleRoutes(d: NacRouteDeps) {
  const { knex, targets } = d
  /** Checked before anything is locked: a bad condition answers 422 at its field. */
  const check = (conditions: ConditionInput[] | undefined) => (conditions === undefined ? undefined : storedConditions(conditions))
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/policy/rules',
      permission: NAC_POLICY_READ,
      summary: 'List the NAC policy rules in evaluation order',
      description: 'Not paginated: the whole ordered list, the default rule last. `authorization_profile_id` keeps the rules giving that profile; `search` the rules whose name or description holds the text (case-insensitive), the default rule included when it matches.',
      tags: ['nac'],
      schema: { query: NacPolicyRuleListQuery, response: { 200: NacPolicyRuleList } },
      handler: async ({ query }) => loadRules(knex, targets, { authorization_profile_id: query.authorization_profile_id, search: query.search }),
    }),
    defineRoute({
      method: 'POST',
      path: '/nac/policy/rules',
      permission: NAC_POLICY_WRITE,
      summary: 'Create a NAC policy rule',
      description:
        'The rule goes in just before the default rule, or at `position` (the rules from there on move down one; at most the default rule\'s position: 422 at `position`). A group id or profile id that names nothing answers 422 REFERENCE_NOT_FOUND at its field; a malformed condition 422 VALIDATION_FAILED at `conditions[i]…`; a name taken (case-insensitively) 409 NAC_RULE_NAME_TAKEN. Nothing changes then.',
      tags: ['nac'],
      schema: { body: NacPolicyRuleCreate, response: { 201: NacPolicyRuleResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const conditions = check(b.conditions) ?? []
        return req.transaction(async (trx) => {
          // Lock order, as the AAA policy's: what the rule references, then the order, then the rules.
          await lockConditionRefs(trx, targets, conditions)
          await lockProfile(trx, b.authorization_profile_id)
          const order = await lockOrder(trx)
          await names.assertFree(trx, b.name)
          const position = await ruleOrder.place(trx, order, b.position, outOfRange)
          const [{ id }] = await trx(RULES)
            .insert({
              name: b.name,
              description: b.description ?? null,
              enabled: b.enabled ?? true,
              position,
              authorization_profile_id: b.authorization_profile_id,
              ...conditionColumns(conditions),
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
      path: '/nac/policy/rules/{rule_id}',
      permission: NAC_POLICY_READ,
      summary: 'Get a NAC policy rule',
      tags: ['nac'],
      schema: { params: NacRuleParams, response: { 200: NacPolicyRuleResponse, 404: ErrorBody } },
      handler: async ({ params }) => mustLoad(knex, targets, params.rule_id),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/policy/rules/{rule_id}',
      permission: NAC_POLICY_WRITE,
      summary: 'Change a NAC policy rule',
      description:
        "Partial: only the fields given change; `conditions` replaces the list. `position` moves the rule (the rules between shift by one); it must stay above the default rule (422 at `position`). The default rule's `conditions`, `position` and `enabled: false` answer 422 DEFAULT_RULE_FIXED: it stays last, enabled and unconditioned; its name, description and profile change.",
      tags: ['nac'],
      schema: { params: NacRuleParams, body: NacPolicyRuleUpdate, response: { 200: NacPolicyRuleResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.rule_id
        const conditions = check(b.conditions)
        return req.transaction(async (trx) => {
          // Not found answers before the body's references are looked at.
          const found = await mustLoad(trx, targets, id)
          if (found.is_default) {
            if (b.conditions !== undefined && b.conditions.length) throw E.defaultFixed({ field: 'conditions', vars: { name: 'conditions' } })
            if (b.position !== undefined) throw E.defaultFixed({ field: 'position', vars: { name: 'position' } })
            if (b.enabled === false) throw E.defaultFixed({ field: 'enabled', vars: { name: 'enabled: false' } })
          }
          if (conditions) await lockConditionRefs(trx, targets, conditions)
          if (b.authorization_profile_id !== undefined) await lockProfile(trx, b.authorization_profile_id)
          const order = await lockOrder(trx)
          const before = await mustLoad(trx, targets, id)
          if (b.name !== undefined) await names.assertFree(trx, b.name, id)
          if (b.position !== undefined) await ruleOrder.moveAbove(trx, order, id, before.position, b.position, outOfRange)
          await trx(RULES)
            .where({ id })
            .update({ ...givenFields(b, ['name', 'description', 'enabled', 'authorization_profile_id']), ...(conditions && conditionColumns(conditions)), updated_at: new Date() })
            .catch(names.onViolation(b.name ?? before.name))
          const after = await mustLoad(trx, targets, id)
          await req.audit({ action: `${RESOURCE}.update`, resourceType: RESOURCE, resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/policy/rules/{rule_id}',
      permission: NAC_POLICY_WRITE,
      summary: 'Delete a NAC policy rule',
      description: 'The rules after it move up one. The default rule cannot be deleted: 409 DEFAULT_RULE_PROTECTED.',
      tags: ['nac'],
      schema: { params: NacRuleParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          // The table's delete trigger closes the gap.
          const before = await ruleOrder.remove(trx, () => mustLoad(trx, targets, req.params.rule_id), () => E.defaultProtected({ field: 'rule_id' }))
          await req.audit({ action: `${RESOURCE}.delete`, resourceType: RESOURCE, resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
