/** POST /nac/policy/impact: whose network access changes if the pending NAC policy is deployed (docs/nac.md "Change impact"). */
import { CommonErrors, defineRoute, ErrorBody, ImpactAccumulator, PHRASE_SAY, IMPACT_DEFAULT_DAYS, PolicyImpactBounds, policyImpactSettingRefs, PolicyImpactResponse, Type, type PolicyImpact, type SettingRef } from '../../../sdk/index.js'
import { NacErrors } from '../errors.js'
import { NAC_POLICY_READ } from '../permissions.js'
import { FREERADIUS, NAC_INPUTS_FILE, parseNacInputs, takeNacInputs, type NacInputs } from '../services/impact-inputs.js'
import { replayNac } from '../services/impact-replay.js'
import { ImpactSide, NO_INPUTS } from '../services/impact-side.js'
import type { NacRouteDeps } from './deps.js'

const LOGS_READ = 'aaa-logs.read'

/** The bounds' defaults: the settings the aaa-policy plugin declares; an edition without it has none, the defaults hold. */
const { maxRequests: maxRequestsSetting, timeBudgetSeconds: timeBudgetSetting } = policyImpactSettingRefs

export const NacPolicyImpactRequest = Type.Object(PolicyImpactBounds, { title: 'NacPolicyImpactRequest', additionalProperties: false })

export function policyImpactRoutes(d: NacRouteDeps) {
  const setting = async <T>(ref: SettingRef<T>): Promise<T> => d.settings.get(ref).catch(() => ref.default)
  return [
    defineRoute({
      method: 'POST',
      path: '/nac/policy/impact',
      permission: NAC_POLICY_READ,
      summary: 'Whose network access changes if the NAC policy is deployed',
      description:
        'Replays the distinct 802.1X and MAB requests of the AAA logs of the last `days` days (default 7, at most 90) against what the active FreeRADIUS release was built from (its kept `nac-policy-inputs.json`: the compiled NAC policy, the endpoints, the users, the RADIUS clients and their device groups; no secret) and against the database as edited, with the NAC policy test\'s evaluator, and answers what differs: decisions that flip, reply attributes that change (VLAN, ACL, Filter-Id, Session-Timeout), the rule that decides, grouped by user (or MAC), user group, switch, device group and rule, the biggest first; each change carries the `/nac/policy/test` body that answers why. Requests the log cannot replay (a PEAP password never proven right, an EAP-TLS certificate refused in the TLS exchange, a rule testing a certificate field or a time window the grouped log does not fix) are counted and named in `requests.unreplayable`. Needs `aaa-logs.read` as well (403 at `logs`). Read-only; bounded by `max_requests` and `time_budget_seconds` (defaults: the settings `policy_impact.*`), stated in `limits.reached`; the logs are read on the log replica when one is configured. 409 IMPACT_LOGS_UNAVAILABLE without the AAA logs plugin, 409 IMPACT_NOT_DEPLOYED when the active release predates the kept inputs (deploy once).',
      tags: ['nac'],
      schema: { body: NacPolicyImpactRequest, response: { 200: PolicyImpactResponse, 403: ErrorBody, 409: ErrorBody } },
      handler: async (req): Promise<PolicyImpact> => {
        const started = Date.now()
        const actor = req.actor
        // The requests are the logs: only for who may read them.
        if (!actor || !(actor.isAdmin || actor.permissions.has(LOGS_READ))) throw CommonErrors.forbidden({ field: 'logs' })
        if (!d.aaaLogs) throw NacErrors.impactNoLogs()
        const b = req.body
        const days = b.days ?? IMPACT_DEFAULT_DAYS
        const maxRequests = b.max_requests ?? (await setting(maxRequestsSetting))
        const budget = b.time_budget_seconds ?? (await setting(timeBudgetSetting))
        const deadline = started + budget * 1000
        const release = await d.deploys.currentFiles(FREERADIUS, { reveal: true })
        let deployed: NacInputs | null = null
        if (release) {
          const file = release.files.find((f) => f.path === NAC_INPUTS_FILE)
          deployed = file ? parseNacInputs(file.content) : null
          if (!deployed) throw NacErrors.impactNotKept({ vars: { release: release.release } })
        }
        // The database as edited, in one snapshot (the embedded engine has one connection: before the logs' read).
        const { pending, names } = await d.database.transaction(
          async (trx) => {
            const pending = await takeNacInputs(trx, d.inputs)
            const names = new Map<string, string>()
            for (const g of await d.identity.userGroups(trx)) names.set(g.id, g.name)
            if (d.inventory) for (const g of await d.inventory.listGroups(trx)) names.set(g.id, g.name)
            return { pending, names }
          },
          { isolation: 'repeatable read' },
        )
        const to = new Date()
        const from = new Date(to.getTime() - days * 86_400_000)
        const abort = new AbortController()
        const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - Date.now()))
        let logs
        try {
          logs = await d.aaaLogs.radiusImpactRequests({ from, to, limit: maxRequests, signal: abort.signal })
        } finally {
          clearTimeout(timer)
        }
        const acc = new ImpactAccumulator({ changesLimit: b.changes_limit ?? 200, groupLimit: b.group_limit ?? 25, unreplayableWords: 'nac:impact_unreplayable' })
        // The reasons kept as phrases, said in the caller's language by acc.result(req.t).
        const replay = replayNac(logs.items, new ImpactSide(deployed ?? NO_INPUTS, deployed === null, PHRASE_SAY), new ImpactSide(pending, false, PHRASE_SAY), acc, { deadline, names, at: to })
        const budgetReached = abort.signal.aborted || replay.timeBudgetReached
        return {
          window: { from: from.toISOString(), to: to.toISOString(), days },
          compared: {
            deployed: [{ daemon: FREERADIUS, release: release?.release ?? null, deploy_id: release?.deploy_id || null, deployed_at: release?.activated_at ?? null }],
            pending: 'database',
          },
          ...acc.result(req.t),
          limits: { reached: budgetReached ? 'time_budget' : logs.truncated ? 'max_requests' : null, max_requests: maxRequests, time_budget_seconds: budget },
          timing: { total_ms: Date.now() - started, log_scan_ms: logs.scan_ms, evaluate_ms: replay.evaluate_ms },
          replica_lag_ms: logs.lag_ms,
        }
      },
    }),
  ]
}
