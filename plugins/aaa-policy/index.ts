/**
 * The AAA policy: an ordered list of rules, each saying WHO (a user or a user
 * group) WHERE (a device or a device group) gets which TACACS+ and RADIUS
 * profile, with a default rule last that matches anyone anywhere. The tacacs
 * plugin's renderer writes them as the tac_plus-ng ruleset (this plugin hands
 * them over with `registerPolicySource`); the policy test answers what that
 * ruleset decides. See docs/aaa-policy.md.
 */
import type { Knex } from 'knex'
import { coreServices, definePlugin, identityServices, provide } from '../../sdk/index.js'
import { inventoryServiceRef } from '../inventory/index.js'
import { radiusServiceRef } from '../radius/index.js'
import { tacacsServiceRef } from '../tacacs/index.js'
import { aaaPolicyServiceRef, type AaaPolicyService } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { policyPermissions } from './permissions.js'
import { policyRoutes } from './routes/index.js'
import { createRuleViewCache } from './services/cache.js'
import { loadViews } from './services/rules.js'

export { aaaPolicyServiceRef, type AaaPolicyService, type PolicyRuleView } from './api.js'

export default definePlugin({
  id: 'aaa-policy',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'AAA policy: ordered rules (who, where, TACACS+ and RADIUS profile) with a default rule; TACACS+ preview and a policy test.',
  dependsOn: ['inventory', 'tacacs', 'radius'],
  permissions: policyPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  locales: { en, ru },
  deps: {
    database: coreServices.database,
    identity: identityServices.identity,
    inventory: inventoryServiceRef,
    tacacs: tacacsServiceRef,
    radius: radiusServiceRef,
  },
  init({ database, identity, inventory, tacacs, radius }) {
    // The ordered views in memory, reused while the policy's version is unchanged (services/cache.ts).
    const rules = createRuleViewCache()
    const policy: AaaPolicyService = {
      // Renderers pass their snapshot and always read through it; without a transaction the cache
      // answers (a copy of its frozen list, so a caller may reorder its own array).
      listRules: async (db?: Knex | Knex.Transaction) => (db ? loadViews(db) : [...(await rules.views(database.knex))]),
    }
    // The renderers read through their snapshot, never from the cache.
    tacacs.registerPolicySource({ listRules: (db) => loadViews(db) })
    radius.registerPolicySource({ listRules: (db) => loadViews(db) })
    return {
      services: [provide(aaaPolicyServiceRef, policy)],
      routes: policyRoutes({ database, identity, inventory, tacacs, radius, policy, rules }),
    }
  },
})
