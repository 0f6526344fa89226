/**
 * One plugin's turn at boot: its locales, permissions, settings and server
 * options declared, its deps resolved (and only those granted), its init run,
 * and what it contributes (services in its own namespace, routes, renderers,
 * pages) registered. Plugins are initialised in dependency order (load.ts).
 */
import type { Logger, PluginContributions } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import type { ServiceRegistry } from '../container.js'
import type { createTranslator } from '../i18n.js'
import type { ServerOptions } from '../settings/server-options.js'
import type { SettingsStore } from '../settings/store.js'
import type { LoadedPlugin } from './load.js'
import type { ContributionRegistry } from './registry.js'

export async function initPlugin(
  p: LoadedPlugin,
  k: { services: ServiceRegistry; registry: ContributionRegistry; settings: SettingsStore; options: ServerOptions; i18n: Awaited<ReturnType<typeof createTranslator>>; log: Logger },
): Promise<PluginContributions> {
  const def = p.def
  if (def.locales) k.i18n.addNamespace(def.id, def.locales)
  k.registry.addPermissions(def.id, def.permissions ?? {})
  const namespaces = [def.id, ...(def.settingNamespaces ?? [])]
  for (const s of def.settings ?? []) k.settings.declare(def.id, s, namespaces)
  for (const o of def.serverOptions ?? []) k.options.declare(def.id, o)
  const deps = k.services.resolveDeps(def.id, def, def.deps ?? {})
  k.services.grant(def.id, def.deps ?? {})
  const c = (await def.init?.(deps)) ?? {}
  for (const s of c.services ?? []) {
    if (!s.ref.id.startsWith(def.id + '.')) throw new BootError('PLUGIN_INVALID', `plugin ${def.id} provides ${s.ref.id}, outside its namespace "${def.id}."`)
    k.services.provide(s.ref, s.implementation, def.id)
  }
  for (const r of c.routes ?? []) k.registry.addRoute(def.id, r)
  for (const r of c.renderers ?? []) k.registry.addRenderer(def.id, r)
  if (c.web) k.registry.web.push({ owner: def.id, web: c.web })
  k.log.debug({ plugin: def.id, version: def.version }, 'plugin initialized')
  return c
}
