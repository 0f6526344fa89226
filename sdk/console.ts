/**
 * Pages a plugin adds to the admin console (served by the `console` plugin).
 * A plugin lists `console` in `optionalDependsOn`, names
 * `optional(consoleServiceRef)` in its deps, and in init calls `addPages` with
 * the folder of its built browser module; the console serves that folder under
 * /console/ext/<plugin>/ and imports the module when a user opens one of its
 * pages. In the SDK, not in the console plugin, so that a plugin built outside
 * this tree (a Pro plugin) reaches it from `@portcullis/sdk`. See docs/ui.md.
 */
import type { LocalizedText } from './plugin.js'
import { createServiceRef } from './service-ref.js'

export interface ConsolePage {
  /** The page's path in the console, under /x/<plugin>/ (`reports` → /x/pro-reports/reports). */
  path: string
  /** The menu entry. */
  title: LocalizedText
  /** Shown only to users who hold it (the API still checks every call the page makes). */
  permission?: string
}

export interface ConsoleExtension {
  /** The plugin's id: the URL prefix of its files and pages. */
  plugin: string
  /** Folder of the built module and its files, served as they are (hashed names are cached for a year). */
  dir: URL
  /** The ES module in `dir` the console imports; it exports `mount` (docs/ui.md). */
  entry: string
  pages: ConsolePage[]
}

export interface ConsoleService {
  addPages(extension: ConsoleExtension): void
}

export const consoleServiceRef = createServiceRef<ConsoleService>({ id: 'console.pages' })
