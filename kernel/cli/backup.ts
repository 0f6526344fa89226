/**
 * `portcullis backup FILE` and `portcullis restore FILE [--force]`
 * (docs/backup.md). A backup runs in the booted platform like the other
 * kernel commands; a restore must not boot it (a first start writes an
 * administrator and the node into the database it needs empty), so it runs
 * on the configuration alone.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { CliUsageError, type CliIo } from '../../sdk/index.js'
import type { App } from '../app.js'
import { restoreArchive } from '../backup/restore.js'
import type { Config } from '../config.js'
import { urlToDir, type MigrationOwner } from '../db/migrate.js'
import { createLogger } from '../logger.js'
import type { LoadedPlugin } from '../plugins/load.js'

/** What a command that does not boot the platform gets. */
export interface StandaloneContext {
  config: Config
  plugins: LoadedPlugin[]
  /** Where the code runs from (source or dist/): the kernel's migrations are in its `migrations/`. */
  codeDir: string
}

/** The owners of migrations, as the boot lists them (kernel/app.ts). */
export const migrationOwners = (ctx: StandaloneContext): MigrationOwner[] => [
  { owner: 'kernel', dir: path.join(ctx.codeDir, 'migrations') },
  ...ctx.plugins.filter((p) => p.def.migrations).map((p) => ({ owner: p.def.id, dir: urlToDir(p.def.migrations!) })),
]

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`

export async function backupCommand(args: string[], io: CliIo, app: App): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  const file = positionals[0]
  if (!file || positionals.length > 1) throw new CliUsageError('backup needs one file: portcullis backup FILE (- for standard output)')
  if (file === '-') {
    const s = await app.backups.toStream(process.stdout)
    io.err(`backup: ${s.tables} tables, ${s.rows} rows written to standard output (app_version ${s.manifest.app_version}, master key id ${s.manifest.master_key.id.slice(0, 16)})\n`)
    return 0
  }
  const s = await app.backups.toFile(file)
  io.out(`backup: ${s.tables} tables, ${s.rows} rows, ${mib(s.bytes)} written to ${path.resolve(file)}`)
  io.out(`  app_version ${s.manifest.app_version}, engine ${s.manifest.engine}, node ${s.manifest.node_id}, master key id ${s.manifest.master_key.id.slice(0, 16)}`)
  io.out('  The archive holds the secrets sealed, not the master key: keep the master key apart from it; a restore needs both.')
  return 0
}

export async function restoreCommand(args: string[], io: CliIo, ctx: StandaloneContext): Promise<number> {
  const { values: v, positionals } = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean' } } })
  const file = positionals[0]
  if (!file || positionals.length > 1) throw new CliUsageError('restore needs one archive: portcullis restore FILE [--force]')
  await restoreArchive({ file: path.resolve(file), force: v.force === true, config: ctx.config, owners: migrationOwners(ctx), log: createLogger(ctx.config.logLevel), progress: (line) => io.out(line) })
  io.out('restore: done. Start the server on this configuration; each node writes the active releases from the database to its DATA_DIR when it starts.')
  return 0
}
