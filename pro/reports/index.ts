/**
 * The Pro edition's reports: definitions over the report sources the other
 * plugins add (coreServices.reportSources), run now or on a schedule, rendered
 * to PDF, xlsx and HTML, mailed or downloaded, kept for a retention period.
 * A package of its own outside the core packages: it imports only
 * `@portcullis/sdk`, by name, and loads through the out-of-tree plugin
 * mechanism (docs/editions.md). docs/reports.md says what it does.
 */
import { definePlugin } from '@portcullis/sdk'
import { addReportsPage } from './console-page.js'
import { reportDeps } from './context.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { reportPermissions } from './permissions.js'
import { definitionRoutes } from './routes/definitions.js'
import { runRoutes } from './routes/runs.js'
import { sourceRoutes } from './routes/sources.js'
import { registerReferenceGuards } from './services/definitions.js'
import { Runner } from './services/runner.js'
import { Scheduler } from './services/scheduler.js'
import { reportSettings } from './settings.js'
import { reportTables } from './tables.js'

export { schedulerTiming } from './services/scheduler.js'

export default definePlugin({
  id: 'pro-reports',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Pro: scheduled reports (PDF, xlsx, HTML) over device administration, network access, certificates, configuration changes and the audit trail.',
  permissions: reportPermissions,
  // The product calls them reports.*, whatever the package's id.
  settingNamespaces: ['reports'],
  settings: reportSettings,
  migrations: new URL('./migrations/', import.meta.url),
  tables: reportTables,
  locales: { en, ru },
  // Device groups, when the edition has an inventory; the Reports page, when it has the console.
  optionalDependsOn: ['inventory', 'console'],
  deps: reportDeps,
  init(d) {
    addReportsPage(d.console)
    registerReferenceGuards(d)
    const runner = new Runner(d)
    const scheduler = new Scheduler(d, runner)
    return {
      routes: [...sourceRoutes(d), ...definitionRoutes(d), ...runRoutes(d, runner)],
      start: async () => {
        await runner.start()
        scheduler.start()
      },
      stop: async () => {
        await scheduler.stop()
        await runner.stop()
      },
    }
  },
})
