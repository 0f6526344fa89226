/**
 * What a start repairs on this node's disk after an interrupted deploy or
 * rollback: its pending rows marked failed, half-written release folders
 * removed, and `current` pointed back at the release this node activated last
 * (see service.ts's file comment for the order of a deploy's steps).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { CURRENT, currentRelease, PARTIAL, releaseIntact, releasesDir, switchCurrent } from './files.js'
import { rowFiles } from './model.js'

export async function recoverNode(o: { knex: Knex; nodeId: string; dataDir: string; log: Logger }): Promise<void> {
  /** This node's rows, and those recorded before node ids were (an upgraded single node's history). */
  const mine = <T extends {}, R>(q: Knex.QueryBuilder<T, R>) => q.where((w) => w.where('node_id', o.nodeId).orWhereNull('node_id'))
  const root = path.join(o.dataDir, 'releases')
  // Only this node's: another node's pending row is a deploy in flight there (it holds the lock), on its own disk.
  const interrupted = await mine(o.knex('deploys').where({ status: 'pending' })).update({ status: 'failed', check_output: o.knex.raw(`coalesce(check_output || E'\\n', '') || 'interrupted before activation'`) }, ['id'])
  if (interrupted.length) o.log.warn({ deploys: interrupted.map((r) => r.id) }, 'deploys interrupted before activation were marked failed')
  const daemons = new Set((await mine(o.knex('deploys')).distinct('daemon')).map((r) => r.daemon))
  if (existsSync(root)) for (const e of readdirSync(root, { withFileTypes: true })) if (e.isDirectory()) daemons.add(e.name)
  for (const daemon of daemons) {
    const dir = releasesDir(o.dataDir, daemon)
    if (existsSync(dir)) {
      for (const e of readdirSync(dir)) {
        if (e.endsWith(PARTIAL) || e.startsWith('.current-')) rmSync(path.join(dir, e), { recursive: true, force: true })
      }
    }
    // What this disk should serve: the release this node activated last (deploy or rollback). The
    // cluster-wide `active` row may be another node's, whose folder is on that node's disk.
    const last = await mine(o.knex('deploys').where({ daemon }).whereNotNull('activated_at')).orderBy('activated_at', 'desc').first()
    const cur = currentRelease(dir)
    if (last) {
      if (cur !== last.release) {
        if (releaseIntact(path.join(dir, last.release), rowFiles(last))) {
          o.log.warn({ daemon, current: cur, last: last.release }, 'current release does not match the database: pointing it back at the release this node activated last')
          switchCurrent(dir, last.release)
        } else o.log.error({ daemon, release: last.release }, 'the release this node activated last is missing or altered; deploy again')
      }
    } else if (cur !== null) {
      const row = await o.knex('deploys').where({ daemon, release: cur }).first()
      if (row && row.activated_at === null) {
        o.log.warn({ daemon, current: cur }, 'no release activated on this node: removing the current link of an interrupted first deploy')
        rmSync(path.join(dir, CURRENT), { force: true })
      }
      // Recorded as activated under another node id (NODE_ID changed?) or not at all: the daemon may be serving it.
      else o.log.error({ daemon, current: cur }, 'current points at a release this node did not record as activated; left as it is')
    }
  }
}
