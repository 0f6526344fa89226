/** POST /aaa/policy/impact: whose access changes if the pending policy is deployed, from the logs' real requests. */
import { CommonErrors, defineRoute, ErrorBody, IMPACT_DEFAULT_DAYS, policyImpactSettingRefs, PolicyImpactBounds, PolicyImpactResponse, StringEnum, Type } from '../../../sdk/index.js'
import type { AaaLogsService } from '../../aaa-logs/api.js'
import { POLICY_READ } from '../permissions.js'
import { runImpact } from '../services/impact-run.js'
import type { PolicyRouteDeps } from './deps.js'

/** The logs' own permission: the report shows who did what where, so it needs both. */
const LOGS_READ = 'aaa-logs.read'

export const PolicyImpactRequest = Type.Object(
  {
    ...PolicyImpactBounds,
    protocol: Type.Optional(
      StringEnum(['tacacs', 'radius'] as const, { description: 'Only this protocol’s requests, against its daemon’s release (`tacacs`: tac_plus-ng; `radius`: FreeRADIUS), for a deploy of that daemon alone. Default: both.' }),
    ),
  },
  { title: 'AaaPolicyImpactRequest', additionalProperties: false },
)

export function policyImpactRoutes(d: PolicyRouteDeps, logs: AaaLogsService) {
  return [
    defineRoute({
      method: 'POST',
      path: '/aaa/policy/impact',
      permission: POLICY_READ,
      summary: 'Change impact: replay the logs’ real requests against the deployed and the pending policy',
      description:
        'Takes the distinct requests of the last `days` days of the AAA logs (TACACS+ authentications, session and command authorizations; RADIUS device-administration authentications; 802.1X and MAB are `POST /api/v1/nac/policy/impact`), evaluates each, as the policy test does, against the inputs the active release of its daemon was rendered from (`against: deployed`) and against the policy as edited (`against: database`), at the time it was last seen, and answers what differs: decisions that flip, attributes that change, the rule (and command-set line) that decides, counted in real requests and grouped by user, user group, device, device group and rule, biggest first. Requests the replay cannot decide (a login that only failed on its password, a second factor, a directory user, a method the test does not answer) are counted by reason, never guessed. Needs `aaa-logs.read` as well as `aaa-policy.read` (403 without it). Read-only; reads the logs on the log replica when one is configured. Bounded by `max_requests` and `time_budget_seconds` (defaults: the settings `policy_impact.max_requests` and `policy_impact.time_budget_seconds`); `limits.reached` says which bound stopped it. Each change carries the policy test bodies that answer why. See docs/aaa-policy.md "Change impact".',
      tags: ['aaa-policy'],
      schema: { body: PolicyImpactRequest, response: { 200: PolicyImpactResponse, 403: ErrorBody } },
      handler: async (req) => {
        const actor = req.actor
        if (!actor || !(actor.isAdmin || actor.permissions.has(LOGS_READ))) throw CommonErrors.forbidden({ field: 'logs' })
        const body = req.body
        const [maxRequests, timeBudgetSeconds] = await Promise.all([d.settings.get(policyImpactSettingRefs.maxRequests), d.settings.get(policyImpactSettingRefs.timeBudgetSeconds)])
        const inputsDeps = { identity: d.identity, settings: d.settings, inventory: d.inventory, tacacs: d.tacacs, radius: d.radius, listRules: d.rules.views }
        return runImpact(
          { ...inputsDeps, database: d.database, deploys: d.deploys, logs },
          {
            days: body.days ?? IMPACT_DEFAULT_DAYS,
            maxRequests: body.max_requests ?? maxRequests,
            timeBudgetSeconds: body.time_budget_seconds ?? timeBudgetSeconds,
            changesLimit: body.changes_limit ?? 200,
            groupLimit: body.group_limit ?? 25,
            protocol: body.protocol,
            say: req.t,
          },
        )
      },
    }),
  ]
}
