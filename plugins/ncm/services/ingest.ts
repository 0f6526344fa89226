/**
 * A collector's result (design31 §6), in one transaction: the device row locked and the lease
 * checked (a job not leased to this collector, or whose lease ended, stores nothing); then a failure
 * is recorded, or the text is stripped and hashed, and stored once per device: the same hash as the
 * latest version only bumps its "last seen"; a hash the device had before is a new version on the
 * old blob (a revert); anything else is a new blob, masked for readers and sealed raw. The version
 * hooks run in the transaction, their callbacks after the commit, in the background (the upload's
 * answer does not wait for a mail). Idempotent by job id.
 */
import { createHash, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { Knex } from 'knex'
import type { FetchResult, ResultAnswer } from '../../../sdk/collector-protocol.js'
import { NcmErrors } from '../errors.js'
import { ncmMaxConfigBytes } from '../settings.js'
import type { CollectorRow, NcmDeviceRow } from '../tables.js'
import type { NcmContext } from './context.js'
import type { AfterCommit } from './hooks.js'
import { getCredential, openCredential } from './credentials.js'
import { lineChanges, maskConfig, normalizeConfig } from './mask.js'
import { getProfile } from './profiles/store.js'

export const CONFIG_PURPOSE = 'ncm.config'
const FAILURE_BACKOFF_MS = 5 * 60_000

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

/** The next fetch: an interval after this one; after failures, sooner: 5 min × 2^(n-1), never later than the interval. */
export function nextDue(finished: Date, intervalMinutes: number, failures: number): Date {
  const interval = intervalMinutes * 60_000
  const wait = failures > 0 ? Math.min(interval, FAILURE_BACKOFF_MS * 2 ** Math.min(failures - 1, 20)) : interval
  return new Date(finished.getTime() + wait)
}

interface Locked {
  device: NcmDeviceRow
  interval: number
}

export class Ingest {
  constructor(private readonly c: NcmContext) {}

  /** The job's device, locked, when the job is leased to this collector now; else 409 NCM_JOB_UNKNOWN (or the recorded answer of a retried upload). */
  private async lock(trx: Knex.Transaction, collector: CollectorRow, jobId: string): Promise<Locked | ResultAnswer> {
    const fetch = await trx('ncm_fetches').where({ id: jobId }).first()
    if (!fetch || fetch.collector_id !== collector.id) throw NcmErrors.jobUnknown()
    const device = await trx('ncm_devices').where({ device_id: fetch.device_id }).forUpdate().first()
    if (fetch.outcome !== null) return { outcome: fetch.outcome, version_id: fetch.version_id }
    if (!device || device.lease_job_id !== jobId || device.lease_collector_id !== collector.id || !device.lease_expires_at || new Date(device.lease_expires_at).getTime() < Date.now()) {
      throw NcmErrors.jobUnknown()
    }
    const schedule = device.schedule_id ? await trx('ncm_schedules').where({ id: device.schedule_id }).first('interval_minutes') : undefined
    return { device, interval: schedule?.interval_minutes ?? 1440 }
  }

  /** A result whose output was too large to unpack or store: recorded as too_large, nothing else kept. */
  async tooLarge(collector: CollectorRow, jobId: string, bytes: number | null): Promise<void> {
    await this.c.database.knex.transaction(async (trx) => {
      const locked = await this.lock(trx, collector, jobId).catch(() => null)
      if (!locked || !('device' in locked)) return
      const now = new Date()
      await this.fail(trx, locked, jobId, { status: 'too_large', started: now, finished: now, detail: null, bytes })
    })
  }

  async result(collector: CollectorRow, r: FetchResult): Promise<ResultAnswer> {
    const after: AfterCommit[] = []
    let stored = null as { deviceId: string; versionId: string } | null
    const answer = await this.c.database.knex.transaction(async (trx) => {
      const locked = await this.lock(trx, collector, r.job_id)
      if (!('device' in locked)) return locked
      const started = new Date(r.started_at)
      const finished = new Date(r.finished_at)
      const detail = r.detail ? r.detail.replace(/[^\x20-\x7e]/g, '?').slice(0, 500) : null
      if (r.status !== 'ok') return this.fail(trx, locked, r.job_id, { status: r.status, started, finished, detail, bytes: null })
      const pin = locked.device.host_key_sha256
      if (pin !== null && r.host_key_sha256 !== pin) {
        return this.fail(trx, locked, r.job_id, { status: 'host_key_mismatch', started, finished, detail: 'host key differs from the pinned one', bytes: null })
      }
      const output = r.output ?? ''
      const maxBytes = await this.c.settings.get(ncmMaxConfigBytes, trx)
      const bytes = Buffer.byteLength(output, 'utf8')
      if (bytes > maxBytes) {
        await this.fail(trx, locked, r.job_id, { status: 'too_large', started, finished, detail: null, bytes })
        return null
      }
      const a = await this.store(trx, collector, locked, r.job_id, { started, finished, output, bytes, hostKey: r.host_key_sha256 }, after)
      stored = { deviceId: locked.device.device_id, versionId: a.version_id ?? '' }
      return a
    })
    if (answer === null) throw NcmErrors.configTooLarge({ vars: { max: await this.c.settings.get(ncmMaxConfigBytes) } })
    if (stored) this.c.hooks.afterCommit(after, stored, this.c.logger)
    return answer
  }

  private async fail(trx: Knex.Transaction, l: Locked, jobId: string, f: { status: FetchResult['status']; started: Date; finished: Date; detail: string | null; bytes: number | null }): Promise<ResultAnswer> {
    const failures = l.device.consecutive_failures + 1
    await trx('ncm_fetches')
      .where({ id: jobId })
      .update({ status: f.status, started_at: f.started, finished_at: f.finished, received_at: new Date(), detail: f.detail, error_code: f.status, bytes: f.bytes, outcome: 'recorded' })
    await trx('ncm_devices')
      .where({ device_id: l.device.device_id })
      .update({
        last_fetch_at: f.finished,
        last_status: f.status,
        last_error: f.detail,
        consecutive_failures: failures,
        next_due_at: nextDue(new Date(), l.interval, failures),
        lease_job_id: null,
        lease_collector_id: null,
        lease_expires_at: null,
        updated_at: new Date(),
      })
    return { outcome: 'recorded', version_id: null }
  }

  private async store(
    trx: Knex.Transaction,
    collector: CollectorRow,
    l: Locked,
    jobId: string,
    f: { started: Date; finished: Date; output: string; bytes: number; hostKey: string | null },
    after: AfterCommit[],
  ): Promise<ResultAnswer> {
    const d = l.device
    const schedule = d.schedule_id ? await trx('ncm_schedules').where({ id: d.schedule_id }).first() : undefined
    const profile = await getProfile(trx, d.profile_id ?? schedule?.profile_id ?? '')
    const raw = normalizeConfig(f.output, profile?.strip_lines ?? [])
    const rawSha = sha256(raw)
    const latest = d.latest_version_id ? await trx('ncm_versions').where({ id: d.latest_version_id }).first() : undefined
    let outcome: ResultAnswer['outcome']
    let versionId: string
    if (latest && latest.raw_sha256 === rawSha) {
      outcome = 'unchanged'
      versionId = latest.id
      await trx('ncm_versions')
        .where({ id: latest.id })
        .update({ last_seen_started_at: f.started, last_seen_at: f.finished, seen_count: trx.raw('seen_count + 1') })
    } else {
      outcome = 'new_version'
      versionId = randomUUID()
      let blob = await trx('ncm_blobs').where({ device_id: d.device_id, raw_sha256: rawSha }).first('masked', 'masked_sha256')
      if (!blob) {
        const credentialId = d.credential_id ?? schedule?.credential_id
        const credential = credentialId ? await getCredential(trx, credentialId) : null
        const clear = credential ? await openCredential(this.c.secrets, credential) : null
        const deviceSecrets = await this.c.inventory.deviceSecrets(d.device_id, trx)
        const values = [clear?.password, clear?.enable_secret, clear?.passphrase, deviceSecrets.tacacs_key, deviceSecrets.radius_secret].filter((v): v is string => typeof v === 'string' && v !== '')
        const masked = maskConfig(raw, profile?.secret_lines ?? [], values)
        blob = { masked, masked_sha256: sha256(masked) }
        await trx('ncm_blobs').insert({
          device_id: d.device_id,
          raw_sha256: rawSha,
          masked,
          masked_sha256: blob.masked_sha256,
          sealed: this.c.secrets.encrypt(CONFIG_PURPOSE, gzipSync(Buffer.from(raw, 'utf8')).toString('base64')),
          bytes: Buffer.byteLength(raw, 'utf8'),
          lines: raw === '' ? 0 : raw.split('\n').length - 1,
        })
      }
      const previousBlob = latest ? await trx('ncm_blobs').where({ device_id: d.device_id, raw_sha256: latest.raw_sha256 }).first('masked', 'masked_sha256') : undefined
      const changes = lineChanges(previousBlob?.masked ?? null, blob.masked)
      await trx('ncm_versions').insert({
        id: versionId,
        device_id: d.device_id,
        raw_sha256: rawSha,
        previous_id: latest?.id ?? null,
        collector_id: collector.id,
        first_started_at: f.started,
        first_finished_at: f.finished,
        fetch_ms: Math.max(0, Math.min(2_147_483_647, f.finished.getTime() - f.started.getTime())),
        last_seen_started_at: f.started,
        last_seen_at: f.finished,
        added: changes.added,
        removed: changes.removed,
        // The raw text changed, what readers see did not: only a secret changed.
        secrets_only: previousBlob !== undefined && previousBlob.masked_sha256 === blob.masked_sha256,
      })
      after.push(
        ...(await this.c.hooks.run(trx, {
          deviceId: d.device_id,
          versionId,
          previousVersionId: latest?.id ?? null,
          raw,
          masked: blob.masked,
          collectorId: collector.id,
          firstFinishedAt: f.finished,
        })),
      )
    }
    await trx('ncm_fetches')
      .where({ id: jobId })
      .update({ status: 'ok', started_at: f.started, finished_at: f.finished, received_at: new Date(), bytes: f.bytes, outcome, version_id: versionId })
    await trx('ncm_devices')
      .where({ device_id: d.device_id })
      .update({
        // The first key seen is pinned.
        host_key_sha256: d.host_key_sha256 ?? f.hostKey,
        last_fetch_at: f.finished,
        last_status: 'ok',
        last_error: null,
        consecutive_failures: 0,
        latest_version_id: versionId,
        next_due_at: nextDue(new Date(), l.interval, 0),
        lease_job_id: null,
        lease_collector_id: null,
        lease_expires_at: null,
        updated_at: new Date(),
      })
    return { outcome, version_id: versionId }
  }
}
