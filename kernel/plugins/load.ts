/**
 * Plugins named by configuration, never by import in the kernel. A specifier
 * is a built-in id (`inventory` → plugins/inventory/index), a path (relative
 * to the working directory; an edition's paths are made absolute against the
 * project root by packageEditions()), or an installed package name. Whatever
 * its location, a plugin importing `@portcullis/sdk` gets this server's SDK.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
// semver's three functions by their own paths: its index loads all 47 modules of the package.
import satisfies from 'semver/functions/satisfies.js'
import valid from 'semver/functions/valid.js'
import validRange from 'semver/ranges/valid.js'
import { SDK_VERSION, type PluginDefinition } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import { validateCliCommands } from './cli.js'
import { resolveSdkToKernel } from './sdk-resolution.js'

export interface LoadedPlugin {
  def: PluginDefinition
  specifier: string
}

const ID = /^[a-z][a-z0-9_-]{1,39}$/

/**
 * Whether this kernel runs built (dist/, plain Node) or from source (tsx). A package folder
 * (a Pro plugin, `./pro/reports`) then loads its build, `<dir>/dist/index.js`
 * (`npm run build:pro`), or its source, `<dir>/index.ts`.
 */
const BUILT = import.meta.url.endsWith('.js')

function candidates(root: string, codeDir: string, spec: string): string[] {
  const folder = (base: string) =>
    BUILT ? [path.join(base, 'dist', 'index.js'), path.join(base, 'index.js'), path.join(base, 'index.ts')] : [path.join(base, 'index.ts'), path.join(base, 'index.js'), path.join(base, 'dist', 'index.js')]
  const entries = (base: string) => [base, `${base}.js`, `${base}.ts`, ...folder(base)]
  if (spec.startsWith('.') || path.isAbsolute(spec)) return entries(path.resolve(spec))
  if (ID.test(spec)) return [...entries(path.join(codeDir, 'plugins', spec)), ...entries(path.join(root, 'plugins', spec))]
  return []
}

/** Why a path names no loadable plugin: a Pro package that was not built says how to build it. */
function notFound(spec: string): BootError {
  const dir = path.resolve(spec)
  if (BUILT && statSync(path.join(dir, 'index.ts'), { throwIfNoEntry: false })?.isFile() && statSync(path.join(dir, 'package.json'), { throwIfNoEntry: false })) {
    return new BootError('PLUGIN_NOT_FOUND', `plugin "${spec}" is not built (no ${path.join(dir, 'dist', 'index.js')}): run \`npm run build:pro\` (the Pro edition) or start from source`)
  }
  return new BootError('PLUGIN_NOT_FOUND', `plugin "${spec}" was not found (not a built-in id, a path, or an installed package)`)
}

