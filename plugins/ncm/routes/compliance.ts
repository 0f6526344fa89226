/**
 * /ncm/compliance: each enabled rule's latest result per device it covers (with masked evidence),
 * and /ncm/compliance/summary: the counts per rule. ncm.read; nothing here shows raw text.
 */
import { defineRoute, paginate, uuidArray, type Static } from '../../../sdk/index.js'
import { NCM_READ } from '../permissions.js'
import { ComplianceItem, CompliancePage, ComplianceQuery, ComplianceSummary, SummaryQuery } from '../schemas/compliance.js'
import type { NcmContext } from '../services/context.js'
import type { EvidenceLine, Requirement, RuleStatus } from '../services/evaluate.js'

interface ResultRow {
  rule_id: string
  rule_name: string
  requirement: Requirement
  device_id: string
  version_id: string
  status: RuleStatus
  match_count: number
  evidence: EvidenceLine[]
  since: Date
  evaluated_at: Date
}

export function complianceRoutes(c: NcmContext) {
  const knex = c.database.knex

  /** The devices of a group and its descendants. */
  async function devicesOfGroup(groupId: string): Promise<string[]> {
    const groups = new Set((await c.inventory.groupDescendants(groupId)).map((g) => g.toLowerCase()))
    return (await c.inventory.listDevices()).filter((d) => d.device_group_id && groups.has(d.device_group_id.toLowerCase())).map((d) => d.id)
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/compliance',
      permission: NCM_READ,
      summary: 'Compliance results',
      description:
        'One item per enabled rule and device it covers that has a stored configuration: pass or fail, since when, and up to 5 matching lines with secrets masked. `search` matches the rule name. A rule still being evaluated (see GET /ncm/rules, `evaluating`) shows its earlier results.',
      tags: ['ncm'],
      schema: { query: ComplianceQuery, response: { 200: CompliancePage } },
      handler: async ({ query }) => {
        const inGroup = query.device_group_id ? await devicesOfGroup(query.device_group_id) : null
        const page = await paginate(query, {
          base: () => knex('ncm_rule_results as r').join('ncm_rules as n', 'n.id', 'r.rule_id').where('n.enabled', true).select('r.*', 'n.name as rule_name', 'n.requirement'),
          equals: { rule_id: 'r.rule_id', device_id: 'r.device_id', status: 'r.status' },
          filter: (qb) => {
            if (inGroup) qb.whereRaw('r.device_id = ANY(?::uuid[])', [uuidArray(inGroup)])
          },
          searchColumns: ['n.name'],
          sortColumns: { rule_name: 'n.name', status: 'r.status', since: 'r.since' },
          defaultSort: 'rule_name',
          defaultPerPage: 50,
          tieBreaker: 'r.device_id',
          map: (r: ResultRow) => r,
        })
        const names = await c.inventory.references.device.names(
          page.items.map((r) => r.device_id),
          knex,
        )
        const items: Static<typeof ComplianceItem>[] = page.items.map((r) => ({
          rule_id: r.rule_id,
          rule_name: r.rule_name,
          requirement: r.requirement,
          device_id: r.device_id,
          device_name: names.get(r.device_id.toLowerCase()) ?? null,
          version_id: r.version_id,
          status: r.status,
          match_count: r.match_count,
          evidence: r.evidence,
          since: r.since.toISOString(),
          evaluated_at: r.evaluated_at.toISOString(),
        }))
        return { ...page, items }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/compliance/summary',
      permission: NCM_READ,
      summary: 'Compliance summary',
      description: 'Per enabled rule, how many devices pass and fail it; how many devices fail at least one rule; whether some rule is still being evaluated.',
      tags: ['ncm'],
      schema: { query: SummaryQuery, response: { 200: ComplianceSummary } },
      handler: async ({ query }) => {
        const inGroup = query.device_group_id ? await devicesOfGroup(query.device_group_id) : null
        const results = () => {
          const q = knex('ncm_rule_results as r').join('ncm_rules as n', 'n.id', 'r.rule_id').where('n.enabled', true)
          if (inGroup) q.whereRaw('r.device_id = ANY(?::uuid[])', [uuidArray(inGroup)])
          return q
        }
        const rules = await knex('ncm_rules').where({ enabled: true }).orderBy('name').select('id', 'name', 'requirement', 'notify', 'evaluated_at')
        const counts = (await results().groupBy('r.rule_id', 'r.status').select('r.rule_id', 'r.status', knex.raw('count(*)::int as n'))) as { rule_id: string; status: RuleStatus; n: number }[]
        const devices = (await results()
          .select(knex.raw('count(DISTINCT r.device_id)::int as evaluated'), knex.raw("count(DISTINCT r.device_id) FILTER (WHERE r.status = 'fail')::int as failing"))
          .first()) as { evaluated: number; failing: number }
        const count = (ruleId: string, status: RuleStatus) => counts.find((x) => x.rule_id === ruleId && x.status === status)?.n ?? 0
        return {
          rules: rules.map((r) => ({ rule_id: r.id, name: r.name, requirement: r.requirement, notify: r.notify, evaluating: r.evaluated_at === null, pass: count(r.id, 'pass'), fail: count(r.id, 'fail') })),
          devices_evaluated: devices.evaluated,
          devices_failing: devices.failing,
          evaluating: rules.some((r) => r.evaluated_at === null),
        }
      },
    }),
  ]
}
