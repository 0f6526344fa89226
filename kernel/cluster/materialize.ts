/**
 * One daemon on one node: make `current` the cluster's active release. The
 * folder is a cache of the database (deploy/store.ts): used when its files
 * match the recorded hashes, else written again from the database (a folder
 * altered on disk is never served). A release this node did not check itself
 * is checked with the daemon's own check on this node before the switch; a
 * node whose check fails keeps its old release and says so.
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { ConfigRenderer, Logger, SecretsService } from '../../sdk/index.js'
import type { Knex } from 'knex'
import { prepareFolder } from '../deploy/account.js'
import { daemonGroup, forGroup, releaseFolder } from '../deploy/daemon-group.js'
import { currentRelease, releaseIntact, releasesDir, switchCurrent, writeRelease } from '../deploy/files.js'
import { rowFiles, type DeployRow } from '../deploy/model.js'
import { checkDaemon } from '../deploy/render.js'
import { loadRelease } from '../deploy/store.js'

/** Suffixes of a release folder being replaced (recovery.ts removes what a crash left of them). */
export const FRESH = '.fresh'
export const ALTERED = '.altered'

export type ServeOutcome =
  /** `current` already pointed at the active release, its files intact. */
  | { kind: 'unchanged'; release: string }
  /** `current` now points at the active release (written from the database when `fetched`). */
  | { kind: 'switched'; release: string; fetched: boolean; check: { ok: boolean | null; output: string } | null }
  /** Kept the old release: why. */
  | { kind: 'refused'; release: string; error: string; check: { ok: boolean | null; output: string } | null }

export interface ServeContext {
  knex: Knex
  secrets: SecretsService
  dataDir: string
  nodeId: string
  log: Logger
  allowUnchecked: boolean
  checkTimeoutMs?: number
  /** Tests only: a pause after each file written (kill -9 in the middle of a materialization). */
  pause?: () => void
}

export async function serveActive(c: ServeContext, renderers: ConfigRenderer[], active: DeployRow): Promise<ServeOutcome> {
  const daemon = active.daemon
  const dir = releasesDir(c.dataDir, daemon)
  const folder = path.join(dir, active.release)
  const want = rowFiles(active)
  const cur = currentRelease(dir)
  const intact = existsSync(folder) && releaseIntact(folder, want)
  if (cur === active.release && intact) return { kind: 'unchanged', release: active.release }
  let fetched = false
  if (!intact) {
    const stored = await loadRelease(c.knex, c.secrets, active.id)
    if (!stored) return { kind: 'refused', release: active.release, error: `the files of release ${active.release} are no longer in the database (deploy.keep_releases pruned them): deploy again`, check: null }
    // Written beside the folder first, then renamed into place: even a `current` that names an
    // altered folder points at a complete release again after two renames, never at a half-written one.
    const fresh = folder + FRESH
    rmSync(fresh, { recursive: true, force: true })
    const group = daemonGroup(renderers, daemon)
    forGroup(renderers, group, () => {
      for (const r of renderers) for (const f of r.folders?.() ?? []) prepareFolder(c.dataDir, f, group)
      releaseFolder(c.dataDir, daemon, group)
      writeRelease(fresh, stored.files, c.pause, group, stored.secrets, { maskedRecords: false })
    })
    if (!releaseIntact(fresh, want)) {
      rmSync(fresh, { recursive: true, force: true })
      return { kind: 'refused', release: active.release, error: `release ${active.release} written from the database does not match the hashes its deploy recorded`, check: null }
    }
    if (existsSync(folder)) {
      c.log.warn({ daemon, release: active.release }, 'the cached release folder does not match its recorded hashes: written again from the database')
      renameSync(folder, folder + ALTERED)
    }
    renameSync(fresh, folder)
    rmSync(folder + ALTERED, { recursive: true, force: true })
    fetched = true
  }
  // The deploying node checked its own folder before activating it; any other folder is checked here, on this node.
  let check: { ok: boolean | null; output: string } | null = null
  if (fetched || active.node_id !== c.nodeId) {
    const r = await checkDaemon(renderers, folder, c.checkTimeoutMs)
    check = { ok: r.unchecked ? null : r.ok, output: r.output }
    if (!r.ok || (r.unchecked && !c.allowUnchecked)) {
      const error = r.ok ? `the daemon's check could not run on this node (${r.output}); deploy.allow_unchecked is off` : `the daemon's check failed on this node: ${r.output}`
      return { kind: 'refused', release: active.release, error, check }
    }
  }
  switchCurrent(dir, active.release)
  return { kind: 'switched', release: active.release, fetched, check }
}