export async function loadPlugins(specs: string[], dirs: { root: string; codeDir: string }): Promise<LoadedPlugin[]> {
  // Regular files only: Node refuses to import a directory (tsx would hide that in tests).
  // Built, a package folder's TypeScript source is not loadable: its dist/ is, or nothing is.
  const loadable = (f: string) => statSync(f, { throwIfNoEntry: false })?.isFile() && !(BUILT && f.endsWith('.ts') && statSync(path.join(path.dirname(f), 'package.json'), { throwIfNoEntry: false }))
  const files = specs.map((spec) => candidates(dirs.root, dirs.codeDir, spec).find(loadable))
  for (const [i, spec] of specs.entries()) if (!files[i] && (spec.startsWith('.') || path.isAbsolute(spec))) throw notFound(spec)
  // A plugin outside the tree imports `@portcullis/sdk` by name and gets this server's SDK. The
  // in-tree plugins import it by path, so the default edition starts without the loader hook's thread.
  const inTree = [path.join(dirs.codeDir, 'plugins') + path.sep, path.join(dirs.root, 'plugins') + path.sep]
  if (files.some((f) => f === undefined || !inTree.some((d) => f.startsWith(d)))) resolveSdkToKernel()
  const out: LoadedPlugin[] = []
  for (const [i, spec] of specs.entries()) {
    const file = files[i]
    let mod: { default?: unknown }
    try {
      mod = file ? await import(pathToFileURL(file).href) : await import(spec)
    } catch (e) {
      const notFound = (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && !file
      throw new BootError(notFound ? 'PLUGIN_NOT_FOUND' : 'PLUGIN_INVALID', notFound ? `plugin "${spec}" was not found (not a built-in id, a path, or an installed package)` : `plugin "${spec}" failed to load: ${(e as Error).message}`)
    }
    out.push({ def: validateManifest(mod.default, spec), specifier: spec })
  }
  return out
}

export function validateManifest(def: unknown, spec: string): PluginDefinition {
  const p = def as PluginDefinition | undefined
  const bad = (why: string) => new BootError('PLUGIN_INVALID', `plugin "${spec}": ${why}`)
  if (!p || typeof p !== 'object') throw bad('its module has no default export from definePlugin()')
  if (typeof p.id !== 'string' || !ID.test(p.id)) throw bad(`id must match ${ID} (got ${JSON.stringify(p.id)})`)
  if (p.id === 'kernel' || p.id === 'core') throw bad(`id "${p.id}" is reserved`)
  if (typeof p.version !== 'string' || !valid(p.version)) throw bad(`version must be semver (got ${JSON.stringify(p.version)})`)
  if (typeof p.sdk !== 'string' || !validRange(p.sdk)) throw bad(`sdk must be a semver range (got ${JSON.stringify(p.sdk)})`)
  if (!satisfies(SDK_VERSION, p.sdk)) {
    throw new BootError('PLUGIN_SDK_MISMATCH', `plugin ${p.id} was built for SDK ${p.sdk}, this platform has SDK ${SDK_VERSION}`)
  }
  for (const k of ['dependsOn', 'optionalDependsOn'] as const) {
    const list = p[k]
    if (list !== undefined && (!Array.isArray(list) || list.some((d) => typeof d !== 'string'))) throw bad(`${k} must be a list of plugin ids`)
  }
  if (p.settingNamespaces !== undefined && (!Array.isArray(p.settingNamespaces) || p.settingNamespaces.some((n) => typeof n !== 'string' || !ID.test(n) || n === 'kernel' || n === 'core'))) {
    throw bad(`settingNamespaces must be a list of names matching ${ID}, not "kernel" or "core"`)
  }
  const both = (p.optionalDependsOn ?? []).find((d) => p.dependsOn?.includes(d))
  if (both) throw bad(`${both} is in both dependsOn and optionalDependsOn`)
  if (p.init !== undefined && typeof p.init !== 'function') throw bad('init must be a function')
  if (p.migrations !== undefined && !(p.migrations instanceof URL)) throw bad('migrations must be a URL (new URL("./migrations/", import.meta.url))')
  if (p.tables !== undefined && !(Array.isArray(p.tables) && p.tables.every((t) => typeof t?.name === 'string' && typeof t.columns === 'object'))) throw bad('tables must be an array of defineTable(...) declarations')
  validateCliCommands(p, spec)
  return p
}

/**
 * Dependency order (a plugin after everything it depends on, and after the optional dependencies
 * that are loaded); refuses missing dependencies and cycles. An optional dependency that is not
 * loaded is not missing: the edition goes without it.
 */
export function orderPlugins(plugins: LoadedPlugin[]): LoadedPlugin[] {
  const byId = new Map<string, LoadedPlugin>()
  for (const p of plugins) {
    if (byId.has(p.def.id)) throw new BootError('PLUGIN_DUPLICATE', `plugin id ${p.def.id} is loaded twice (${byId.get(p.def.id)!.specifier}, ${p.specifier})`)
    byId.set(p.def.id, p)
  }
  for (const p of plugins) {
    for (const d of p.def.dependsOn ?? []) {
      if (!byId.has(d)) throw new BootError('PLUGIN_DEPENDENCY_MISSING', `plugin ${p.def.id} depends on ${d}, which is not loaded (add it to PLUGINS)`)
    }
  }
  const out: LoadedPlugin[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (p: LoadedPlugin, trail: string[]) => {
    const s = state.get(p.def.id)
    if (s === 'done') return
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(p.def.id)), p.def.id]
      throw new BootError('PLUGIN_DEPENDENCY_CYCLE', `plugins depend on each other in a cycle: ${cycle.join(' → ')}`)
    }
    state.set(p.def.id, 'visiting')
    for (const d of [...(p.def.dependsOn ?? []), ...(p.def.optionalDependsOn ?? []).filter((o) => byId.has(o))]) visit(byId.get(d)!, [...trail, p.def.id])
    state.set(p.def.id, 'done')
    out.push(p)
  }
  // Sorted by id first so that independent plugins always come up in the same order.
  for (const p of [...plugins].sort((a, b) => a.def.id.localeCompare(b.def.id))) visit(p, [])
  return out
}
