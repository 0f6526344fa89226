/**
 * NAC endpoints and endpoint groups: the MAC addresses the network knows (any
 * notation in, one canonical form stored), their owner, their group (MAB
 * allow-lists are endpoint groups), what the network last saw of them and what
 * profiling will conclude. CRUD, search, CSV import with a per-row report,
 * xlsx/csv export. Profiling (an editable rule table over the device-sensor
 * evidence of RADIUS records, groups placed by device type) and sessions from
 * accounting, fed by the aaa-logs ingester's record listener when that plugin
 * is loaded. Other plugins (the NAC policy, its renderer, the CoA sender) read
 * it through `nacServiceRef` (api.ts) and reference endpoints and groups
 * through its `references`, never its tables. See docs/nac.md.
 */
import { coreServices, definePlugin, defineReferenceTarget, identityServices, optional, provide } from '../../sdk/index.js'
import { aaaLogsServiceRef } from '../aaa-logs/api.js'
import { nacServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { nacPermissions } from './permissions.js'
import { nacRoutes } from './routes/index.js'
import { AuthorizationEvents } from './services/events.js'
import { createNacService } from './services/nac.js'
import { createRecordObserver } from './services/observe.js'
import { registerOwnerGuard } from './services/owners.js'
import { nacTables } from './tables.js'

export * from './api.js'

export default definePlugin({
  id: 'nac',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'NAC endpoints (MAC addresses in any notation, owner, vendor from the IEEE registry, last seen) and endpoint groups; CSV import and xlsx/csv export; profiling rules and sessions from RADIUS accounting.',
  permissions: nacPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: nacTables,
  locales: { en, ru },
  // The AAA logs' ingester hands over the RADIUS records it commits: sightings, profiling, sessions.
  optionalDependsOn: ['aaa-logs'],
  deps: { database: coreServices.database, audit: coreServices.audit, identity: identityServices.identity, logger: coreServices.logger, aaaLogs: optional(aaaLogsServiceRef) },
  init({ database, audit, identity, logger, aaaLogs }) {
    const references = {
      endpoint: defineReferenceTarget({ kind: 'endpoint', table: 'nac_endpoints', nameColumn: 'mac' }),
      endpoint_group: defineReferenceTarget({ kind: 'endpoint_group', table: 'nac_endpoint_groups', nameColumn: 'name' }),
    }
    const users = identity.references.user
    registerOwnerGuard(users, audit)
    const events = new AuthorizationEvents(logger.child({ component: 'nac.events' }))
    const nac = createNacService(database.knex, references, events)
    aaaLogs?.registerRecordListener('nac', createRecordObserver(database.knex, events).listener)
    return {
      services: [provide(nacServiceRef, nac)],
      routes: nacRoutes({ knex: database.knex, nac, users, audit, identity, references, events }),
    }
  },
})
