/**
 * The two steps of a deploy that only read: render every renderer's files from one
 * repeatable-read snapshot, and run the renderers' checks on a folder. Shared by the
 * deploy, the dry run, `portcullis render` and `portcullis check` (service.ts).
 */
import type { Knex } from 'knex'
import { secretValueMasker, type ConfigRenderer, type DatabaseService, type RenderedFile } from '../../sdk/index.js'
import { runCheck, type CheckOutcome, type DaemonCheckOutcome } from './check.js'
import { readReleaseSecrets } from './files.js'
import { DeployErrors } from './model.js'

/** Per daemon: its files, and the renderers that wrote them. */
export type RenderedDaemons = Map<string, { files: RenderedFile[]; renderers: ConfigRenderer[] }>

export type { DaemonCheckOutcome }

const unknownDaemon = (daemon: string, all: ConfigRenderer[]) =>
  DeployErrors.unknownDaemon({ field: 'daemon', vars: { daemon, known: [...new Set(all.map((r) => r.daemon))].sort().join(', ') || '-' } })

/** Every renderer's files for the chosen daemons (all when `daemon` is undefined), from one repeatable-read snapshot. */
export async function renderAll(
  db: DatabaseService,
  all: ConfigRenderer[],
  daemon: string | undefined,
  first?: (snapshot: Knex.Transaction) => Promise<void>,
): Promise<RenderedDaemons> {
  if (daemon !== undefined && !all.some((r) => r.daemon === daemon)) throw unknownDaemon(daemon, all)
  const chosen = all.filter((r) => daemon === undefined || r.daemon === daemon)
  if (!chosen.length) throw DeployErrors.nothingToDeploy()
  const out: RenderedDaemons = new Map()
  await db.transaction(
    async (snapshot) => {
      // Its first statement fixes the snapshot (repeatable read): the pending check keys its cache by it.
      if (first) await first(snapshot)
      for (const r of chosen) {
        let files: RenderedFile[]
        try {
          files = await r.render(snapshot)
        } catch (e) {
          throw DeployErrors.renderFailed({ vars: { renderer: r.id, message: (e as Error).message }, cause: e })
        }
        const g = out.get(r.daemon) ?? { files: [], renderers: [] }
        for (const f of files) {
          if (g.files.some((x) => x.path === f.path)) throw DeployErrors.renderFailed({ vars: { renderer: r.id, message: `file ${f.path} is rendered twice for ${r.daemon}` } })
          g.files.push(f)
        }
        g.renderers.push(r)
        out.set(r.daemon, g)
      }
    },
    { isolation: 'repeatable read' },
  )
  return out
}

/**
 * The checks of one daemon's renderers on `dir`: the first failure, else passed, else not checked.
 * The output is shown to deploy.read: a daemon quoting a line it refused quotes its secret too, so
 * the secrets of the release in `dir` (files.ts, SECRETS_FILE) are masked in it.
 */
export async function checkDaemon(renderers: ConfigRenderer[], dir: string, timeoutMs?: number): Promise<DaemonCheckOutcome> {
  const outcomes: CheckOutcome[] = []
  let unchecked = false
  const mask = secretValueMasker(readReleaseSecrets(dir) ?? [])
  for (const r of renderers) {
    const check = (await r.check?.()) ?? null
    const ran = await runCheck(check, dir, timeoutMs)
    const o = { ...ran, output: mask(ran.output) }
    if (check && o.checked === null) unchecked = true
    outcomes.push(o)
  }
  const failed = outcomes.find((o) => !o.ok)
  if (failed) return { ...failed, unchecked }
  const ran = outcomes.filter((o) => o.checked)
  if (unchecked) return { checked: null, ok: true, unchecked, output: outcomes.map((o) => o.output).filter(Boolean).join('\n') }
  return ran.length ? { checked: true, ok: true, unchecked, output: ran.map((o) => o.output).filter(Boolean).join('\n') } : { checked: null, ok: true, unchecked, output: outcomes.map((o) => o.output).join('\n') }
}

/** Per daemon (sorted by name), as the deploy and the dry run walk them. */
export const byDaemon = (rendered: RenderedDaemons) => [...rendered].sort(([a], [b]) => a.localeCompare(b))
