/**
 * /nac/profiling-rules: the editable rule table of profiling (docs/nac.md
 * "Profiling"). A rule change applies to the records that arrive after it;
 * an endpoint is profiled again when it sends new evidence.
 */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, jsonText, lockForChange, orNotFound, paginate, reply, Type, uniqueColumn } from '../../../sdk/index.js'
import type { EndpointAuthorizationChange } from '../api.js'
import type { Evidence } from '../services/evidence.js'
import { loadPlacements } from '../services/placement.js'
import { loadRules } from '../services/profiler.js'
import { decide, writeVerdicts, type Candidate } from '../services/verdicts.js'
import { NacErrors as E } from '../errors.js'
import { NAC_PROFILING_WRITE, NAC_READ } from '../permissions.js'
import type { ProfilingConditionRow, ProfilingRuleTableRow } from '../tables.js'
import { ProfilingRuleCreate, ProfilingRuleListQuery, ProfilingRuleListResponse, ProfilingRuleParams, ProfilingRuleResponse, ProfilingRuleUpdate } from '../schemas/profiling-rules.js'
import type { NacRouteDeps } from './deps.js'

const RULES = 'nac_profiling_rules'
const names = uniqueColumn({ table: RULES, taken: E.profilingRuleNameTaken, index: 'nac_profiling_rules_name_unique' })

const iso = (d: Date | string) => new Date(d).toISOString()
const toRule = (r: ProfilingRuleTableRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  conditions: (r.conditions ?? []).map((c) => ({ attribute: c.attribute, operator: c.operator, value: c.value })),
  device_type: r.device_type,
  certainty: r.certainty,
  enabled: r.enabled,
  position: r.position,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})
type Rule = ReturnType<typeof toRule>

const selectRules = (db: Knex | Knex.Transaction) => db(RULES).select('id', 'name', 'description', 'conditions', 'device_type', 'certainty', 'enabled', 'position', 'created_at', 'updated_at')
async function loadRule(db: Knex | Knex.Transaction, id: string): Promise<Rule | null> {
  const r = await selectRules(db).where({ id }).first()
  return r ? toRule(r) : null
}
const conditionsJson = (c: readonly ProfilingConditionRow[]) => jsonText(c.map(({ attribute, operator, value }) => ({ attribute, operator, value })))

const ApplyResponse = Type.Object(
  {
    evaluated: Type.Integer({ description: 'Endpoints whose type profiling decides (every one but those typed by hand).' }),
    changed: Type.Integer({ description: 'Endpoints whose device type, confidence, reason or placed group changed.' }),
  },
  { title: 'ProfilingApplyResponse', additionalProperties: false },
)

