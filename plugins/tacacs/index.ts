/**
 * TACACS+ device administration: command sets (ordered commands with
 * argument rules) and TACACS+ profiles (privilege level, shell attributes,
 * ordered command sets, default action), the command decision the
 * simulation and the tac_plus-ng renderer share, and the rendering of
 * profiles and policy rules. See docs/tacacs.md.
 */
import { coreServices, definePlugin, optional, provide } from '../../sdk/index.js'
import { mfaServiceRef } from '../mfa/api.js'
import { tacacsServiceRef } from './api.js'
import { tacacsProbeCommand } from './cli/probe.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { tacacsPermissions } from './permissions.js'
import { tacacsRoutes } from './routes/index.js'
import { createTacacsService } from './services/tacacs-service.js'
import { tacacsTables } from './tables.js'
import { TAC_PLUS_NG_CONFIG_FILE } from './renderers/config.js'
import { createTacPlusNgRenderer } from './renderers/renderer.js'
import { tacPlusNgDeps, tacPlusNgOptionRefs, tacPlusNgOptions, tacPlusNgSettingRefs, tacPlusNgSettings } from './renderers/settings.js'

export * from './api.js'

export default definePlugin({
  id: 'tacacs',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'TACACS+ (tac_plus-ng): command sets, profiles, command authorization and their configuration.',
  // The second factor on device logins, when the edition has MFA (renderers/mfa.ts).
  optionalDependsOn: ['mfa'],
  dependsOn: ['inventory'],
  permissions: tacacsPermissions,
  settings: tacPlusNgSettings,
  serverOptions: tacPlusNgOptions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: tacacsTables,
  locales: { en, ru },
  cli: [tacacsProbeCommand],
  deps: { database: coreServices.database, mfa: optional(mfaServiceRef), ...tacPlusNgDeps },
  init({ database, inventory, identity, settings, serverOptions, platform, mfa }) {
    const service = createTacacsService(database)
    return {
      services: [provide(tacacsServiceRef, service)],
      routes: tacacsRoutes({ knex: database.knex, service }),
      renderers: [
        {
          ...createTacPlusNgRenderer({ inventory, identity, settings, serverOptions, mfa, tacacs: service, policySource: service.policySource, dataDir: platform.dataDir, refs: { ...tacPlusNgSettingRefs, ...tacPlusNgOptionRefs } }),
          check: async () => ({ binary: serverOptions.get(tacPlusNgOptionRefs.binary), args: (dir: string) => ['-P', `${dir}/${TAC_PLUS_NG_CONFIG_FILE}`], stderrIsFailure: true }),
        },
      ],
    }
  },
})
