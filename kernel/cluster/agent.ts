/**
 * The node agent: one per node, in the server process. It keeps every daemon's
 * `current` on this node at the release the cluster holds active (the deploys
 * row `active`), whichever node deployed or rolled it back: it learns of a new
 * one by PostgreSQL LISTEN/NOTIFY (listen.ts) and by polling (the embedded
 * engine, a lost connection), materializes it from the database, checks it on
 * this node, switches `current` and reloads the daemon (materialize.ts). It
 * records what it serves per daemon (node-state.ts) and beats the node's
 * `last_seen`.
 *
 * The database unreachable: the daemons keep serving the last good release,
 * untouched; the agent logs the outage once and catches up when it answers.
 */
import path from 'node:path'
import type { Knex } from 'knex'
import { releaseMasker, type ConfigRenderer, type Logger, type SecretsService } from '../../sdk/index.js'
import { currentRelease, readReleaseSecrets, releasesDir } from '../deploy/files.js'
import type { DeployRow } from '../deploy/model.js'
import { listenForReleases } from './listen.js'
import { isDatabaseOutage } from '../db/outage.js'
import { serveActive, type ServeContext, type ServeOutcome } from './materialize.js'
import { recordNodeDaemon, tail } from './node-state.js'

export interface ReloadResult {
  status: 'ok' | 'failed'
  output: string
}

/** What the agent did last for a daemon: the deploy it switched to and the daemon's reload. */
export interface LastSwitch {
  deployId: string
  release: string
  reload: ReloadResult | null
}

export interface NodeAgentDeps {
  knex: Knex
  secrets: SecretsService
  dataDir: string
  nodeId: string
  log: Logger
  /** PostgreSQL: listen for releases; null on the embedded engine (polling only). */
  databaseUrl: string | null
  /** The node may write its state (a primary; a replica's database is read-only). */
  writable: boolean
  renderers: () => ConfigRenderer[]
  allowUnchecked: () => Promise<boolean>
  /** Make the daemon take its new `current`: the supervisor's restart, or the reload command; null when nothing is configured. */
  reload: (daemon: string) => Promise<ReloadResult | null>
  /** This node's supervised process of a daemon, as stored with its state (null: not supervised). */
  processState?: (daemon: string) => unknown
  /**
   * After a sync that switched daemons: what the deploying node does too (its older release folders
   * beyond deploy.keep_releases, and those holding a cleartext credential the new one lacks, leave this disk).
   */
  afterSwitch?: (daemons: string[]) => Promise<void> | void
  /** The address this node's API listens on, recorded with its heartbeat. */
  address?: () => string | null
  checkTimeoutMs?: number
  pollMs?: number
  heartbeatMs?: number
}

