/**
 * The AAA policy: an ordered list of rules, each saying WHO (a user or a user
 * group) WHERE (a device or a device group) gets which TACACS+ and RADIUS
 * profile, with a default rule last that matches anyone anywhere. The tacacs
 * and radius plugins' renderers write them for their daemons (this plugin hands
 * them over with `registerPolicySource`); the policy test answers what those
 * daemons decide. See docs/aaa-policy.md.
 *
 * It stands with the inventory alone: tacacs and radius are optional, so an
 * edition may carry either protocol or both. What a rule references (users,
 * groups, devices, device groups, profiles) is reached only through each
 * owner's reference contract (services/references.ts), never its tables.
 */
import type { Knex } from 'knex'
import { coreServices, definePlugin, identityServices, optional, policyImpactSettingRefs, provide } from '../../sdk/index.js'
import { aaaLogsServiceRef } from '../aaa-logs/api.js'
import { inventoryServiceRef } from '../inventory/api.js'
import { radiusServiceRef } from '../radius/api.js'
import { tacacsServiceRef } from '../tacacs/api.js'
import { aaaPolicyServiceRef, type AaaPolicyService } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { policyPermissions } from './permissions.js'
import { policyRoutes } from './routes/index.js'
import { createRuleViewCache } from './services/cache.js'
import { policyInputsRenderer } from './services/deployed-inputs.js'
import { registerGuards } from './services/references.js'
import { policyTargets } from './services/targets.js'
import { loadViews } from './services/rules.js'
import { policyTables } from './tables.js'

export { aaaPolicyServiceRef, type AaaPolicyService, type PolicyRuleView } from './api.js'

export default definePlugin({
  id: 'aaa-policy',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'AAA policy: ordered rules (who, where, TACACS+ and RADIUS profile) with a default rule; TACACS+ preview and a policy test.',
  dependsOn: ['inventory'],
  // Either protocol, or both: whichever the edition loads is initialized (and migrated) first.
  // The AAA logs for the change impact (routes/impact.ts), whose bounds are settings of their own namespace.
  optionalDependsOn: ['tacacs', 'radius', 'aaa-logs'],
  settings: [policyImpactSettingRefs.maxRequests, policyImpactSettingRefs.timeBudgetSeconds],
  settingNamespaces: ['policy_impact'],
  permissions: policyPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: policyTables,
  locales: { en, ru },
  deps: {
    database: coreServices.database,
    deploys: coreServices.deploys,
    settings: coreServices.settings,
    identity: identityServices.identity,
    inventory: inventoryServiceRef,
    tacacs: optional(tacacsServiceRef),
    radius: optional(radiusServiceRef),
    logs: optional(aaaLogsServiceRef),
  },
  init({ database, deploys, settings, identity, inventory, tacacs, radius, logs }) {
    const targets = policyTargets({ identity, inventory, tacacs, radius })
    registerGuards(targets)
    // The ordered views in memory, reused while the policy's version is unchanged (services/cache.ts).
    const rules = createRuleViewCache(targets)
    const policy: AaaPolicyService = {
      // Renderers pass their snapshot and always read through it; without a transaction the cache
      // answers (a copy of its frozen list, so a caller may reorder its own array).
      listRules: async (db?: Knex | Knex.Transaction) => (db ? loadViews(db, targets) : [...(await rules.views(database.knex))]),
    }
    // The renderers read through their snapshot, never from the cache.
    const source = { listRules: (db: Knex | Knex.Transaction) => loadViews(db, targets) }
    tacacs?.registerPolicySource(source)
    radius?.registerPolicySource(source)
    // The policy test's inputs, kept in each protocol daemon's release (services/deployed-inputs.ts).
    const inputs = { identity, settings, inventory, tacacs, radius, listRules: source.listRules }
    return {
      services: [provide(aaaPolicyServiceRef, policy)],
      renderers: [...(tacacs ? [policyInputsRenderer('tacacs', inputs)] : []), ...(radius ? [policyInputsRenderer('radius', inputs)] : [])],
      routes: policyRoutes({ database, deploys, settings, identity, inventory, tacacs, radius, policy, targets, rules }, logs),
    }
  },
})
