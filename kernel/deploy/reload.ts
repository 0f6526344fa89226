/**
 * After activation: the daemon's reload command (server option deploy.reload_commands),
 * its result recorded on the deploy row. A failed reload does not undo the activation:
 * the release is on disk and current; the row says the daemon did not take it yet.
 */
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { run } from './check.js'

export async function reloadDaemon(knex: Knex, log: Logger, argv: string[] | undefined, id: string, daemon: string): Promise<void> {
  if (!argv?.length) return
  const r = await run(argv[0], argv.slice(1), { timeoutMs: 30_000, env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' } })
  const ok = !r.error && !r.timedOut && r.code === 0
  const output = [r.error, r.timedOut ? 'timed out after 30000 ms' : null, r.stdout.trim(), r.stderr.trim(), ok ? null : `exit ${r.code ?? r.signal}`].filter(Boolean).join('\n')
  if (!ok) log.error({ daemon, argv, output }, 'reload command failed')
  await knex('deploys').where({ id }).update({ reload_status: ok ? 'ok' : 'failed', reload_output: output.slice(0, 8000) })
}
