/**
 * The console's Reports page (web/reports.js, plain browser JS served as it
 * is): handed to the console when the edition has one (docs/ui.md, "A
 * plugin's pages"). Shown to holders of reports.read; the API checks every
 * call the page makes all the same.
 */
import type { ConsoleService } from '@portcullis/sdk'

export function addReportsPage(console: ConsoleService | undefined): void {
  console?.addPages({
    plugin: 'pro-reports',
    dir: new URL('./web/', import.meta.url),
    entry: 'reports.js',
    pages: [{ path: 'reports', title: { en: 'Reports', ru: 'Отчёты' }, permission: 'reports.read' }],
  })
}
