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
    const policy: AaaPolicyService = {
      // Renderers pass their snapshot; the default reads outside any transaction.
      listRules: (db: Knex | Knex.Transaction = database.knex) => loadViews(db),
    }
    tacacs.registerPolicySource({ listRules: (db) => policy.listRules(db) })
    radius.registerPolicySource({ listRules: (db) => policy.listRules(db) })
    return {
      services: [provide(aaaPolicyServiceRef, policy)],
      routes: policyRoutes({ database, identity, inventory, tacacs, radius, policy }),
    }
  },
})
