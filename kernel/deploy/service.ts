/**
 * The deploy pipeline: render every renderer's files from one repeatable-read
 * snapshot, write a new release folder per daemon, run the daemon's own check
 * when its binary is present, switch `current` atomically, record the deploy,
 * run the daemon's reload command. A failed check activates nothing.
 *
 * Crash safety: a release folder is complete or absent (`.partial` then
 * rename); `current` changes by rename(2) of a new symlink; a deploy row is
 * `pending` from before the switch until the activation commits. `recover()`
 * (at boot and before every deploy) marks this node's interrupted deploys
 * failed, removes partial folders, and points `current` back at the release
 * this node last activated, so a kill -9 at any moment leaves the previous
 * release active and intact.
 *
 * Cluster: the activation stores the release's files in the database
 * (store.ts) and notifies every node; each node's agent (cluster/agent.ts)
 * makes its own `current` follow the active release, so a deploy or rollback
 * sent to any node reaches every node. The deploy lock (lock.ts) lets one
 * deploy or rollback run at a time across the cluster; recovery touches only
 * the starting node's own rows and disk, never another node's deploy in flight.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Knex } from 'knex'
import { jsonText, type Actor, type AuditService, type ConfigRenderer, type DaemonLogFolder, type DatabaseService, type DeployedConfig, type DeploysService, type Logger, type RenderedFile, type SecretsService } from '../../sdk/index.js'
import type { NodeAgent, ReloadResult } from '../cluster/agent.js'
import { RELEASE_CHANNEL } from '../cluster/listen.js'
import type { SettingsStore } from '../settings/store.js'
import type { CheckOutcome } from './check.js'
import { byDaemon, checkDaemon, renderAll, type DaemonCheckOutcome, type RenderedDaemons } from './render.js'
import { recordReload } from './reload.js'
import { manifestCleartext, pruneStore, purgeStoredCleartext, releaseManifest, saveRelease } from './store.js'
import { rollbackTo } from './rollback.js'
import { recordFailed, refusals, type StagedRelease } from './failed.js'
import { releaseChanges } from './diff.js'
import { deployedConfig } from './current.js'
import { deployRequests } from './requested.js'
import { ClusterDeployLock, type DeployLease } from './lock.js'
import { takeFolderLock } from './lock-file.js'
import { prepareFolder } from './account.js'
import { daemonGroup, forGroup, releaseFolder } from './daemon-group.js'
import { purgeCleartext, pruneOldLogs } from './housekeeping.js'
import { recoverNode } from './recovery.js'
import { auditMark, currentSnapshot, PendingTracker, renderedHashes } from './pending.js'
import type { DeployImpactRecord } from './impact.js'
import { DeployErrors, refusalError, allowUncheckedSetting, keepReleasesSetting, lockWaitSetting, logRetentionSetting, toView, type DeployView, type DryRunDaemon } from './model.js'
export * from './model.js'
import {
  currentRelease, declaredSecrets, pruneReleaseFolders, readRelease, readReleaseSecrets, releaseName, releasesDir, sha256, shownFileRecords, switchCurrent, writeRelease, modeString, type FileRecord,
} from './files.js'

interface Ctx {
  actor: Actor | null
  requestId?: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const sleepSync = (ms: number) => {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

export class DeployService implements DeploysService {
  private chain: Promise<unknown> = Promise.resolve()
  private readonly activatedListeners: ((daemon: string) => void | Promise<void>)[] = []
  /** Tests only: a pause between the steps of a deploy, to be killed in the middle of one. */
  private readonly delayMs = Number(process.env.PORTCULLIS_DEPLOY_TEST_DELAY_MS ?? 0) || 0
  private readonly lock: ClusterDeployLock
  /** Changes not yet deployed, per daemon (pending.ts). */
  readonly pendingTracker: PendingTracker

  constructor(
    readonly d: {
      db: DatabaseService
      dataDir: string
      /** This node's id: recorded on its deploys; recovery touches only those. */
      nodeId: string
      renderers: () => { owner: string; renderer: ConfigRenderer }[]
      settings: SettingsStore
      /** Makes this node's daemon take its new `current` (the supervisor's restart, or deploy.reload_commands); null: nothing configured. */
      reloadDaemon: (daemon: string) => Promise<ReloadResult | null>
      /** This node's agent: it serves the active releases and shares this node's disk (cluster/agent.ts). */
      agent: NodeAgent
      secrets: SecretsService
      /** The plugin versions, for the release's manifest. */
      pluginVersion: (plugin: string) => string | null
      audit: AuditService
      log: Logger
      checkTimeoutMs?: number
    },
  ) {
    this.lock = new ClusterDeployLock(d.db.knex, d.nodeId, d.log)
    this.pendingTracker = new PendingTracker({ knex: d.db.knex, render: () => this.renderHashes() })
  }

  /** Per daemon: whether a deploy would change its active release (pending.ts). */
  pending() {
    return this.pendingTracker.status()
  }

  /** What a deploy would write now, as hashes and modes, and the database snapshot it was rendered from. */
  private async renderHashes() {
    let snapshot = ''
    let audit = ''
    const rendered = await this.renderAll(undefined, async (trx) => {
      snapshot = await currentSnapshot(trx)
      audit = await auditMark(trx)
    }).catch((e: unknown) => {
      // Nothing to render (no renderer loaded): nothing can be pending.
      if ((e as { code?: string }).code === 'DEPLOY_NOTHING') return new Map() as RenderedDaemons
      throw e
    })
    if (!snapshot) [snapshot, audit] = [await currentSnapshot(this.knex), await auditMark(this.knex)]
    const daemons = new Map([...rendered].map(([name, g]) => [name, renderedHashes(g.files, daemonGroup(g.renderers, name) !== null)] as const))
    return { snapshot, audit, daemons }
  }

  get db(): DatabaseService {
    return this.d.db
  }

  private get knex(): Knex {
    return this.d.db.knex
  }

  /**
   * One deploy (or rollback) at a time: a promise chain in this process, and a lock file
   * (`<DATA_DIR>/releases/.deploy.lock`, holding the pid) against another process on the
   * same folder (the CLI beside the server). A lock left by a dead process is taken over.
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const locked = async () => {
      const release = await takeFolderLock(this.d.dataDir, { nodeId: this.d.nodeId, log: this.d.log })
      try {
        return await fn()
      } finally {
        release()
      }
    }
    const next = this.chain.then(locked, locked)
    this.chain = next.catch(() => undefined)
    return next
  }

  /**
   * A deploy or rollback: `exclusive`, and also the cluster's deploy lease (held across
   * render, check, activation, reload and pruning), waiting up to the setting
   * deploy.lock_wait_seconds for a deploy another node is running.
   */
  private clusterExclusive<T>(fn: (lease: DeployLease) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const lease = await this.lock.acquire((await this.d.settings.get(lockWaitSetting)) * 1000)
      try {
        return await fn(lease)
      } finally {
        await lease.release()
      }
    })
  }

  /** Keep the newest `deploy.keep_releases` release folders of a daemon, and always the current one. */
  private async prune(daemon: string): Promise<void> {
    const keep = await this.d.settings.get(keepReleasesSetting)
    await pruneStore(this.knex, daemon, keep)
    pruneReleaseFolders(releasesDir(this.d.dataDir, daemon), keep)
  }

  private async step(): Promise<void> {
    if (this.delayMs) await sleep(this.delayMs)
  }

  daemons(): string[] {
    return [...new Set(this.d.renderers().map((r) => r.renderer.daemon))].sort()
  }

  /** At boot: repair what an interrupted deploy of this node left (see the file comment), and free the deploy lock it held. */
  recover(): Promise<void> {
    return this.exclusive(async () => {
      await this.lock.releaseStale()
      await this.recoverNow()
      await this.d.agent.syncAll()
    })
  }

  /** Repairs what an interrupted deploy of this node left on its disk (recovery.ts). */
  private recoverNow(): Promise<void> {
    return this.d.agent.exclusive(() => recoverNode({ knex: this.knex, nodeId: this.d.nodeId, dataDir: this.d.dataDir, log: this.d.log }))
  }

  /** Every renderer's files for the chosen daemons, from one repeatable-read snapshot (render.ts). */
  private renderAll(daemon: string | undefined, first?: (snapshot: Knex.Transaction) => Promise<void>): Promise<RenderedDaemons> {
    return renderAll(this.d.db, this.d.renderers().map((r) => r.renderer), daemon, first)
  }

  private checkDaemon(renderers: ConfigRenderer[], dir: string): Promise<DaemonCheckOutcome> {
    return checkDaemon(renderers, dir, this.d.checkTimeoutMs)
  }

  /** Older releases of `daemon` holding a cleartext credential the active one does not, on this disk (housekeeping.ts) and in the database (store.ts). */
  async purgeCleartext(daemon: string): Promise<void> {
    purgeCleartext(this.d.dataDir, this.d.renderers().map((r) => r.renderer), daemon, this.d.log)
    const active = await this.knex('deploys').where({ daemon, status: 'active' }).first()
    if (active) await purgeStoredCleartext(this.knex, this.d.secrets, daemon, active.id, new Set(manifestCleartext(this.d.secrets, active.manifest)))
  }

  /** Remove the daemons' dated logs older than deploy.log_retention_days (at every deploy, and hourly from startHousekeeping). */
  async pruneOldLogs(): Promise<{ directory: string; removed: string[] }[]> {
    return pruneOldLogs(this.d.renderers().map((r) => r.renderer), await this.d.settings.get(logRetentionSetting), this.d.log)
  }

  /** Log retention a minute after start, then once an hour (the server; not the command line). Returns the stop function. */
  startHousekeeping(everyMs = 3_600_000): () => void {
    const tick = () => void this.pruneOldLogs().catch((e: unknown) => this.d.log.warn({ err: (e as Error).message }, 'log retention failed'))
    let timer = setTimeout(function again() {
      tick()
      timer = setTimeout(again, everyMs).unref()
    }, Math.min(60_000, everyMs)).unref()
    return () => clearTimeout(timer)
  }

  dryRun(daemon?: string): Promise<DryRunDaemon[]> {
    return this.exclusive(async () => {
      const rendered = await this.renderAll(daemon)
      const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'portcullis-dry-run-'))
      try {
        const out: DryRunDaemon[] = []
        for (const [name, g] of byDaemon(rendered)) {
          const dir = path.join(tmpRoot, name)
          // With the daemon's group, as a deploy writes it: the modes compare equal (0640) with the current release's.
          const group = daemonGroup(g.renderers, name)
          forGroup(g.renderers, group, () => writeRelease(dir, g.files, undefined, group))
          const check = await this.checkDaemon(g.renderers, dir)
          const relDir = releasesDir(this.d.dataDir, name)
          const cur = currentRelease(relDir)
          // The secrets of the release on disk and of this render, masked on both sides.
          const secrets = [...(cur ? (readReleaseSecrets(path.join(relDir, cur)) ?? []) : []), ...declaredSecrets(g.files)]
          const changes = releaseChanges(cur ? readRelease(path.join(relDir, cur)) : [], readRelease(dir), secrets)
          out.push({ daemon: name, current_release: cur, checked: check.checked, check_ok: check.ok, check_output: check.output, changes })
        }
        return out
      } finally {
        rmSync(tmpRoot, { recursive: true, force: true })
      }
    })
  }

  /** Render into `<outDir>/<daemon>/` (which must not exist yet) without checking or activating: `portcullis render`. */
  async renderTo(outDir: string, daemon?: string): Promise<{ daemon: string; dir: string; files: FileRecord[] }[]> {
    const rendered = await this.renderAll(daemon)
    mkdirSync(outDir, { recursive: true })
    const out: { daemon: string; dir: string; files: FileRecord[] }[] = []
    for (const [name, g] of byDaemon(rendered)) {
      const dir = path.join(outDir, name)
      if (existsSync(dir)) throw new Error(`${dir} exists already: render into a new folder`)
      out.push({ daemon: name, dir, files: writeRelease(dir, g.files) })
    }
    return out
  }

  /** Run the check of `daemon`'s renderers on a folder: `portcullis check`. */
  async checkFolder(dir: string, daemon: string): Promise<CheckOutcome> {
    const renderers = this.d.renderers().map((r) => r.renderer).filter((r) => r.daemon === daemon)
    if (!renderers.length) throw DeployErrors.unknownDaemon({ field: 'daemon', vars: { daemon, known: this.daemons().join(', ') || '-' } })
    return this.checkDaemon(renderers, path.resolve(dir))
  }

  deploy(o: { daemon?: string; comment?: string | null; impact?: DeployImpactRecord | null } & Ctx): Promise<DeployView[]> {
    return this.clusterExclusive(async (lease) => {
      await this.recoverNow()
      let snapshot = ''
      const rendered = await this.renderAll(o.daemon, async (trx) => void (snapshot = await currentSnapshot(trx)))
      await this.step()
      const at = new Date()
      const allowUnchecked = await this.d.settings.get(allowUncheckedSetting)
      const staged: StagedRelease[] = []
      const renderedFiles = new Map<string, RenderedFile[]>()
      for (const [daemon, g] of byDaemon(rendered)) {
        const id = randomUUID()
        const group = daemonGroup(g.renderers, daemon)
        const dir = forGroup(g.renderers, group, () => {
          for (const r of g.renderers) for (const f of r.folders?.() ?? []) prepareFolder(this.d.dataDir, f, group)
          return releaseFolder(this.d.dataDir, daemon, group)
        })
        const release = releaseName(at, id)
        const files = forGroup(g.renderers, group, () => writeRelease(path.join(dir, release), g.files, () => sleepSync(this.delayMs), group))
        await this.step()
        const check = await this.checkDaemon(g.renderers, path.join(dir, release))
        staged.push({ id, daemon, release, dir, files, check })
        renderedFiles.set(id, g.files)
        await this.step()
      }
      const base = { node_id: this.d.nodeId, actor_id: o.actor?.id ?? null, actor_name: o.actor?.username ?? null, comment: o.comment ?? null, created_at: at }
      // A failed check, or one that could not run (unless deploy.allow_unchecked): nothing is activated (failed.ts).
      const refused = refusals(staged, allowUnchecked)
      if (refused) {
        await recordFailed(this.knex, this.d.audit, staged, refused, base, o)
        for (const s of staged) await this.prune(s.daemon)
        throw refusalError(refused)
      }
      // A deploy that lost its lease (the database was out of reach for longer than it lasts) stops here.
      await lease.renew()
      // Recorded before the switch: a crash between the two is repaired by recover().
      await this.knex('deploys').insert(staged.map((s) => ({ id: s.id, daemon: s.daemon, release: s.release, status: 'pending', checked: s.check.checked, check_output: s.check.output, files: jsonText(s.files), manifest: releaseManifest(this.d.secrets, this.d.renderers().filter((r) => r.renderer.daemon === s.daemon), this.d.pluginVersion, snapshot, renderedFiles.get(s.id)!), ...base })))
      try {
        // The switch and the commit as one step of this node's disk: its agent never sees the one without the other.
        await this.d.agent.exclusive(() => this.activate(staged, renderedFiles, lease, o))
      } catch (e) {
        // Not activated: mark the rows failed and point `current` back, as a restart would.
        await this.recoverNow().catch((err: unknown) => this.d.log.error({ err: (err as Error).message }, 'could not undo a deploy that failed to activate; the next start repairs it'))
        await this.d.agent.syncAll().catch(() => undefined)
        throw e
      }
      await this.step()
      for (const s of staged) await this.reload(s.id, s.daemon, s.release)
      for (const s of staged) await this.prune(s.daemon)
      for (const s of staged) await this.purgeCleartext(s.daemon)
      await this.pruneOldLogs()
      for (const s of staged) this.activated(s.daemon)
      return Promise.all(staged.map(async (s) => (await this.get(s.id))!))
    })
  }

  /** Switch `current` to each staged release, then activate them in one transaction that also stores their files and tells every node. */
  private async activate(staged: StagedRelease[], renderedFiles: Map<string, RenderedFile[]>, lease: DeployLease, o: Ctx & { comment?: string | null; impact?: DeployImpactRecord | null }): Promise<void> {
    await this.step()
    for (const s of staged) {
      switchCurrent(s.dir, s.release)
      await this.step()
    }
    await this.knex.transaction(async (trx) => {
      // The fence: only the holder of the lease activates, and nobody can take it over until this commits.
      await lease.renew(trx)
      for (const s of staged) {
        await trx('deploys').where({ daemon: s.daemon, status: 'active' }).update({ status: 'superseded' })
        const n = await trx('deploys').where({ id: s.id, status: 'pending' }).update({ status: 'active', activated_at: trx.fn.now() })
        if (n !== 1) throw new Error(`deploy ${s.id} is no longer pending (was it marked failed by a node with the same NODE_ID?)`)
        await saveRelease(trx, this.d.secrets, s.id, renderedFiles.get(s.id)!)
        // Delivered at the commit, to every node listening (cluster/listen.ts).
        await trx.raw('select pg_notify(?, ?)', [RELEASE_CHANNEL, s.daemon])
        await this.d.audit.record(
          { action: 'deploy.activate', resourceType: 'deploy', resourceId: s.id, resourceName: `${s.daemon} ${s.release}`, after: { daemon: s.daemon, release: s.release, checked: s.check.checked, files: shownFileRecords(s.files), comment: o.comment ?? null, ...(o.impact ? { impact: o.impact } : {}) } },
          { actor: o.actor, requestId: o.requestId, trx },
        )
      }
    })
  }

  private requests: ReturnType<typeof deployRequests> | null = null

  request(daemon: string, comment: string): Promise<void> {
    this.requests ??= deployRequests((d, c) => this.deploy({ daemon: d, comment: c, actor: null }), this.d.log)
    return this.requests.request(daemon, comment)
  }

  onActivated(listener: (daemon: string) => void | Promise<void>): void {
    this.activatedListeners.push(listener)
  }

  /** Tells the listeners, without waiting for them: a deploy's answer never depends on what a plugin does next. */
  private activated(daemon: string): void {
    for (const l of this.activatedListeners) {
      Promise.resolve()
        .then(() => l(daemon))
        .catch((err: unknown) => this.d.log.error({ err: (err as Error).message, daemon }, 'a listener of deploy activation failed'))
    }
  }

  /** Make this node's daemon take the release it switched to, and record the result on the deploy and this node's state (reload.ts). */
  private async reload(id: string, daemon: string, release: string): Promise<void> {
    const r = await this.d.reloadDaemon(daemon).catch((e: unknown): ReloadResult => ({ status: 'failed', output: (e as Error).message }))
    this.d.agent.switchedByDeploy(daemon, { deployId: id, release, reload: r })
    await this.d.agent.record(daemon, { deploy_id: id, release, switched_at: new Date(), error: null, ...(r ? { reload_status: r.status, reload_output: r.output.slice(-4000), reloaded_at: new Date() } : {}) })
    await recordReload(this.knex, id, r)
  }

  async get(id: string): Promise<DeployView | null> {
    const row = await this.knex('deploys').where({ id }).first()
    return row ? toView(row) : null
  }

  /**
   * Make an earlier successful release active again, from any node: its files come from the database,
   * and every node's agent switches to it (rollback.ts).
   */
  rollback(id: string, ctx: Ctx & { comment?: string | null }): Promise<DeployView> {
    return this.clusterExclusive(async (lease) => {
      await this.recoverNow()
      const row = await rollbackTo({ knex: this.knex, secrets: this.d.secrets, audit: this.d.audit, agent: this.d.agent, renderers: this.d.renderers().map((r) => r.renderer), renderNow: (daemon) => this.renderAll(daemon) }, lease, id, ctx)
      if (row.changed) {
        await this.purgeCleartext(row.daemon)
        this.activated(row.daemon)
      }
      return (await this.get(id))!
    })
  }

  /** The renderers' log folders, as their options say now (the AAA log ingester tails these). */
  logFolders(): DaemonLogFolder[] {
    return this.d.renderers().flatMap(({ renderer: r }) => (r.folders?.() ?? []).filter((f) => f.logs).map((f) => ({ daemon: r.daemon, directory: f.directory })))
  }

  /** The files of the daemon's current release, read from disk (secrets masked unless `reveal`). */
  currentFiles(daemon: string, opts: { reveal?: boolean } = {}): Promise<DeployedConfig | null> {
    return deployedConfig(this.knex, this.d.dataDir, daemon, opts.reveal ?? false)
  }
}

export { sha256, modeString }
