/**
 * What a deploy leaves tidy on disk: older releases that still hold a cleartext
 * credential the current one no longer has (a CHAP password turned off), and
 * the daemons' dated log files past their retention.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { ConfigRenderer, Logger } from '../../sdk/index.js'
import { pruneLogs } from './account.js'
import { currentRelease, readRelease, releasesDir } from './files.js'

/**
 * Remove from disk every release of `daemon` other than the current one that holds a cleartext
 * credential the current one does not (a CHAP password turned off or changed): its row stays, a
 * rollback to it answers DEPLOY_RELEASE_MISSING.
 */
export function purgeCleartext(dataDir: string, all: ConfigRenderer[], daemon: string, log: Logger): void {
  const renderers = all.filter((r) => r.daemon === daemon && r.cleartextIn)
  const dir = releasesDir(dataDir, daemon)
  const cur = currentRelease(dir)
  if (!renderers.length || !cur || !existsSync(dir)) return
  const names = (root: string) => {
    const files = readRelease(root)
    return new Set(renderers.flatMap((r) => r.cleartextIn!(files)))
  }
  const kept = names(path.join(dir, cur))
  for (const n of readdirSync(dir)) {
    if (n === cur || !/^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(n)) continue
    const held = [...names(path.join(dir, n))].filter((x) => !kept.has(x))
    if (!held.length) continue
    rmSync(path.join(dir, n), { recursive: true, force: true })
    log.info({ daemon, release: n, credentials: held.length }, 'removed an older release holding cleartext credentials the current release no longer has')
  }
}

/** Remove the daemons' dated logs older than deploy.log_retention_days (at every deploy, and hourly from startHousekeeping). */
export function pruneOldLogs(renderers: ConfigRenderer[], days: number, log: Logger): { directory: string; removed: string[] }[] {
  const out: { directory: string; removed: string[] }[] = []
  for (const renderer of renderers) {
    for (const folder of renderer.folders?.() ?? []) {
      try {
        const removed = pruneLogs(folder, days)
        if (removed.length) {
          log.info({ daemon: renderer.daemon, directory: folder.directory, removed: removed.length, days }, 'removed log files older than the retention')
          out.push({ directory: folder.directory, removed })
        }
      } catch (e) {
        log.warn({ daemon: renderer.daemon, directory: folder.directory, err: (e as Error).message }, 'could not remove old log files')
      }
    }
  }
  return out
}

