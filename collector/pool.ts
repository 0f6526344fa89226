/**
 * The collector's work loop: long-poll the core for jobs, run each in an SSH session (at most
 * min(--concurrency, the core's max_concurrency) at once), and upload each result, gzipped, retrying
 * until the job's lease ends. The credential of a job is opened just before its session, with the
 * additional data rebuilt from the very fields the session uses, so a job re-pointed at another host
 * does not open and no SSH is made. On a contract mismatch nothing is fetched: the collector logs the
 * core's version and asks again every minute.
 */
import type { KeyObject } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { gzipSync } from 'node:zlib'
import type { Logger } from 'pino'
import { credentialAad, openCredential, type CollectorJob, type DeviceCredential, type FetchResult } from '../sdk/collector-protocol.js'
import { CoreRefusal, type CoreClient } from './core-client.js'
import { fetchConfig, type SessionOutcome, type SessionTarget } from './ssh/session.js'

export type PoolState = 'starting' | 'polling' | 'contract_mismatch' | 'revoked' | 'unreachable' | 'stopped'

export interface PoolOptions {
  client: CoreClient
  collectorId: string
  openKey: KeyObject
  concurrency: number
  log: Logger
  /** The long poll's wait (seconds, ≤ 25). */
  waitSeconds?: number
  /** How often a refused collector (contract mismatch, revoked) asks again. */
  refusedPollMs?: number
  fetch?: (t: SessionTarget) => Promise<SessionOutcome>
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done)
  })

export function targetOf(job: CollectorJob, credential: DeviceCredential, signal?: AbortSignal): SessionTarget {
  return {
    host: job.host,
    port: job.port,
    profile: job.profile,
    credential,
    hostKeySha256: job.host_key_sha256,
    connectTimeoutMs: job.connect_timeout_ms,
    deadlineMs: job.deadline_ms,
    maxBytes: job.max_bytes,
    ...(signal ? { signal } : {}),
  }
}

/** The SSH engine alone: sessions to every target, `concurrency` at a time (the fetch bench's bound). */
export async function fetchAll(targets: SessionTarget[], concurrency: number, fetch = fetchConfig): Promise<SessionOutcome[]> {
  const out: SessionOutcome[] = new Array(targets.length)
  let next = 0
  const worker = async () => {
    while (next < targets.length) {
      const i = next++
      out[i] = await fetch(targets[i])
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, targets.length)) }, worker))
  return out
}

export class JobPool {
  state: PoolState = 'starting'
  readonly counts = { fetched: 0, uploaded: 0, dropped: 0 }
  /** SSH sessions (and the opening of their credentials): at most the concurrency. */
  private readonly active = new Set<Promise<void>>()
  /** Results on their way to the core. */
  private readonly uploads = new Set<Promise<void>>()
  /** Jobs taken ahead, waiting for a slot. */
  private readonly queue: CollectorJob[] = []
  private stopping = false
  private killed = false
  private readonly pollAbort = new AbortController()
  private readonly killAbort = new AbortController()
  private maxConcurrency: number

  constructor(private readonly o: PoolOptions) {
    this.maxConcurrency = o.concurrency
    // Every session and every upload's pause listens on these: more than Node's default of 10.
    setMaxListeners(0, this.killAbort.signal, this.pollAbort.signal)
  }

  get running(): number {
    return this.active.size
  }

  /** Polls and works until stop(). */
  async run(): Promise<void> {
    const log = this.o.log
    let backoff = 1000
    while (!this.stopping) {
      const limit = this.limit()
      // Up to a round of jobs is taken ahead: a slot that frees starts its next session at once instead
      // of waiting a round trip to the core (a job waits here about a session's length, its lease is
      // minutes), and each poll asks for a batch, not for the one slot that just freed.
      const want = 2 * limit - this.active.size - this.queue.length
      if (want < Math.ceil(limit / 4) && this.active.size > 0) {
        await Promise.race([...this.active])
        continue
      }
      try {
        // The first poll answers at once: the core's version and the contract are known (and logged) from the start.
        const wait = this.state === 'starting' ? 0 : (this.o.waitSeconds ?? 25)
        const asked = Date.now()
        const answer = await this.o.client.jobs(wait, Math.min(64, want), this.pollAbort.signal)
        if (this.state === 'contract_mismatch' || this.state === 'revoked') log.info({ core_version: this.o.client.coreVersion }, 'the core accepts this collector again')
        if (this.state !== 'polling') {
          const skew = this.o.client.clockSkewSeconds
          log.info({ core_version: this.o.client.coreVersion, clock_skew_s: skew }, 'polling the core for jobs')
          // The core refuses signatures more than 60 s off: say so before it happens.
          if (skew !== null && Math.abs(skew) > 30) log.warn({ clock_skew_s: skew }, 'this host\'s clock is far from the core\'s: keep NTP running')
        }
        this.state = 'polling'
        backoff = 1000
        if (Number.isInteger(answer.max_concurrency) && answer.max_concurrency > 0) this.maxConcurrency = answer.max_concurrency
        this.queue.push(...answer.jobs)
        this.pump()
        // An empty answer long before the wait was up (a core that does not hold the poll): pause as it says, not a busy loop.
        if (answer.jobs.length === 0 && wait > 0 && Date.now() - asked < (wait * 1000) / 2) await sleep(Math.min(60, Math.max(1, answer.poll_seconds || 5)) * 1000, this.pollAbort.signal)
      } catch (err) {
        if (this.stopping) break
        const code = err instanceof CoreRefusal ? err.code : null
        if (code === 'NCM_CONTRACT_MISMATCH' || code === 'NCM_COLLECTOR_REVOKED') {
          const state = code === 'NCM_CONTRACT_MISMATCH' ? 'contract_mismatch' : 'revoked'
          if (this.state !== state) {
            log.error(
              { code, core_version: (err as CoreRefusal).coreVersion },
              state === 'contract_mismatch'
                ? 'the core refuses this collector\'s contract: no device is fetched until the collector runs the core\'s release'
                : 'the core says this collector was revoked or removed: enroll it again with a new token',
            )
          }
          this.state = state
          await sleep(this.o.refusedPollMs ?? 60_000, this.pollAbort.signal)
          continue
        }
        if (this.state !== 'unreachable') log.warn({ err: (err as Error).message }, 'the core cannot be asked for jobs; trying again')
        this.state = 'unreachable'
        await sleep(backoff, this.pollAbort.signal)
        backoff = Math.min(backoff * 2, 60_000)
      }
    }
    this.state = 'stopped'
  }

