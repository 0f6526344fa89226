/**
 * The kernel's own commands of the `portcullis` command line: the deploy
 * pipeline's render, check and deploy, and backup and restore. They run in
 * the booted platform (see ../cli.ts), except a `standalone` one (restore);
 * plugins add theirs through the SDK (`cli` in the manifest).
 */
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { cliRequired, CliUsageError, type CliIo } from '../../sdk/index.js'
import type { App } from '../app.js'
import type { DeployView, DryRunDaemon } from '../deploy/service.js'
import { backupCommand, restoreCommand, type StandaloneContext } from './backup.js'

export type { StandaloneContext }

export type KernelCommand = {
  name: string
  summary: string
  usage: string
} & (
  | { run(args: string[], io: CliIo, app: App): Promise<number>; standalone?: undefined }
  /** Runs on the configuration alone, without booting the platform. */
  | { standalone(args: string[], io: CliIo, ctx: StandaloneContext): Promise<number>; run?: undefined }
)

const checkWord = (checked: boolean | null, ok = true) => (checked === null ? 'SKIPPED' : ok ? 'PASS' : 'FAIL')

function printDeploy(io: CliIo, d: DeployView) {
  io.out(`${d.daemon}: ${d.status.toUpperCase()}  release ${d.release}  (deploy ${d.id})`)
  io.out(`  check:  ${checkWord(d.checked)}${d.check_output ? '  ' + d.check_output.split('\n').join('\n          ') : ''}`)
  io.out(`  reload: ${d.reload_status === null ? 'none configured' : d.reload_status === 'ok' ? 'OK' : 'FAILED'}${d.reload_output ? '  ' + d.reload_output : ''}`)
  // The size and hash of the masked text, as the API shows them (none for a release recorded before).
  for (const f of d.files) io.out(`  ${f.mode}  ${String(f.size ?? '-').padStart(8)} B  ${(f.sha256 ?? '-').slice(0, 16)}  ${f.path}`)
}

function printDryRun(io: CliIo, ds: DryRunDaemon[]) {
  for (const d of ds) {
    const changed = d.changes.filter((c) => c.change !== 'unchanged')
    io.out(`${d.daemon}: ${changed.length ? `${changed.length} file(s) differ` : 'no change'} from ${d.current_release ?? '(nothing deployed)'}; check ${checkWord(d.checked, d.check_ok)}`)
    if (!d.check_ok) io.out('  ' + d.check_output.split('\n').join('\n  '))
    for (const c of changed) {
      io.out(`  ${c.change.toUpperCase()} ${c.path}${c.mode_before !== c.mode_after && c.mode_before && c.mode_after ? ` (mode ${c.mode_before} -> ${c.mode_after})` : ''}`)
      if (c.diff) io.out(c.diff.replace(/^/gm, '    ').trimEnd())
    }
  }
}

export const kernelCommands: KernelCommand[] = [
  {
    name: 'render',
    summary: 'Render the configuration into DIR/<daemon>/ (nothing activated)',
    usage: '--out DIR [--daemon D]',
    async run(args, io, app) {
      const { values: v } = parseArgs({ args, options: { out: { type: 'string' }, daemon: { type: 'string' } } })
      const dir = path.resolve(cliRequired(v.out, 'out'))
      for (const r of await app.deploys.renderTo(dir, v.daemon)) {
        io.out(`${r.daemon}: rendered into ${r.dir}`)
        for (const f of r.files) io.out(`  ${f.mode}  ${String(f.size).padStart(8)} B  ${f.sha256.slice(0, 16)}  ${f.path}`)
      }
      return 0
    },
  },
  {
    name: 'check',
    summary: "Run the daemon's own configuration check on a folder: PASS, FAIL or SKIPPED",
    usage: 'DIR --daemon D',
    async run(args, io, app) {
      const { values: v, positionals } = parseArgs({ args, allowPositionals: true, options: { daemon: { type: 'string' } } })
      const dir = positionals[0]
      if (!dir) throw new CliUsageError('check needs a folder: portcullis check DIR --daemon D')
      const daemon = cliRequired(v.daemon, 'daemon')
      const r = await app.deploys.checkFolder(dir, daemon)
      io.out(`${daemon} ${path.resolve(dir)}: ${checkWord(r.checked, r.ok)}`)
      if (r.output) io.out('  ' + r.output.split('\n').join('\n  '))
      return r.ok ? 0 : 1
    },
  },
  {
    name: 'deploy',
    summary: 'Render, check and activate (as POST /deploys), or show the diff with --dry-run',
    usage: '[--daemon D] [--dry-run] [--comment TEXT]',
    async run(args, io, app) {
      const { values: v } = parseArgs({ args, options: { daemon: { type: 'string' }, 'dry-run': { type: 'boolean' }, comment: { type: 'string' } } })
      if (v['dry-run']) {
        const ds = await app.deploys.dryRun(v.daemon)
        printDryRun(io, ds)
        return ds.every((d) => d.check_ok) ? 0 : 1
      }
      const ds = await app.deploys.deploy({ daemon: v.daemon, comment: v.comment ?? `portcullis cli (${os.userInfo().username}@${os.hostname()})`, actor: null })
      for (const d of ds) printDeploy(io, d)
      return ds.every((d) => d.reload_status !== 'failed') ? 0 : 1
    },
  },
  {
    name: 'backup',
    summary: 'Write a backup archive of the whole installation (database, releases, logs) to FILE',
    usage: 'FILE',
    run: backupCommand,
  },
  {
    name: 'restore',
    summary: 'Restore a backup archive into an empty installation (--force: from another version, then migrate forward)',
    usage: 'FILE [--force]',
    standalone: restoreCommand,
  },
]