export function profilingRuleRoutes(d: NacRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'POST',
      path: '/nac/profiling-rules/apply',
      permission: NAC_PROFILING_WRITE,
      summary: 'Apply the profiling rules to every endpoint now',
      description:
        'Rule changes otherwise apply as endpoints send new evidence. This decides again, with the rules as they are, for every endpoint not typed by hand, from the evidence kept of it; changed types move placed endpoints between groups and reach the authorization listeners (the CoA sender). Audited once (`profiling_rule.apply`, with the counts).',
      tags: ['nac'],
      schema: { response: { 200: ApplyResponse } },
      handler: async (req) => {
        let changes: EndpointAuthorizationChange[] = []
        const out = await req.transaction(async (trx) => {
          const [rules, placements] = await Promise.all([loadRules(trx), loadPlacements(trx)])
          const rows = (await trx('nac_endpoints as e')
            .leftJoin('nac_endpoint_evidence as x', 'x.endpoint_id', 'e.id')
            .where('e.device_type_manual', false)
            .forUpdate('e')
            .select(
              'e.id', 'e.mac', 'e.vendor', 'e.device_type', 'e.device_type_confidence', 'e.device_type_reason',
              'e.endpoint_group_id', 'e.endpoint_group_placed', 'e.last_nas_ip', 'e.last_nas_port', 'x.evidence',
            )) as (Candidate & { evidence: Evidence | null })[]
          const dd = decide(rules, placements, rows.map((r) => ({ e: r, evidence: r.evidence ?? {} })), 'profiling')
          await writeVerdicts(trx, dd.updates)
          changes = dd.changes
          const result = { evaluated: rows.length, changed: dd.updates.length }
          await req.audit({ action: 'profiling_rule.apply', resourceType: 'profiling_rule', resourceId: null, after: result }, trx)
          return result
        })
        await d.events.emit(changes)
        return out
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/profiling-rules',
      permission: NAC_READ,
      summary: 'List profiling rules',
      description: '`search` matches name, description and device type. Sorted by `position` by default.',
      tags: ['nac'],
      schema: { query: ProfilingRuleListQuery, response: { 200: ProfilingRuleListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectRules(knex),
          equals: { enabled: 'enabled' },
          filter: (qb) => {
            if (query.device_type) qb.whereRaw('lower(device_type) = lower(?)', [query.device_type])
          },
          searchColumns: ['name', 'description', 'device_type'],
          sortColumns: { position: 'position', name: 'name', certainty: 'certainty', device_type: 'device_type', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'position',
          defaultPerPage: 50,
          tieBreaker: 'name',
          map: toRule,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/nac/profiling-rules',
      permission: NAC_PROFILING_WRITE,
      summary: 'Create a profiling rule',
      description: 'Name taken (case-insensitively): 409 PROFILING_RULE_NAME_TAKEN. Matching is `equals`, `contains` or `starts_with`, never a regular expression.',
      tags: ['nac'],
      schema: { body: ProfilingRuleCreate, response: { 201: ProfilingRuleResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          const { rows: last } = (await trx.raw(`SELECT coalesce(max(position), 0)::int AS p FROM ${RULES}`)) as { rows: { p: number }[] }
          const [{ id }] = await trx
            .transaction((sp) =>
              sp(RULES)
                .insert({
                  name: b.name,
                  description: b.description ?? null,
                  conditions: conditionsJson(b.conditions),
                  device_type: b.device_type,
                  certainty: b.certainty,
                  enabled: b.enabled ?? true,
                  position: b.position ?? last[0].p + 1,
                })
                .returning('id'),
            )
            .catch(names.onViolation(b.name))
          const rule = (await loadRule(trx, id))!
          await req.audit({ action: 'profiling_rule.create', resourceType: 'profiling_rule', resourceId: id, after: rule }, trx)
          return rule
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/profiling-rules/{rule_id}',
      permission: NAC_READ,
      summary: 'Get a profiling rule',
      tags: ['nac'],
      schema: { params: ProfilingRuleParams, response: { 200: ProfilingRuleResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadRule(knex, params.rule_id), 'rule_id'),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/profiling-rules/{rule_id}',
      permission: NAC_PROFILING_WRITE,
      summary: 'Change a profiling rule',
      description: 'Partial: only the fields given change. Name taken (case-insensitively): 409 PROFILING_RULE_NAME_TAKEN.',
      tags: ['nac'],
      schema: { params: ProfilingRuleParams, body: ProfilingRuleUpdate, response: { 200: ProfilingRuleResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.rule_id
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, RULES, id, 'rule_id', loadRule)
          if (b.name !== undefined) await names.assertFree(trx, b.name, id)
          await trx
            .transaction((sp) =>
              sp(RULES)
                .where({ id })
                .update({
                  ...givenFields(b, ['name', 'description', 'device_type', 'certainty', 'enabled', 'position']),
                  ...(b.conditions === undefined ? {} : { conditions: conditionsJson(b.conditions) }),
                  updated_at: new Date(),
                }),
            )
            .catch(names.onViolation(b.name ?? before.name))
          const after = (await loadRule(trx, id))!
          await req.audit({ action: 'profiling_rule.update', resourceType: 'profiling_rule', resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/profiling-rules/{rule_id}',
      permission: NAC_PROFILING_WRITE,
      summary: 'Delete a profiling rule',
      description: 'Endpoints it typed keep their type (and its reason) until profiling decides again.',
      tags: ['nac'],
      schema: { params: ProfilingRuleParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        const id = req.params.rule_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, RULES, id, 'rule_id', loadRule)
          await trx(RULES).where({ id }).delete()
          await req.audit({ action: 'profiling_rule.delete', resourceType: 'profiling_rule', resourceId: id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
