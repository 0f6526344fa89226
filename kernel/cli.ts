#!/usr/bin/env node
/**
 * `portcullis`: the operator's command line. See docs/deploy.md.
 *
 *   portcullis help [COMMAND]                     every command, or one command's usage
 *   portcullis render --out DIR [--daemon D]      render the configuration into DIR/<daemon>/ (nothing activated)
 *   portcullis check DIR --daemon D               run the daemon's own check on a folder
 *   portcullis deploy [--daemon D] [--dry-run] [--comment TEXT]
 *   portcullis backup FILE                        a backup archive of the installation (docs/backup.md)
 *   portcullis restore FILE [--force]             an archive into an empty installation, without booting it
 *   portcullis <plugin command> …                 what the loaded plugins add (tacacs-probe, radius-probe, aaa-logs-replay …)
 *   portcullis collector enroll|run|status …      the configuration collector (collector/cli.ts): runs near the
 *                                                 devices with no database or master key, so it is dispatched first
 *
 * The kernel knows no plugin's command: it loads the configured plugins
 * (PLUGINS, the config file, or the edition in package.json) and dispatches to
 * the command a manifest's `cli` names. The kernel's commands, and a plugin
 * command that names deps, boot the platform on the server's configuration
 * (DATABASE_URL, DATA_DIR, MASTER_KEY …) without the plugins' background work,
 * run, and stop; a command without deps (a probe) runs without the database.
 * Exit status: 0 success/PASS, 1 failure/FAIL, 2 usage error.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { isPortcullisError, type CliIo } from '../sdk/index.js'
import { startApp, type App } from './app.js'
import { BootError } from './boot-error.js'
import { withRefusals } from './deploy/model.js'
import { kernelCommands } from './cli/commands.js'
import { loadConfig } from './config.js'
import { createTranslator } from './i18n.js'
import { collectCliCommands, type OwnedCommand } from './plugins/cli.js'
import { loadPlugins, orderPlugins } from './plugins/load.js'
import { packageEditions, projectRoot } from './version.js'

const codeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

interface Entry {
  name: string
  summary: string
  usage: string
  owner: string | null
}

const usageOf = (e: Entry) => `portcullis ${e.name}${e.usage ? ' ' + e.usage : ''}`

function helpText(entries: Entry[]): string {
  const lines = ['usage: portcullis <command> [arguments]   (portcullis help <command>: its usage)', '']
  for (const e of entries) lines.push(`  ${e.name.padEnd(18)} ${e.summary}${e.owner ? `  [plugin ${e.owner}]` : ''}`)
  lines.push(`  ${'collector'.padEnd(18)} the configuration collector: enroll | run | status (portcullis collector help)`)
  lines.push(
    '',
    'Commands come from the kernel and from the loaded plugins (PLUGINS, or the edition in package.json).',
    'Those that read the platform boot it on the server\'s configuration (DATABASE_URL, DATA_DIR, MASTER_KEY, PLUGINS …) without serving it.',
  )
  return lines.join('\n')
}

const isUsageError = (e: unknown) =>
  e instanceof Error && (e.name === 'CliUsageError' || /^ERR_PARSE_ARGS_/.test((e as { code?: string }).code ?? ''))

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // The collector runs where there is no server configuration (no DATABASE_URL, no MASTER_KEY): before loadConfig.
  if (argv[0] === 'collector' || (argv[0] === 'help' && argv[1] === 'collector')) {
    const { runCollectorCli } = await import('../collector/cli.js')
    return runCollectorCli(argv[0] === 'help' ? ['help'] : argv.slice(1), { out: (s = '') => void process.stdout.write(s + '\n'), err: (s) => void process.stderr.write(s), env })
  }
  const config = loadConfig({ LOG_LEVEL: 'warn', ...env, PORT: '0', HOST: '127.0.0.1' }, { editions: packageEditions() })
  const plugins = orderPlugins(await loadPlugins(config.plugins, { root: projectRoot(), codeDir }))
  const pluginCommands = collectCliCommands(plugins)
  const entries: Entry[] = [
    ...kernelCommands.map((c) => ({ name: c.name, summary: c.summary, usage: c.usage, owner: null })),
    ...[...pluginCommands.values()].map(({ owner, command: c }) => ({ name: c.name, summary: c.summary, usage: c.usage, owner: owner.id })),
  ]
  const i18n = await createTranslator()
  for (const { def } of plugins) if (def.locales) i18n.addNamespace(def.id, def.locales)
  const out = (s = '') => process.stdout.write(s + '\n')

  // `portcullis update-feed sign …` reads as `portcullis update-feed-sign …`: a plugin's command is its id and a verb.
  const twoWords = argv.length > 1 && !entries.some((e) => e.name === argv[0]) && entries.some((e) => e.name === `${argv[0]}-${argv[1]}`)
  const [name, ...args] = twoWords ? [`${argv[0]}-${argv[1]}`, ...argv.slice(2)] : argv
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const one = name === 'help' && args[0] ? entries.find((e) => e.name === args[0]) : undefined
    out(one ? `${usageOf(one)}\n  ${one.summary}` : helpText(entries))
    return name ? 0 : 2
  }
  const entry = entries.find((e) => e.name === name)
  if (!entry) {
    process.stderr.write(`portcullis: unknown command "${name}"\n${helpText(entries)}\n`)
    return 2
  }
  if (args.includes('--help') || args.includes('-h')) {
    out(`${usageOf(entry)}\n  ${entry.summary}`)
    return 0
  }

  const controller = new AbortController()
  const io: CliIo = { out, err: (s) => void process.stderr.write(s), env, signal: controller.signal }
  const kernel = kernelCommands.find((c) => c.name === name)
  const plugin: OwnedCommand | undefined = pluginCommands.get(name)
  const needsApp = !!kernel || Object.keys(plugin?.command.deps ?? {}).length > 0
  try {
    if (!needsApp) return await plugin!.command.run(args, io, {})
    if (kernel?.standalone) return await kernel.standalone(args, io, { config, plugins, codeDir })
    // Booted: the first SIGINT/SIGTERM asks the command to finish (the database is closed
    // cleanly, which the embedded engine needs); a second one ends the process.
    let signals = 0
    const onSignal = () => {
      if (++signals > 1) process.exit(130)
      process.stderr.write('portcullis: stopping (again to force)\n')
      controller.abort()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    const app: App = await startApp(config, { background: false })
    try {
      if (app.bootstrap?.generated) process.stderr.write(`portcullis: first start: administrator "admin" created with password  ${app.bootstrap.password}  (shown only this once)\n`)
      return kernel ? await kernel.run!(args, io, app) : await plugin!.command.run(args, io, app.resolveDeps(plugin!.owner.id, plugin!.command.deps ?? {}))
    } finally {
      await app.stop()
    }
  } catch (e) {
    if (isUsageError(e)) {
      process.stderr.write(`portcullis: ${(e as Error).message}\nusage: ${usageOf(entry)}\n`)
      return 2
    }
    // A coded error, in English, with the plugins' messages too.
    if (isPortcullisError(e)) {
      // A refused deploy names each other daemon's result, as the API does (deploy/model.ts).
      const coded = withRefusals(e, (key, vars) => i18n.t('en', key, vars)) as typeof e
      process.stderr.write(`portcullis: ${coded.code}: ${i18n.t('en', coded.messageKey, coded.vars)}\n`)
      return 1
    }
    throw e
  }
}

try {
  process.exitCode = await main(process.argv.slice(2), process.env)
} catch (e) {
  if (e instanceof BootError) {
    process.stderr.write(`portcullis: cannot start: ${e.code}: ${e.message}\n`)
    process.exitCode = 1
  } else {
    process.stderr.write(`portcullis: ${(e as Error).message}\n`)
    process.exitCode = 1
  }
}