const sleepSync = (ms: number) => {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

export class NodeAgent {
  private chain: Promise<unknown> = Promise.resolve()
  private readonly last = new Map<string, LastSwitch>()
  private readonly refused = new Map<string, string>()
  private timers: NodeJS.Timeout[] = []
  private listener: { stop(): Promise<void> } | null = null
  private listening = false
  private failing = false
  private stopped = false
  private kicked = false
  private lastProcess = new Map<string, string>()
  /** Tests only: a pause after each file the agent writes (kill -9 in the middle of a materialization). */
  private readonly delayMs = Number(process.env.PORTCULLIS_AGENT_TEST_DELAY_MS ?? 0) || 0
  /**
   * The files of the release a daemon serves are hashed again at most this often (a file altered on
   * disk is then written again from the database); a poll in between only reads the `current` link.
   * Tests shorten it (PORTCULLIS_AGENT_VERIFY_MS).
   */
  private readonly verifyEveryMs = Number(process.env.PORTCULLIS_AGENT_VERIFY_MS ?? 0) || 60_000
  private readonly verified = new Map<string, { deployId: string; at: number }>()

  constructor(private readonly d: NodeAgentDeps) {}

  /** One disk change at a time on this node: the agent's syncs, and the deploy's switch and commit (deploy/service.ts). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn)
    this.chain = next.catch(() => undefined)
    return next
  }

  private byDaemon(): Map<string, ConfigRenderer[]> {
    const m = new Map<string, ConfigRenderer[]>()
    for (const r of this.d.renderers()) m.set(r.daemon, [...(m.get(r.daemon) ?? []), r])
    return m
  }

  /** Serve the cluster's active release of every daemon this node renders for. */
  syncAll(): Promise<void> {
    return this.exclusive(async () => {
      const groups = this.byDaemon()
      if (!groups.size) return
      const active = await this.d.knex('deploys').where({ status: 'active' }).whereIn('daemon', [...groups.keys()])
      // The daemons side by side: each one's write, check and reload is its own (folders, process), and
      // one daemon's check no longer waits for another's.
      const switched = await Promise.all(active.map((row) => this.serve(groups.get(row.daemon)!, row)))
      await this.housekeeping(active.filter((_, i) => switched[i]).map((r) => r.daemon))
    })
  }

  /** Serve the active release of one daemon now; what the agent last switched it to (and the reload's result). */
  syncDaemon(daemon: string): Promise<LastSwitch | null> {
    return this.exclusive(async () => {
      const renderers = this.byDaemon().get(daemon)
      const row = await this.d.knex('deploys').where({ daemon, status: 'active' }).first()
      if (renderers && row && (await this.serve(renderers, row))) await this.housekeeping([daemon])
      return this.last.get(daemon) ?? null
    })
  }

  /** Why this node keeps an older release of a daemon than the cluster's active one, if it does. */
  refusal(daemon: string): string | null {
    return this.refused.get(daemon) ?? null
  }

  /** Tell the agent that the deploy running on this node switched `current` itself (before its commit). */
  switchedByDeploy(daemon: string, s: LastSwitch): void {
    this.last.set(daemon, s)
    this.refused.delete(daemon)
    this.verified.set(daemon, { deployId: s.deployId, at: Date.now() })
  }

  private context(allowUnchecked: boolean): ServeContext {
    return { knex: this.d.knex, secrets: this.d.secrets, dataDir: this.d.dataDir, nodeId: this.d.nodeId, log: this.d.log, allowUnchecked, checkTimeoutMs: this.d.checkTimeoutMs, pause: this.delayMs ? () => sleepSync(this.delayMs) : undefined }
  }

  /** After the switches of a sync, off their critical path. */
  private async housekeeping(daemons: string[]): Promise<void> {
    if (!daemons.length) return
    try {
      await this.d.afterSwitch?.(daemons)
    } catch (e) {
      this.d.log.warn({ daemons, err: (e as Error).message }, 'housekeeping after the switch failed')
    }
  }

  /** Serve the active release of one daemon; true when `current` was switched. */
  private async serve(renderers: ConfigRenderer[], row: DeployRow): Promise<boolean> {
    const daemon = row.daemon
    const seen = this.verified.get(daemon)
    if (seen?.deployId === row.id && Date.now() - seen.at < this.verifyEveryMs && currentRelease(releasesDir(this.d.dataDir, daemon)) === row.release) return false
    let out: ServeOutcome
    try {
      out = await serveActive(this.context(await this.d.allowUnchecked()), renderers, row)
    } catch (e) {
      out = { kind: 'refused', release: row.release, error: (e as Error).message, check: null }
    }
    const now = new Date()
    // What the state row shows (cluster.read) is masked by the secret values the release was rendered with.
    const mask = releaseMasker(readReleaseSecrets(path.join(releasesDir(this.d.dataDir, daemon), row.release)) ?? [])
    if (out.kind !== 'refused') this.verified.set(daemon, { deployId: row.id, at: Date.now() })
    else this.verified.delete(daemon)
    if (out.kind === 'unchanged') {
      if (this.refused.delete(daemon) || !this.last.has(daemon)) {
        this.last.set(daemon, this.last.get(daemon) ?? { deployId: row.id, release: row.release, reload: null })
        await this.record(daemon, { deploy_id: row.id, release: row.release, error: null })
      }
      return false
    }
    const checked = out.check ? { check_ok: out.check.ok, check_output: tail(mask(out.check.output)), checked_at: now } : {}
    if (out.kind === 'refused') {
      if (this.refused.get(daemon) !== out.error) this.d.log.error({ daemon, release: out.release, err: out.error }, 'this node keeps serving its previous release')
      this.refused.set(daemon, out.error)
      await this.record(daemon, { ...checked, error: tail(mask(out.error)) })
      return false
    }
    this.refused.delete(daemon)
    this.d.log.info({ daemon, release: out.release, fetched: out.fetched }, 'serving the cluster\'s active release')
    await this.record(daemon, { deploy_id: row.id, release: row.release, switched_at: now, error: null, ...checked })
    const reload = await this.d.reload(daemon).catch((e: unknown): ReloadResult => ({ status: 'failed', output: (e as Error).message }))
    this.last.set(daemon, { deployId: row.id, release: row.release, reload })
    if (reload) await this.record(daemon, { reload_status: reload.status, reload_output: tail(mask(reload.output)), reloaded_at: new Date() })
    return true
  }

  /** This node's state row of a daemon; failures to write it are only logged (the database may be away). */
  async record(daemon: string, fields: Parameters<typeof recordNodeDaemon>[3]): Promise<void> {
    if (!this.d.writable) return
    await recordNodeDaemon(this.d.knex, this.d.nodeId, daemon, fields).catch((e: unknown) => this.d.log.warn({ daemon, err: (e as Error).message }, 'could not record this node\'s daemon state'))
  }

  /** Start listening and polling; the first sync runs now. */
  start(): void {
    this.stopped = false
    if (this.d.databaseUrl) {
      this.listener = listenForReleases(this.d.databaseUrl, () => this.kick(), this.d.log)
      this.listening = true
    }
    const poll = () => {
      if (this.stopped) return
      // With notifications, polling is only the safety net; without, it is how releases arrive.
      const every = this.d.pollMs ?? (this.listening ? 5_000 : 1_000)
      const t = setTimeout(() => void this.tick().finally(poll), every)
      t.unref()
      this.timers[0] = t
    }
    const beat = () => {
      if (this.stopped) return
      const t = setTimeout(() => void this.heartbeat().finally(beat), this.d.heartbeatMs ?? 5_000)
      t.unref()
      this.timers[1] = t
    }
    void this.tick().finally(poll)
    void this.heartbeat().finally(beat)
  }

  /** A notification: sync once more, soon (several at once make one sync). */
  kick(): void {
    if (this.kicked || this.stopped) return
    this.kicked = true
    setImmediate(() => {
      this.kicked = false
      void this.tick()
    })
  }

  private async tick(): Promise<void> {
    try {
      await this.syncAll()
      if (this.failing) this.d.log.info('the database answers again: the agent caught up')
      this.failing = false
    } catch (e) {
      // A database outage is the kernel's to report (db/outage.ts, once per outage); the agent only adds what it means for the daemons.
      if (!this.failing) {
        const fields = { err: (e as Error).message }
        const msg = 'the node agent cannot read the active releases: the daemons keep serving what they have'
        if (isDatabaseOutage(e)) this.d.log.info(fields, msg)
        else this.d.log.error(fields, msg)
      }
      this.failing = true
    }
  }

  /** last_seen and address of this node, and the supervised processes' state when it changed. */
  async heartbeat(): Promise<void> {
    if (!this.d.writable) return
    try {
      await this.d.knex('cluster_nodes').where({ node_id: this.d.nodeId }).update({ last_seen: this.d.knex.fn.now(), address: this.d.address?.() ?? null })
      for (const daemon of this.byDaemon().keys()) {
        const p = this.d.processState?.(daemon) ?? null
        const text = JSON.stringify(p)
        if (this.lastProcess.get(daemon) === text) continue
        await recordNodeDaemon(this.d.knex, this.d.nodeId, daemon, { process: p })
        this.lastProcess.set(daemon, text)
      }
    } catch {
      // The outage is logged by tick(); the next beat tries again.
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    for (const t of this.timers) clearTimeout(t)
    await this.listener?.stop()
    this.listener = null
    this.listening = false
    await this.exclusive(async () => undefined)
  }
}
