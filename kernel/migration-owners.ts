/**
 * Whose migrations a start applies, in order: the kernel's, then each plugin's that has any. The start
 * (app.ts) and the test kit (test/kit/migrated-template.ts, which makes each fresh test database from one
 * migrated per set of owners) ask the same function.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config } from './config.js'
import { urlToDir, type MigrationOwner } from './db/migrate.js'
import { loadPlugins, orderPlugins, type LoadedPlugin } from './plugins/load.js'
import { projectRoot } from './version.js'

/** Where compiled (dist/) or source code lives: the kernel's migrations are found beside it. */
const codeDir = () => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export const migrationOwners = (plugins: readonly LoadedPlugin[]): MigrationOwner[] => [
  { owner: 'kernel', dir: path.join(codeDir(), 'migrations') },
  ...plugins.filter((p) => p.def.migrations).map((p) => ({ owner: p.def.id, dir: urlToDir(p.def.migrations!) })),
]

/** The migrations a start with this configuration would apply, without starting. Throws what loading the plugins throws. */
export async function migrationOwnersOf(config: Pick<Config, 'plugins'>): Promise<MigrationOwner[]> {
  return migrationOwners(orderPlugins(await loadPlugins(config.plugins, { root: projectRoot(), codeDir: codeDir() })))
}
