/**
 * A plugin declares; the kernel does. `definePlugin` takes the manifest
 * (id, version, SDK range, dependencies, permissions, settings, migrations,
 * locales) and an `init` that receives the resolved `deps` and returns the
 * plugin's routes, services, renderers and lifecycle hooks.
 */
import type { CliCommand } from './cli.js'
import type { LocalizedText } from './localized-text.js'
import type { ConfigRenderer } from './renderer.js'
import type { RouteDefinition } from './route.js'
import type { ProvidedService, ResolvedDeps, ServiceRef } from './service-ref.js'
import type { ServerOptionRef, SettingRef } from './services.js'
import type { TableDefinition } from './tables.js'
import type { WebAssets } from './web.js'

export type { LocalizedText } from './localized-text.js'

/** i18next resources of one language: nested keys to strings. */
export type LocaleResources = { [key: string]: string | LocaleResources }

export interface PluginContributions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route keeps its own inferred schema types
  routes?: RouteDefinition<any>[]
  services?: ProvidedService[]
  renderers?: ConfigRenderer[]
  /** Background work (log ingestion …); awaited before the server listens. */
  start?: () => Promise<void>
  /** Called on shutdown, in reverse start order. */
  stop?: () => Promise<void>
  /**
   * Files for browsers (the admin console, a plugin's pages): asked for a GET or HEAD that no
   * route answers, outside /api/. See web.ts and docs/ui.md.
   */
  web?: WebAssets
}

export interface PluginDefinition<D extends Record<string, ServiceRef<unknown>> = Record<string, ServiceRef<unknown>>> {
  id: string
  version: string
  /** Semver range of the SDK the plugin was built for. */
  sdk: string
  description?: string
  dependsOn?: string[]
  /**
   * Plugins this one works with when the edition has them: initialized (and migrated) before it
   * when loaded, absent without failing the boot. Their services reach `init` through
   * `optional(ref)` in `deps`, as undefined when absent.
   */
  optionalDependsOn?: string[]
  permissions?: Record<string, LocalizedText>
  settings?: SettingRef<unknown>[]
  /**
   * Setting namespaces the plugin also declares keys in, beside its id. The API contract names some
   * settings by the product area rather than the plugin that serves them (the spec's
   * `nac.est_enabled` is served by the PKI plugin). A key is still declared by one plugin only.
   */
  settingNamespaces?: string[]
  /** Programs, paths and command lines the plugin needs: from the server's configuration, never the API. */
  serverOptions?: ServerOptionRef<unknown>[]
  /** Folder of migration files (`NNNN_name.ts`, each exporting `up(knex)`), run in the plugin's own table. */
  migrations?: URL
  /**
   * The plugin's tables as its code reads them (tables.ts: `defineTable`). The kernel compares them
   * with the migrated database at boot and refuses to start on a difference (SCHEMA_DRIFT).
   */
  tables?: TableDefinition[]
  /** i18next resources under the plugin's namespace (its id). */
  locales?: { en: LocaleResources; ru?: LocaleResources }
  deps?: D
  /** Commands for the `portcullis` command line (see cli.ts); each names its own deps. */
  cli?: CliCommand[]
  init?: (deps: ResolvedDeps<D>) => Promise<PluginContributions> | PluginContributions
}

export const definePlugin = <D extends Record<string, ServiceRef<unknown>> = {}>(p: PluginDefinition<D>): PluginDefinition<D> => p
