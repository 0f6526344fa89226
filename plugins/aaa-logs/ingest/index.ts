/**
 * The ingester: tails every daemon log file of the daemons' log folders into the
 * AAA log tables (pipeline: ./core.ts). The folders are the ones the daemons are
 * configured to write to: the deploy's renderers say (`ConfigRenderer.folders`,
 * through `DeploysService.logFolders`), so `tacacs.log_directory` and
 * `radius.log_directory` are the one place each is set. A file's kind comes from
 * its name (tac_plus-ng's and FreeRADIUS's names do not overlap). Rotation:
 * - date-named files (strftime patterns) are simply new files, each with its own checkpoint;
 * - rename + new file: the path's inode changed, so the old inode is finished
 *   from its checkpoint (found by inode in the folder under its new name), then
 *   the new file starts at 0; a renamed file whose new name is itself tailed
 *   takes over the checkpoint of its inode;
 * - copytruncate: the file is shorter than the checkpoint, so it restarts at 0.
 * A partial last line (no newline yet) waits for the next poll.
 */
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { coreServices, identityServices, type ClusterInfo, type DaemonLogFolder, type DatabaseService, type Logger, type SettingsService } from '../../../sdk/index.js'
import { freeradiusFileKind } from '../../../sdk/logs/freeradius.js'
import { logFileKind } from '../../../sdk/logs/tac-plus-ng.js'
import type { Ingester, LoadExclusions, LogKind } from '../api.js'
import { IngestCore } from './core.js'
import type { RecordListeners } from './listeners.js'
import { ingestSettingRefs } from './settings.js'
import { ensureMonthlyPartitions } from './partitions.js'

/** The services the ingester runs on, in the plugin and in its CLI command alike. */
export const ingesterServiceRefs = {
  database: coreServices.database,
  settings: coreServices.settings,
  logger: coreServices.logger,
  cluster: coreServices.cluster,
  deploys: coreServices.deploys,
  identity: identityServices.identity,
} as const

export interface IngesterDeps {
  database: DatabaseService
  settings: SettingsService
  logger: Logger
  cluster: ClusterInfo
  /** The folders the daemons write their dated logs to, as configured now (the plugin: `deploys.logFolders()`). */
  logFolders: () => DaemonLogFolder[]
  loadExclusions: LoadExclusions
  /** Other plugins' listeners of the RADIUS records (the plugin's ingester; the CLI's has none). */
  listeners?: RecordListeners
}

export interface IngesterOptions {
  /** How often settings and exclusion rules are re-read (ms; default 5000). */
  reloadMs?: number
}

/** The source (checkpoint name) a file of a log folder feeds, from its name: tac_plus-ng's or FreeRADIUS's. */
export function sourceOf(fileName: string): LogKind | null {
  const t = logFileKind(fileName)
  if (t) return `tacacs_${t}` as LogKind
  const k = freeradiusFileKind(fileName)
  return k === 'auth' ? 'radius_authentication' : k === 'acct' ? 'radius_accounting' : null
}

interface Config {
  enabled: boolean
  dirs: string[]
  batchSize: number
  pollMs: number
}

