/**
 * After activation: the daemon takes its new `current` (the supervisor restarts
 * it, or the server option deploy.reload_commands runs), and the result is
 * recorded on the deploy row. A failed reload does not undo the activation:
 * the release is on disk and current; the row says the daemon did not take it yet.
 */
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import type { ReloadResult } from '../cluster/agent.js'
import { run } from './check.js'

/** Run the daemon's reload command (argv, no shell); null when none is configured. */
export async function runReloadCommand(log: Logger, argv: string[] | undefined, daemon: string): Promise<ReloadResult | null> {
  if (!argv?.length) return null
  const r = await run(argv[0], argv.slice(1), { timeoutMs: 30_000, env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' } })
  const ok = !r.error && !r.timedOut && r.code === 0
  const output = [r.error, r.timedOut ? 'timed out after 30000 ms' : null, r.stdout.trim(), r.stderr.trim(), ok ? null : `exit ${r.code ?? r.signal}`].filter(Boolean).join('\n')
  if (!ok) log.error({ daemon, argv, output }, 'reload command failed')
  return { status: ok ? 'ok' : 'failed', output }
}

/** The reload's result on the deploy row (nothing when no reload is configured). */
export async function recordReload(knex: Knex, id: string, r: ReloadResult | null): Promise<void> {
  if (!r) return
  await knex('deploys').where({ id }).update({ reload_status: r.status, reload_output: r.output.slice(0, 8000) })
}
