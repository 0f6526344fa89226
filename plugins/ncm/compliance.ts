/**
 * Compliance (docs/ncm.md "Compliance"): rules over the tracked configurations, evaluated on every
 * new version (a hook on `c.hooks`, in the ingest transaction), re-evaluated in the background when
 * a rule changes, reported per device and summarized, and mailed on a new violation.
 */
import { uuidArray, type RouteDefinition } from '../../sdk/index.js'
import { complianceRoutes } from './routes/compliance.js'
import { ruleRoutes } from './routes/rules.js'
import type { NcmContext } from './services/context.js'
import { evaluateNewVersion } from './services/evaluate-version.js'
import { Reevaluation } from './services/evaluate-worker.js'
import { guardRuleGroups } from './services/rules.js'

export function compliance(c: NcmContext): { routes: RouteDefinition[]; start: () => Promise<void>; stop: () => Promise<void> } {
  guardRuleGroups(c.inventory.references.device_group)
  c.hooks.add((trx, v) => evaluateNewVersion(c, trx, v))
  // A device's history deleted (or the device gone): its results go too (the versions' foreign key would take them anyway).
  c.forget.add(async (trx, deviceIds) => {
    await trx('ncm_rule_results').whereRaw('device_id = ANY(?::uuid[])', [uuidArray(deviceIds)]).delete()
  })
  const worker = new Reevaluation(c, c.cluster.role === 'primary')
  return {
    routes: [...ruleRoutes(c, worker), ...complianceRoutes(c)],
    start: async () => worker.start(),
    stop: () => worker.stop(),
  }
}
