/**
 * RADIUS for device administration. Today: RADIUS profiles, named ordered
 * lists of reply attributes (Service-Type, Cisco-AVPair …) checked against a
 * dictionary shipped with the plugin, for the AAA policy to hand out. Other
 * plugins read profiles through `radiusServiceRef`. See docs/radius.md.
 */
import { coreServices, definePlugin, provide } from '../../sdk/index.js'
import { radiusServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { radiusPermissions } from './permissions.js'
import { radiusRoutes } from './routes/index.js'
import { createRadiusService } from './services/profiles.js'

export * from './api.js'
/** For the renderer: how a stored value is written into FreeRADIUS files. */
export { formatValue, quoteValue } from './services/values.js'

export default definePlugin({
  id: 'radius',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'RADIUS device administration: profiles of reply attributes checked against a FreeRADIUS dictionary.',
  permissions: radiusPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  locales: { en, ru },
  deps: { database: coreServices.database },
  init({ database }) {
    return {
      services: [provide(radiusServiceRef, createRadiusService(database.knex))],
      routes: radiusRoutes(database.knex),
    }
  },
})
