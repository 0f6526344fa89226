/**
 * Handing out jobs (design31 §2 "Jobs"): the due, unleased devices of one collector, locked with
 * SKIP LOCKED so two polls (or two nodes) never hand out one device twice, each leased until
 * fetch timeout + 60 s with a fresh job id and its credential sealed to the collector's X25519 key
 * for that job alone. Short transactions only: the long poll waits outside them (PGlite has one
 * connection).
 */
import { randomUUID } from 'node:crypto'
import { credentialAad, publicKeyFromRaw, sealCredential, type CollectorJob } from '../../../sdk/collector-protocol.js'
import { ncmConnectTimeout, ncmFetchTimeout, ncmMaxConfigBytes } from '../settings.js'
import type { CollectorRow, NcmDeviceRow } from '../tables.js'
import type { NcmContext } from './context.js'
import { getCredential, openCredential } from './credentials.js'
import { collectorProfile, getProfile } from './profiles/store.js'
import { hostOf } from './reconcile.js'

/** The lease outlives the fetch timeout by this much: upload time. */
const LEASE_SLACK_MS = 60_000

export async function leaseJobs(c: NcmContext, collector: CollectorRow, slots: number): Promise<CollectorJob[]> {
  const knex = c.database.knex
  return knex.transaction(async (trx) => {
    const due = (await trx('ncm_devices as d')
      .join('ncm_schedules as s', 's.id', 'd.schedule_id')
      .where('d.collector_id', collector.id)
      .where('d.enabled', true)
      .where('s.enabled', true)
      .where('d.next_due_at', '<=', trx.fn.now())
      .where((w) => w.whereNull('d.lease_expires_at').orWhere('d.lease_expires_at', '<', trx.fn.now()))
      .orderBy('d.next_due_at')
      .limit(slots)
      .forUpdate('d')
      .skipLocked()
      .select('d.*', 's.credential_id as s_credential_id', 's.profile_id as s_profile_id', 's.interval_minutes as s_interval')) as (NcmDeviceRow & { s_credential_id: string; s_profile_id: string; s_interval: number })[]
    if (!due.length) return []
    const [fetchTimeout, connectTimeout, maxBytes] = [await c.settings.get(ncmFetchTimeout, trx), await c.settings.get(ncmConnectTimeout, trx), await c.settings.get(ncmMaxConfigBytes, trx)]
    const x25519 = publicKeyFromRaw('x25519', collector.x25519_public_key!)
    const jobs: CollectorJob[] = []
    for (const d of due) {
      // A lease that ended without a result: its fetch is written off.
      if (d.lease_job_id) await trx('ncm_fetches').where({ id: d.lease_job_id, status: 'leased' }).update({ status: 'expired', error_code: 'lease_expired' })
      const device = await c.inventory.getDevice(d.device_id, trx)
      const host = device ? hostOf(device.address, d.host) : null
      const profile = await getProfile(trx, d.profile_id ?? d.s_profile_id)
      const credential = await getCredential(trx, d.credential_id ?? d.s_credential_id)
      const problem = !device ? 'device_missing' : !host ? 'no_host' : !profile ? 'profile_missing' : !credential ? 'credential_missing' : null
      if (problem || !device || !host || !profile || !credential) {
        // Nothing to hand out: the status says why, and the device is looked at again an interval later.
        await trx('ncm_devices')
          .where({ device_id: d.device_id })
          .update({ last_status: problem, last_error: null, next_due_at: new Date(Date.now() + d.s_interval * 60_000), lease_job_id: null, lease_collector_id: null, lease_expires_at: null, updated_at: new Date() })
        continue
      }
      const jobId = randomUUID()
      const expires = new Date(Date.now() + fetchTimeout * 1000 + LEASE_SLACK_MS)
      const base = { job_id: jobId, device_id: d.device_id, host, port: d.port, lease_expires_at: expires.toISOString() }
      jobs.push({
        ...base,
        device_name: device.name,
        profile: collectorProfile(profile),
        credential: sealCredential(await openCredential(c.secrets, credential), x25519, credentialAad(collector.id, base)),
        host_key_sha256: d.host_key_sha256,
        connect_timeout_ms: connectTimeout * 1000,
        deadline_ms: fetchTimeout * 1000,
        max_bytes: maxBytes,
      })
      await trx('ncm_devices')
        .where({ device_id: d.device_id })
        .update({ lease_job_id: jobId, lease_collector_id: collector.id, lease_expires_at: expires })
      await trx('ncm_fetches').insert({ id: jobId, device_id: d.device_id, collector_id: collector.id })
    }
    return jobs
  })
}


/** Jobs leased for a poll whose collector went away before the answer: back to the pool, as if never handed out. */
export async function releaseJobs(c: NcmContext, jobIds: readonly string[]): Promise<void> {
  if (!jobIds.length) return
  await c.database.knex.transaction(async (trx) => {
    await trx('ncm_devices').whereIn('lease_job_id', [...jobIds]).update({ lease_job_id: null, lease_collector_id: null, lease_expires_at: null })
    await trx('ncm_fetches').whereIn('id', [...jobIds]).where({ status: 'leased' }).delete()
  })
}