  /**
   * Stops polling at once; jobs already running get `drainMs` to finish and upload. Past that their
   * sessions are cut and nothing more is uploaded: their leases expire and the core hands them out again.
   */
  async stop(drainMs = 10_000): Promise<void> {
    this.stopping = true
    this.pollAbort.abort()
    if (this.queue.length > 0) this.o.log.info({ jobs: this.queue.length }, 'jobs taken ahead and not started: left to their leases')
    this.queue.length = 0
    const drained = new AbortController()
    const all = async () => {
      // Sessions first: each one ends with its upload joining the others.
      await Promise.allSettled([...this.active])
      await Promise.allSettled([...this.uploads])
    }
    await Promise.race([all(), sleep(drainMs, drained.signal)])
    // The drain's timer must not keep the process alive once the jobs are done.
    drained.abort()
    if (this.active.size + this.uploads.size > 0) {
      this.o.log.warn({ running: this.active.size, uploading: this.uploads.size }, 'jobs still running after the drain: cut')
      this.killed = true
      this.killAbort.abort()
      await all()
    }
  }

  private limit(): number {
    return Math.max(1, Math.min(this.o.concurrency, this.maxConcurrency))
  }

  /** Starts queued jobs while there are free slots (not once stopping: those leases run out and the core hands the jobs out again). */
  private pump(): void {
    while (!this.stopping && this.active.size < this.limit() && this.queue.length > 0) this.start(this.queue.shift()!)
  }

  private start(job: CollectorJob): void {
    const task = this.work(job)
      .catch((err: unknown) => this.o.log.error({ err, job_id: job.job_id }, 'job failed unexpectedly'))
      .finally(() => {
        this.active.delete(task)
        this.pump()
      })
    this.active.add(task)
  }

  private async work(job: CollectorJob): Promise<void> {
    const log = this.o.log
    let credential: DeviceCredential | null = null
    const startedAt = new Date().toISOString()
    try {
      credential = openCredential(job.credential, this.o.openKey, credentialAad(this.o.collectorId, job))
    } catch {
      log.error({ job_id: job.job_id, device: job.device_name, host: job.host }, 'the credential does not open for this job (sealed for another collector, device, host or port): no SSH made')
    }
    let result: FetchResult
    if (credential) {
      const o = await (this.o.fetch ?? fetchConfig)(targetOf(job, credential, this.killAbort.signal))
      credential = null
      result = { job_id: job.job_id, status: o.status, started_at: o.started_at, finished_at: o.finished_at, host_key_sha256: o.hostKeySha256, ...(o.output !== undefined ? { output: o.output } : {}), ...(o.detail ? { detail: o.detail } : {}) }
    } else {
      result = { job_id: job.job_id, status: 'protocol_error', started_at: startedAt, finished_at: new Date().toISOString(), host_key_sha256: null, detail: 'the credential envelope does not open for this job' }
    }
    this.counts.fetched++
    if (this.killed) return
    // The slot is for SSH: it is freed once the session ended, while the upload goes on beside the
    // next session. At most one upload per slot waits, so a slow core slows the sessions down.
    while (this.uploads.size >= this.o.concurrency) await Promise.race([...this.uploads])
    const upload = this.upload(job, result)
      .catch((err: unknown) => this.o.log.error({ err, job_id: job.job_id }, 'upload failed unexpectedly'))
      .finally(() => this.uploads.delete(upload))
    this.uploads.add(upload)
  }

  private async upload(job: CollectorJob, result: FetchResult): Promise<void> {
    const log = this.o.log
    const body = gzipSync(JSON.stringify(result))
    const skewMs = (this.o.client.clockSkewSeconds ?? 0) * 1000
    const leaseEnd = Date.parse(job.lease_expires_at) - skewMs
    let delay = 1000
    for (;;) {
      try {
        const a = await this.o.client.result(body, this.killAbort.signal)
        this.counts.uploaded++
        log.info({ device: job.device_name, status: result.status, outcome: a.outcome, ...(result.detail ? { detail: result.detail } : {}) }, 'result uploaded')
        return
      } catch (err) {
        if (this.killed) return
        if (err instanceof CoreRefusal && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 429) {
          // The core decided (an unknown job, a configuration too large, a contract refused): no retry changes that.
          this.counts.dropped++
          const msg = err.code === 'NCM_JOB_UNKNOWN' ? 'the core no longer knows this job (its lease ended): result dropped' : 'the core refused the result'
          log.warn({ device: job.device_name, code: err.code, status: err.status }, msg)
          return
        }
        if (Date.now() + delay > leaseEnd) {
          this.counts.dropped++
          log.warn({ device: job.device_name, err: (err as Error).message }, 'the lease ended before the result could be uploaded: dropped')
          return
        }
        await sleep(delay, this.killAbort.signal)
        delay = Math.min(delay * 2, 30_000)
      }
    }
  }
}
