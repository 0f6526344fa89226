/**
 * RADIUS for device administration: RADIUS profiles (named ordered lists of
 * reply attributes checked against a dictionary shipped with the plugin, for
 * the AAA policy to hand out), the FreeRADIUS 3.2 configuration renderer, and
 * the preview of what is deployed. Other plugins read profiles through
 * `radiusServiceRef`. See docs/radius.md and docs/freeradius.md.
 */
import { coreServices, definePlugin, optional, provide } from '../../sdk/index.js'
import { mfaServiceRef } from '../mfa/api.js'
import { radiusServiceRef } from './api.js'
import { radiusProbeCommand } from './cli/probe.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { radiusPermissions } from './permissions.js'
import { radiusRoutes } from './routes/index.js'
import { radiusConfigPreviewRoutes } from './routes/config-preview.js'
import { createRadiusService } from './services/profiles.js'
import { radiusTables } from './tables.js'
import { createFreeradiusRenderer } from './renderers/renderer.js'
import { freeradiusDeps, freeradiusOptionRefs, freeradiusOptions, freeradiusSettingRefs, freeradiusSettings } from './renderers/settings.js'

export * from './api.js'
/** For the renderer: how a stored value is written into FreeRADIUS files. */
export { formatValue, quoteValue } from './services/values.js'

export default definePlugin({
  id: 'radius',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'RADIUS device administration: profiles of reply attributes checked against a FreeRADIUS dictionary, and the FreeRADIUS 3.2 configuration.',
  dependsOn: ['inventory'],
  // The second factor on device logins, when the edition has MFA (renderers/mfa.ts).
  optionalDependsOn: ['mfa'],
  settings: freeradiusSettings,
  serverOptions: freeradiusOptions,
  permissions: radiusPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: radiusTables,
  locales: { en, ru },
  cli: [radiusProbeCommand],
  deps: { database: coreServices.database, deploys: coreServices.deploys, mfa: optional(mfaServiceRef), ...freeradiusDeps },
  init({ database, deploys, inventory, identity, settings, serverOptions, platform, mfa }) {
    const service = createRadiusService(database.knex)
    return {
      services: [provide(radiusServiceRef, service)],
      routes: [...radiusRoutes(database.knex, service.references.radius_profile), ...radiusConfigPreviewRoutes(deploys)],
      renderers: [
        createFreeradiusRenderer({ inventory, identity, settings, serverOptions, mfa, radius: service, policySource: service.policySource, nacPolicySource: service.nacPolicySource, dataDir: platform.dataDir, refs: { ...freeradiusSettingRefs, ...freeradiusOptionRefs } }),
      ],
    }
  },
})
