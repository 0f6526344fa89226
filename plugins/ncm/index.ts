/**
 * Configuration tracking (docs/ncm.md): remote collectors fetch the devices' running
 * configurations over SSH on a schedule per device group and upload them through the signed
 * collector API (/api/v1/ncm/collector/); the core strips, hashes, masks and stores each distinct
 * version, shows the history and diffs, searches the latest configurations, ties each change to
 * the TACACS+ records of its window, and checks compliance rules.
 */
import { definePlugin } from '../../sdk/index.js'
import { compliance } from './compliance.js'
import { ncmDeps } from './deps.js'
import { registerInventoryGuards } from './guards.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { ncmPermissions } from './permissions.js'
import { readSide } from './read-side.js'
import { configurationChangesSource } from './report-sources/configuration-changes.js'
import { ncmRoutes } from './routes/index.js'
import type { NcmContext } from './services/context.js'
import { ForgetHooks, VersionHooks } from './services/hooks.js'
import { Reconciler } from './services/reconcile.js'
import { FetchWake } from './services/wake.js'
import { ncmSettings } from './settings.js'
import { ncmTables } from './tables.js'

/** How long the stop waits for the after-commit callbacks (mail) in flight. */
const AFTER_COMMIT_STOP_MS = 5_000

export type { NcmContext } from './services/context.js'
export type { NewVersion, NewVersionHook, AfterCommit, ForgetHook } from './services/hooks.js'

export default definePlugin({
  id: 'ncm',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Configuration tracking: remote collectors fetch device configurations over SSH; versions, diffs, search, who changed it, compliance.',
  permissions: ncmPermissions,
  settings: ncmSettings,
  migrations: new URL('./migrations/', import.meta.url),
  tables: ncmTables,
  locales: { en, ru },
  dependsOn: ['inventory'],
  // aaa-logs: the TACACS+ records of "who changed it"; console: the pages.
  optionalDependsOn: ['aaa-logs', 'console'],
  deps: ncmDeps,
  init(deps) {
    const c: NcmContext = { ...deps, hooks: new VersionHooks(), forget: new ForgetHooks(), wake: new FetchWake() }
    registerInventoryGuards(c)
    deps.reportSources.add('ncm', configurationChangesSource(deps.inventory))
    const read = readSide(c)
    const rules = compliance(c)
    return {
      routes: [...ncmRoutes(c, new Reconciler(c)), ...read.routes, ...rules.routes],
      start: async () => {
        await rules.start()
      },
      stop: async () => {
        c.wake.close()
        await rules.stop()
        // A violation mail in flight gets a moment to go out; one stuck on a silent mail server does not hold the stop.
        if (!(await c.hooks.settled(AFTER_COMMIT_STOP_MS))) c.logger.warn('ncm: stopped with new-version callbacks (mail) still in flight')
      },
    }
  },
})
