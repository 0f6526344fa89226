/**
 * NAC endpoints and endpoint groups: the MAC addresses the network knows (any
 * notation in, one canonical form stored), their owner, their group (MAB
 * allow-lists are endpoint groups), what the network last saw of them and what
 * profiling will conclude. CRUD, search, CSV import with a per-row report,
 * xlsx/csv export. Other plugins (the NAC policy, its renderer, the profiler)
 * read it through `nacServiceRef` (api.ts) and reference endpoints and groups
 * through its `references`, never its tables. See docs/nac.md.
 */
import { coreServices, definePlugin, defineReferenceTarget, identityServices, optional, provide } from '../../sdk/index.js'
import { inventoryServiceRef } from '../inventory/api.js'
import { nacCoaServiceRef, nacServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { nacPermissions } from './permissions.js'
import { nacRoutes } from './routes/index.js'
import { registerCoaNasGuard } from './services/coa/guard.js'
import { createCoaService } from './services/coa/service.js'
import { createNacService } from './services/nac.js'
import { registerOwnerGuard } from './services/owners.js'
import { nacSettings } from './settings.js'
import { nacTables } from './tables.js'

export * from './api.js'

export default definePlugin({
  id: 'nac',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'NAC endpoints (MAC addresses in any notation, owner, vendor from the IEEE registry, last seen) and endpoint groups; CSV import and xlsx/csv export.',
  permissions: nacPermissions,
  settings: nacSettings,
  // Change of Authorization finds the NAS (and its secret) in the inventory; without it, a CoA has no NAS to reach.
  optionalDependsOn: ['inventory'],
  migrations: new URL('./migrations/', import.meta.url),
  tables: nacTables,
  locales: { en, ru },
  deps: {
    database: coreServices.database,
    audit: coreServices.audit,
    identity: identityServices.identity,
    settings: coreServices.settings,
    logger: coreServices.logger,
    inventory: optional(inventoryServiceRef),
  },
  init({ database, audit, identity, settings, logger, inventory }) {
    const references = {
      endpoint: defineReferenceTarget({ kind: 'endpoint', table: 'nac_endpoints', nameColumn: 'mac' }),
      endpoint_group: defineReferenceTarget({ kind: 'endpoint_group', table: 'nac_endpoint_groups', nameColumn: 'name' }),
    }
    const users = identity.references.user
    registerOwnerGuard(users, audit)
    const nac = createNacService(database.knex, references)
    const coa = createCoaService({ knex: database.knex, settings, inventory, log: logger.child({ plugin: 'nac', part: 'coa' }) })
    if (inventory) registerCoaNasGuard(inventory.references.device)
    return {
      services: [provide(nacServiceRef, nac), provide(nacCoaServiceRef, coa)],
      routes: nacRoutes({ knex: database.knex, nac, users, audit, identity, references, coa, inventory, settings }),
      start: async () => {
        await coa.closeAbandoned()
      },
      // The background CoAs in flight get their answer recorded; those not started are dropped.
      stop: () => coa.drain(),
    }
  },
})
