/**
 * NAC: endpoints and endpoint groups (the MAC addresses the network knows, in
 * any notation in and one canonical form stored; their owner, their group: MAB
 * allow-lists are endpoint groups; what the network last saw of them and what
 * profiling concluded), authorization profiles (what an endpoint is given),
 * the NAC policy (ordered rules with a protected default) with its policy
 * test, profiling (an editable rule table over the device-sensor evidence of
 * RADIUS records, groups placed by device type), sessions from accounting, and
 * Change of Authorization (RFC 5176) to the NAS when an endpoint's
 * authorization changes. The policy is compiled once (sdk/nac-policy.ts) and
 * handed to the radius plugin's FreeRADIUS renderer when the edition has it;
 * the policy test evaluates the same compiled structure. The aaa-logs
 * ingester's record listener feeds sightings, profiling and sessions. Other
 * plugins read it through `nacServiceRef` and `nacCoaServiceRef` (api.ts) and
 * reference endpoints and groups through its `references`, never its tables.
 * See docs/nac.md.
 */
import { coreServices, definePlugin, defineReferenceTarget, identityServices, optional, provide } from '../../sdk/index.js'
import { aaaLogsServiceRef } from '../aaa-logs/api.js'
import { inventoryServiceRef } from '../inventory/api.js'
import { FREERADIUS_DAEMON, radiusServiceRef } from '../radius/api.js'
import { nacCoaServiceRef, nacServiceRef, type NacService } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { nacPermissions } from './permissions.js'
import { endpointsFirstSeenSource } from './report-sources/endpoints-first-seen.js'
import { nacRoutes } from './routes/index.js'
import { registerCoaNasGuard } from './services/coa/guard.js'
import { coaOnAuthorizationChange, createCoaService } from './services/coa/service.js'
import type { ConditionTargets } from './services/conditions.js'
import { evaluateNacPolicy } from './services/evaluate.js'
import { AuthorizationEvents } from './services/events.js'
import { createNacService } from './services/nac.js'
import { createRecordObserver } from './services/observe.js'
import { registerOwnerGuard } from './services/owners.js'
import { createPortalEndpoints } from './services/portal-endpoints.js'
import { portalKey, verifyPortalRedirect } from './services/portal-redirect.js'
import { compileNacPolicy, registerPolicyGuards } from './services/policy-rules.js'
import { createCompiledPolicyCache } from './services/policy-cache.js'
import { policyEndpoints } from './services/policy-endpoints.js'
import { nacInputsRenderer } from './services/impact-inputs.js'
import { nacSettings } from './settings.js'
import { nacTables } from './tables.js'

export * from './api.js'

export default definePlugin({
  id: 'nac',
  version: '0.1.0',
  sdk: '^0.1.0',
  description:
    'NAC endpoints (MAC addresses in any notation, owner, vendor from the IEEE registry, last seen) and endpoint groups; CSV import and xlsx/csv export; authorization profiles and the NAC policy with its policy test; profiling rules and sessions from RADIUS accounting; Change of Authorization.',
  // The inventory gives the policy its device groups, the test and Change of Authorization their NAS (and its secret);
  // radius renders the policy; the AAA logs' ingester hands over the RADIUS records it commits (sightings, profiling,
  // sessions). An edition may lack any of them: without the inventory, a CoA has no NAS to reach.
  optionalDependsOn: ['inventory', 'radius', 'aaa-logs'],
  permissions: nacPermissions,
  settings: nacSettings,
  migrations: new URL('./migrations/', import.meta.url),
  tables: nacTables,
  locales: { en, ru },
  deps: {
    database: coreServices.database,
    audit: coreServices.audit,
    identity: identityServices.identity,
    userLifecycle: identityServices.userLifecycle,
    settings: coreServices.settings,
    logger: coreServices.logger,
    deploys: coreServices.deploys,
    inventory: optional(inventoryServiceRef),
    radius: optional(radiusServiceRef),
    aaaLogs: optional(aaaLogsServiceRef),
    reportSources: coreServices.reportSources,
  },
  init({ database, audit, identity, userLifecycle, settings, logger, deploys, inventory, radius, aaaLogs, reportSources }) {
    reportSources.add('nac', endpointsFirstSeenSource(inventory))
    const references = {
      endpoint: defineReferenceTarget({ kind: 'endpoint', table: 'nac_endpoints', nameColumn: 'mac' }),
      endpoint_group: defineReferenceTarget({ kind: 'endpoint_group', table: 'nac_endpoint_groups', nameColumn: 'name' }),
    }
    const users = identity.references.user
    registerOwnerGuard(users, audit)
    const targets: ConditionTargets = {
      user_group: identity.references.user_group,
      endpoint_group: references.endpoint_group,
      device_group: inventory?.references.device_group ?? null,
    }
    registerPolicyGuards(targets)
    const compile = (db: Parameters<typeof compileNacPolicy>[0]) => compileNacPolicy(db, targets)
    radius?.registerNacPolicySource({ compile, endpoints: policyEndpoints, portalRedirectKey: (db) => portalKey(settings, db) })
    const events = new AuthorizationEvents(logger.child({ component: 'nac.events' }))
    const nac: NacService = {
      ...createNacService(database.knex, references, events),
      ...createPortalEndpoints(database.knex, users, events),
      verifyPortalRedirect: async (q) => verifyPortalRedirect(await portalKey(settings), q),
      compilePolicy: (db = database.knex) => compile(db),
      evaluatePolicy: evaluateNacPolicy,
    }
    // What the tree decides from, kept in each FreeRADIUS release for the change impact (services/impact-inputs.ts).
    const inputs = { identity, inventory, source: { compile, endpoints: policyEndpoints } }
    aaaLogs?.registerRecordListener('nac', createRecordObserver(database.knex, events).listener)
    // With the radius plugin, FreeRADIUS answers from its rendered tree: automatic CoAs wait for the deploy that carries the change.
    const coa = createCoaService({ knex: database.knex, settings, inventory, log: logger.child({ plugin: 'nac', part: 'coa' }), awaitDeploy: radius !== undefined, identity })
    events.on(coaOnAuthorizationChange(coa))
    // A user disabled, deleted or taken off the network: their live sessions end (after the deploy that refuses them).
    userLifecycle.onAccessEnded((e) => coa.userAccessEnded(e.username))
    deploys.onActivated((daemon) => (daemon === FREERADIUS_DAEMON ? coa.deployed() : undefined))
    if (inventory) registerCoaNasGuard(inventory.references.device)
    return {
      services: [provide(nacServiceRef, nac), provide(nacCoaServiceRef, coa)],
      renderers: radius ? [nacInputsRenderer(inputs)] : [],
      routes: nacRoutes({ database, deploys, aaaLogs, inputs, knex: database.knex, nac, users, audit, identity, references, inventory, targets, policyCache: createCompiledPolicyCache(compile), coa, settings, events }),
      start: async () => {
        await coa.closeAbandoned()
      },
      // The background CoAs in flight get their answer recorded; those not started are dropped.
      stop: () => coa.drain(),
    }
  },
})
