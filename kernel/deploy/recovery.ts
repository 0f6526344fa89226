/**
 * What a start repairs on this node's disk after an interrupted deploy or
 * rollback: its pending rows marked failed, half-written release folders
 * removed; the node agent then points `current` at the cluster's active release
 * (see service.ts's file comment for the order of a deploy's steps).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { CURRENT, currentRelease, PARTIAL, releasesDir } from './files.js'

export async function recoverNode(o: { knex: Knex; nodeId: string; dataDir: string; log: Logger }): Promise<void> {
  /** This node's rows, and those recorded before node ids were (an upgraded single node's history). */
  const mine = <T extends {}, R>(q: Knex.QueryBuilder<T, R>) => q.where((w) => w.where('node_id', o.nodeId).orWhereNull('node_id'))
  const root = path.join(o.dataDir, 'releases')
  // Only this node's: another node's pending row is a deploy in flight there (it holds the lock), on its own disk.
  const interrupted = await mine(o.knex('deploys').where({ status: 'pending' })).update({ status: 'failed', failure_reason: 'interrupted', check_output: o.knex.raw(`coalesce(check_output || E'\\n', '') || 'interrupted before activation'`) }, ['id'])
  if (interrupted.length) o.log.warn({ deploys: interrupted.map((r) => r.id) }, 'deploys interrupted before activation were marked failed')
  const daemons = new Set((await mine(o.knex('deploys')).distinct('daemon')).map((r) => r.daemon))
  if (existsSync(root)) for (const e of readdirSync(root, { withFileTypes: true })) if (e.isDirectory()) daemons.add(e.name)
  for (const daemon of daemons) {
    const dir = releasesDir(o.dataDir, daemon)
    if (existsSync(dir)) {
      for (const e of readdirSync(dir)) {
        // `.fresh` and `.altered`: a cached folder being replaced by the node agent (cluster/materialize.ts).
        if (e.endsWith(PARTIAL) || e.endsWith('.fresh') || e.endsWith('.altered') || e.startsWith('.current-')) rmSync(path.join(dir, e), { recursive: true, force: true })
      }
    }
    // What this disk should serve is the cluster's active release: the node agent (cluster/agent.ts) points
    // `current` at it after this, writing it from the database when this disk lacks it. Left here: a first
    // deploy interrupted after its switch, when no release of the daemon was ever activated anywhere.
    const cur = currentRelease(dir)
    if (cur !== null && !(await o.knex('deploys').where({ daemon }).whereNotNull('activated_at').first('id'))) {
      const row = await o.knex('deploys').where({ daemon, release: cur }).first()
      if (row) {
        o.log.warn({ daemon, current: cur }, 'no release activated yet: removing the current link of an interrupted first deploy')
        rmSync(path.join(dir, CURRENT), { force: true })
      } else o.log.error({ daemon, current: cur }, 'current points at a release the database does not know; left as it is')
    }
  }
}
