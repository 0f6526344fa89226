/**
 * /ncm/rules: compliance rules. Reading them needs ncm.read; writing needs ncm.rules.manage and also
 * ncm.reveal (403 NCM_REVEAL_REQUIRED), because a rule decides on the raw configurations, secrets
 * included: a rule such as `enable secret 5 \$1\$ab.*` tells its author, device by device, whether a
 * secret starts with `$1$ab`.
 */
import { defineRoute, ErrorBody, givenFields, lockForChange, orNotFound, paginate, reply, type Actor, type UpdateOf } from '../../../sdk/index.js'
import { NcmComplianceErrors } from '../errors-compliance.js'
import { NCM_READ, NCM_REVEAL, NCM_RULES_MANAGE } from '../permissions.js'
import { RuleCreate, RuleListQuery, RulePage, RuleParams, RuleResponse, RuleUpdate } from '../schemas/compliance.js'
import type { NcmContext } from '../services/context.js'
import type { Reevaluation } from '../services/evaluate-worker.js'
import { getRule, lockGroup, preparePattern, ruleNames, ruleResponses } from '../services/rules.js'
import type { RuleRow, RulesTable } from '../tables-compliance.js'

function requireReveal(actor: Actor | null): void {
  if (!actor || !(actor.isAdmin || actor.permissions.has(NCM_REVEAL))) throw NcmComplianceErrors.revealRequired()
}

const WRITE_NOTE = 'Needs ncm.rules.manage and ncm.reveal (403 NCM_REVEAL_REQUIRED without the latter): a rule decides on the configurations with their secrets.'

export function ruleRoutes(c: NcmContext, worker: Reevaluation) {
  const knex = c.database.knex
  const groups = c.inventory.references.device_group
  const load = (db: Parameters<typeof getRule>[0], id: string) => getRule(db, groups, id)
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/rules',
      permission: NCM_READ,
      summary: 'List compliance rules',
      description: '`search` matches name, description and pattern (case-insensitive substring).',
      tags: ['ncm'],
      schema: { query: RuleListQuery, response: { 200: RulePage } },
      handler: async ({ query }) => {
        const page = await paginate(query, {
          base: () => knex('ncm_rules'),
          searchColumns: ['name', 'description', 'pattern'],
          sortColumns: { name: 'name', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: RuleRow) => r,
        })
        return { ...page, items: await ruleResponses(knex, groups, page.items) }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/rules',
      permission: NCM_RULES_MANAGE,
      summary: 'Create a compliance rule',
      description: `${WRITE_NOTE} The rule is evaluated on the latest configuration of every device it covers in the background (\`evaluating\` until done), then on every new version. A name taken answers 409 NCM_RULE_NAME_TAKEN; a regex outside the safe subset 422 NCM_REGEX_UNSAFE at \`pattern\`; an unknown group 422 NCM_GROUP_NOT_FOUND.`,
      tags: ['ncm'],
      schema: { body: RuleCreate, response: { 201: RuleResponse, 403: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        requireReveal(req.actor)
        const b = req.body
        const pattern = preparePattern(b.match, b.pattern)
        const created = await req.transaction(async (trx) => {
          await ruleNames.assertFree(trx, b.name)
          await lockGroup(trx, groups, b.device_group_id)
          const [{ id }] = await trx('ncm_rules')
            .insert({
              name: b.name,
              description: b.description ?? null,
              device_group_id: b.device_group_id ?? null,
              requirement: b.requirement,
              match: b.match,
              pattern,
              notify: b.notify ?? false,
              enabled: b.enabled ?? true,
            })
            .returning('id')
            .catch(ruleNames.onViolation(b.name))
          const rule = (await load(trx, id))!
          await req.audit({ action: 'ncm.rule.create', resourceType: 'ncm_rule', resourceId: id, after: rule }, trx)
          return rule
        })
        worker.kick()
        return created
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/rules/{rule_id}',
      permission: NCM_READ,
      summary: 'Get a compliance rule',
      tags: ['ncm'],
      schema: { params: RuleParams, response: { 200: RuleResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await load(knex, params.rule_id), 'rule_id'),
    }),
    defineRoute({
      method: 'PUT',
      path: '/ncm/rules/{rule_id}',
      permission: NCM_RULES_MANAGE,
      summary: 'Change a compliance rule',
      description: `${WRITE_NOTE} Partial: only the fields given change. A change of device_group_id, requirement, match or pattern, or enabling the rule, re-evaluates it on every device (\`evaluating\` until done; the report shows the earlier results meanwhile). Disabling it removes its results. A request that fails changes nothing.`,
      tags: ['ncm'],
      schema: { params: RuleParams, body: RuleUpdate, response: { 200: RuleResponse, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        requireReveal(req.actor)
        const b = req.body
        const updated = await req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'ncm_rules', req.params.rule_id, 'rule_id', load)
          const match = b.match ?? before.match
          const pattern = b.pattern !== undefined || b.match !== undefined ? preparePattern(match, b.pattern ?? before.pattern) : before.pattern
          if (b.name !== undefined) await ruleNames.assertFree(trx, b.name, before.id)
          if (b.device_group_id !== undefined) await lockGroup(trx, groups, b.device_group_id)
          const group = b.device_group_id !== undefined ? b.device_group_id : before.device_group_id
          const enabled = b.enabled ?? before.enabled
          const decides = group !== before.device_group_id || (b.requirement ?? before.requirement) !== before.requirement || match !== before.match || pattern !== before.pattern
          const cols: UpdateOf<typeof RulesTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description', 'requirement', 'notify', 'enabled']), match, pattern, device_group_id: group }
          if (decides || (enabled && !before.enabled)) {
            // The row is locked: its revision cannot move under us.
            const { revision } = (await trx('ncm_rules').where({ id: before.id }).first('revision'))!
            cols.revision = revision + 1
            cols.evaluated_at = null
          }
          await trx('ncm_rules').where({ id: before.id }).update(cols).catch(ruleNames.onViolation(b.name ?? before.name))
          if (!enabled) await trx('ncm_rule_results').where({ rule_id: before.id }).delete()
          const after = (await load(trx, before.id))!
          await req.audit({ action: 'ncm.rule.update', resourceType: 'ncm_rule', resourceId: before.id, before, after }, trx)
          return after
        })
        worker.kick()
        return updated
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/rules/{rule_id}',
      permission: NCM_RULES_MANAGE,
      summary: 'Delete a compliance rule',
      description: 'Its results go with it. Needs ncm.rules.manage only: deleting a rule decides nothing on the configurations, so it needs no ncm.reveal.',
      tags: ['ncm'],
      schema: { params: RuleParams, response: { 204: null, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'ncm_rules', req.params.rule_id, 'rule_id', load)
          await trx('ncm_rules').where({ id: before.id }).delete()
          await req.audit({ action: 'ncm.rule.delete', resourceType: 'ncm_rule', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