export function createIngester(d: IngesterDeps, opts: IngesterOptions = {}): Ingester & { pollOnce(): Promise<void>; core: IngestCore } {
  const log = d.logger.child({ component: 'aaa-logs.ingest' })
  const core = new IngestCore({ database: d.database, logger: log, nodeId: d.cluster.nodeId, loadExclusions: d.loadExclusions, exclusionReloadMs: opts.reloadMs, listeners: d.listeners })
  let running = false
  let loop: Promise<void> | null = null
  let wake: (() => void) | null = null
  let config: Config | null = null
  let configAt = 0

  async function readConfig(): Promise<Config> {
    if (config && Date.now() - configAt < (opts.reloadMs ?? 5000)) return config
    const get = <T>(ref: { key: string; default: T }) => d.settings.get(ref as never) as Promise<T>
    const [enabled, batchSize, pollMs] = await Promise.all([get(ingestSettingRefs.enabled), get(ingestSettingRefs.batchSize), get(ingestSettingRefs.pollMs)])
    // One pass per folder, however many daemons share it (a file's kind comes from its name).
    const dirs = [...new Set(d.logFolders().map((f) => path.resolve(f.directory)))].sort()
    config = {
      enabled,
      dirs,
      batchSize,
      pollMs,
    }
    configAt = Date.now()
    return config
  }

  async function pollDir(dir: string, batchSize: number): Promise<void> {
    let names: string[]
    try {
      names = await readdir(dir)
    } catch {
      return // not there (yet)
    }
    const inodes = new Map<number, string>() // inode → name, every file of the folder
    const stats = new Map<string, { ino: number; size: number }>()
    for (const n of names) {
      try {
        const s = await stat(path.join(dir, n))
        if (!s.isFile()) continue
        inodes.set(s.ino, n)
        stats.set(n, { ino: s.ino, size: s.size })
      } catch {
        /* gone meanwhile */
      }
    }
    const tailed = names.filter((n) => stats.has(n) && sourceOf(n)).sort()
    for (const name of tailed) {
      if (!running) return
      const source = sourceOf(name)!
      const file = path.join(dir, name)
      const st = stats.get(name)!
      let cp = await core.checkpoint(source, file)
      if (cp && cp.inode !== st.ino) {
        // Rename rotation: finish the old inode if it is still here under a name we do not tail.
        const oldName = inodes.get(cp.inode)
        if (oldName !== undefined && !sourceOf(oldName)) {
          await core.drain(source, source, file, path.join(dir, oldName), cp.inode, cp.offset, { batchSize, final: true, shouldStop: () => !running })
          if (!running) return
        } else if (oldName !== undefined && sourceOf(oldName) === source && !(await core.checkpoint(source, path.join(dir, oldName)))) {
          // Renamed to a name we tail: that name takes over the position (stored before this one is reset).
          await core.saveCheckpoint(source, path.join(dir, oldName), { ...cp })
        }
        cp = { inode: st.ino, offset: 0 }
        core.setCheckpoint(source, file, cp)
      }
      if (!cp) {
        // A new name: a file renamed from a tailed name keeps its inode's checkpoint.
        let adopted: { inode: number; offset: number } | null = null
        for (const [other, ocp] of core.checkpointsOf(source)) {
          if (other !== file && ocp.inode === st.ino && stats.get(path.basename(other))?.ino !== st.ino && ocp.offset <= st.size) adopted = { ...ocp }
        }
        cp = adopted ?? { inode: st.ino, offset: 0 }
        if (adopted) await core.saveCheckpoint(source, file, cp)
        else core.setCheckpoint(source, file, cp)
      }
      if (st.size < cp.offset) {
        log.info({ file, offset: cp.offset, size: st.size }, 'aaa-logs: file truncated (copytruncate); reading it again from the start')
        cp = { inode: st.ino, offset: 0 }
        core.setCheckpoint(source, file, cp)
      }
      if (st.size > cp.offset) await core.drain(source, source, file, file, st.ino, cp.offset, { batchSize, shouldStop: () => !running })
    }
  }

  let reconciledAt = Date.now()

  async function pollOnce(): Promise<void> {
    const c = await readConfig()
    if (!c.enabled) return
    if (Date.now() - reconciledAt >= (opts.reloadMs ?? 5000)) {
      await core.reconcile()
      reconciledAt = Date.now()
    }
    for (const dir of c.dirs) await pollDir(dir, c.batchSize)
  }

  let partitionsAt = 0

  async function run(): Promise<void> {
    while (running) {
      if (Date.now() - partitionsAt > 3_600_000) {
        partitionsAt = Date.now()
        await ensureMonthlyPartitions(d.database.knex, log).catch((e: Error) => log.warn({ err: e.message }, 'aaa-logs: partition upkeep failed'))
      }
      let pollMs = 500
      try {
        pollMs = (await readConfig()).pollMs
        await pollOnce()
      } catch (e) {
        log.error({ err: e }, 'aaa-logs: ingestion round failed; retrying')
        pollMs = Math.max(pollMs, 1000)
      }
      if (!running) break
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pollMs)
        wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      wake = null
    }
  }

  return {
    core,
    async pollOnce() {
      const was = running
      running = true
      try {
        await pollOnce()
      } finally {
        running = was
      }
    },
    async start() {
      if (running) return
      running = true
      // The months are there before the node serves: created later, in the background, each
      // CREATE TABLE ... PARTITION OF would take its parent's ACCESS EXCLUSIVE lock under the first
      // searches (and on a hot standby, under reads until replay passes it), and rows written
      // meanwhile would land in the default partition, keeping their month from getting its own.
      if (d.cluster.role === 'primary') {
        partitionsAt = Date.now()
        await ensureMonthlyPartitions(d.database.knex, log).catch((e: Error) => log.warn({ err: e.message }, 'aaa-logs: partition upkeep failed'))
      }
      loop = run()
    },
    async stop() {
      running = false
      wake?.()
      await loop
      loop = null
    },
  }
}
