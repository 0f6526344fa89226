/**
 * The collector API (design31 §2): every route PUBLIC, because the credential is the request's own
 * signature (services/collector-gate.ts), checked before anything else is read or stored.
 */
import { createGunzip, gunzipSync } from 'node:zlib'
import { CommonErrors, defineRoute, ErrorBody, phrase, PUBLIC, reply, type RouteDefinition } from '../../../sdk/index.js'
import { publicKeyFromRaw, type FetchResult } from '../../../sdk/collector-protocol.js'
import { NcmErrors } from '../errors.js'
import { EnrollAnswer, EnrollBody, FETCH_STATUSES, JobsAnswer, JobsQuery, ResultAnswer, StatusAnswer } from '../schemas/collector-api.js'
import type { CollectorGate } from '../services/collector-gate.js'
import type { NcmContext } from '../services/context.js'
import { spendToken, tokenCollector } from '../services/enrollment.js'
import type { Ingest } from '../services/ingest.js'
import { leaseJobs, releaseJobs } from '../services/leases.js'
import type { Reconciler } from '../services/reconcile.js'
import { ncmMaxConfigBytes } from '../settings.js'

const MiB = 1024 * 1024
/** What an unsigned caller can make a node buffer for one upload, compressed. */
export const RESULT_MAX_COMPRESSED = 6 * MiB
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const POLL_SECONDS = 5
const SIGNED = 'Signed as docs/ncm.md "The collector protocol" says (RFC 9421 over method, path, query, Content-Digest, Portcullis-Contract and Portcullis-Release). Refusals, in order: 401 NCM_SIGNATURE_INVALID / NCM_SIGNATURE_STALE / NCM_REPLAYED (without X-Service-Core-Version), then, with it, 401 NCM_COLLECTOR_REVOKED and 409 NCM_CONTRACT_MISMATCH.'

const objectOf = (raw: Buffer | null): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse((raw ?? Buffer.alloc(0)).toString('utf8'))
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** The first bytes of a gzip stream that inflates too far: enough to name the job. */
async function gzipHead(buf: Buffer, n: number): Promise<string> {
  return new Promise((resolve) => {
    const z = createGunzip()
    const parts: Buffer[] = []
    let got = 0
    const done = () => {
      z.destroy()
      resolve(Buffer.concat(parts).subarray(0, n).toString('utf8'))
    }
    z.on('data', (d: Buffer) => {
      parts.push(d)
      got += d.length
      if (got >= n) done()
    })
    z.on('error', done)
    z.on('end', done)
    z.end(buf)
  })
}

const isoDate = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v))

/** The FetchResult in the body, or 422 NCM_RESULT_INVALID at the field that is wrong. */
function fetchResultOf(o: Record<string, unknown> | null): FetchResult {
  const bad = (field: string) => NcmErrors.resultInvalid({ field, vars: { reason: phrase('ncm:reason.field', { field }) } })
  if (!o) throw bad('body')
  if (typeof o.job_id !== 'string' || !UUID.test(o.job_id)) throw bad('job_id')
  if (typeof o.status !== 'string' || !(FETCH_STATUSES as readonly string[]).includes(o.status)) throw bad('status')
  if (!isoDate(o.started_at)) throw bad('started_at')
  if (!isoDate(o.finished_at)) throw bad('finished_at')
  if (o.host_key_sha256 !== null && (typeof o.host_key_sha256 !== 'string' || !/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(o.host_key_sha256))) throw bad('host_key_sha256')
  if (o.output !== undefined && typeof o.output !== 'string') throw bad('output')
  if (o.detail !== undefined && typeof o.detail !== 'string') throw bad('detail')
  if (o.status === 'ok' && typeof o.output !== 'string') throw bad('output')
  return o as unknown as FetchResult
}

export function collectorApiRoutes(c: NcmContext, gate: CollectorGate, ingest: Ingest, reconciler: Reconciler): RouteDefinition[] {
  const knex = c.database.knex
  return [
    defineRoute({
      method: 'POST',
      path: '/ncm/collector/enroll',
      permission: PUBLIC,
      // Per address: a site may enroll a few collectors by script; a token (256 bits) cannot be guessed at any rate.
      rateLimit: { max: 30, windowSeconds: 60 },
      summary: 'Enroll a collector with its one-time token',
      description: `The collector presents the token an administrator got from POST /ncm/collectors (or …/enrollment-token) with its two public keys, signed with keyid "enroll" by the Ed25519 key in the body (proving it holds the private key). 201 once; then 401 NCM_ENROLLMENT_INVALID, 410 NCM_ENROLLMENT_EXPIRED, 409 NCM_ENROLLMENT_USED. A contract mismatch answers 409 NCM_CONTRACT_MISMATCH and spends nothing. Enrolling again (a new token) replaces both keys. ${SIGNED}`,
      tags: ['ncm'],
      rawBody: { mediaTypes: ['application/json'], maxBytes: 4096, description: 'NcmEnrollRequest, as signed.', jsonSchema: EnrollBody },
      schema: { response: { 201: EnrollAnswer, 401: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody } },
      handler: async (req) => {
        const body = objectOf(req.rawBody)
        let key
        try {
          key = publicKeyFromRaw('ed25519', String(body?.ed25519_public_key ?? ''))
        } catch {
          // Without the key nothing can be verified: the same answer as any other bad signature.
          throw NcmErrors.signatureInvalid()
        }
        return gate.run(
          req,
          async (_none, v) => {
            const token = typeof body!.token === 'string' ? body!.token : ''
            if (!v.contractMatches) {
              const id = await tokenCollector(knex, token)
              if (id) await gate.mismatch(id, req.headers['portcullis-contract'])
              throw gate.contractError(req.headers['portcullis-contract'])
            }
            if (typeof body!.name !== 'string' || body!.name.length < 1 || body!.name.length > 64) throw CommonErrors.validation({ field: 'name' })
            const x = String(body!.x25519_public_key ?? '')
            try {
              publicKeyFromRaw('x25519', x)
            } catch {
              throw NcmErrors.publicKeyInvalid({ field: 'x25519_public_key', vars: { kind: 'X25519' } })
            }
            const answer = await req.transaction(async (trx) => {
              const id = await spendToken(trx, token)
              const row = await trx('ncm_collectors').where({ id }).forUpdate().first()
              if (!row || row.removed_at !== null) throw NcmErrors.enrollmentInvalid()
              const now = new Date()
              await trx('ncm_collectors')
                .where({ id })
                .update({
                  ed25519_public_key: String(body!.ed25519_public_key),
                  x25519_public_key: x,
                  state: 'active',
                  enrolled_at: now,
                  last_contact_at: now,
                  last_address: req.ip.slice(0, 64),
                  release: v.release,
                  contract_state: 'match',
                  contract_seen: null,
                  updated_at: now,
                })
              await req.audit({ action: 'ncm_collector.enroll', resourceType: 'ncm_collector', resourceId: id, before: { state: row.state }, after: { state: 'active', release: v.release } }, trx)
              return { collector_id: id, name: row.name, core_version: c.platform.version }
            })
            return reply({ status: 201, body: answer, headers: v.versionHeader })
          },
          key,
        )
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/collector/jobs',
      permission: PUBLIC,
      summary: 'Take the jobs that are due (long poll)',
      description: `Answers at once when jobs are due, else waits up to \`wait\` seconds for one (a "fetch now" ends the wait). Each job is leased to this collector until \`lease_expires_at\`; its credential is sealed to this collector for this job. ${SIGNED}`,
      tags: ['ncm'],
      schema: { query: JobsQuery, response: { 200: JobsAnswer, 401: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        gate.run(req, async (collector, v) => {
          await reconciler.maybe()
          const deadline = Date.now() + (req.query.wait ?? 0) * 1000
          const slots = Math.min(req.query.slots ?? 1, 64)
          let row = collector
          for (;;) {
            // A collector that went away (a stopping one aborts its poll) gets nothing leased: nobody would fetch it.
            if (req.aborted) return reply({ body: { jobs: [], poll_seconds: POLL_SECONDS, max_concurrency: row.max_concurrency }, headers: v.versionHeader })
            const jobs = await leaseJobs(c, row, slots)
            if (jobs.length && req.aborted) {
              await releaseJobs(c, jobs.map((j) => j.job_id))
              return reply({ body: { jobs: [], poll_seconds: POLL_SECONDS, max_concurrency: row.max_concurrency }, headers: v.versionHeader })
            }
            if (jobs.length || Date.now() >= deadline) return reply({ body: { jobs, poll_seconds: POLL_SECONDS, max_concurrency: row.max_concurrency }, headers: v.versionHeader })
            // Outside any transaction: one connection on the embedded engine.
            await c.wake.wait(row.id, Math.min(1000, deadline - Date.now()))
            const fresh = await knex('ncm_collectors').where({ id: row.id }).first()
            if (!fresh || fresh.state !== 'active' || fresh.removed_at !== null) return reply({ body: { jobs: [], poll_seconds: POLL_SECONDS, max_concurrency: row.max_concurrency }, headers: v.versionHeader })
            row = fresh
          }
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/collector/results',
      permission: PUBLIC,
      summary: 'Upload the result of a job',
      description: `The body is gzip of the JSON NcmFetchResult. Idempotent by job id (a retried upload gets the same answer). 409 NCM_JOB_UNKNOWN: the job is not leased to this collector or its lease ended (nothing stored). 422 NCM_CONFIG_TOO_LARGE: the text is larger than setting ncm.max_config_bytes (recorded as too_large, not stored). ${SIGNED}`,
      tags: ['ncm'],
      rawBody: { mediaTypes: ['application/gzip'], maxBytes: RESULT_MAX_COMPRESSED, description: 'gzip of the JSON NcmFetchResult, as signed.' },
      schema: { response: { 200: ResultAnswer, 401: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        gate.run(req, async (collector, v) => {
          const max = await c.settings.get(ncmMaxConfigBytes)
          let text: string
          try {
            // A zip bomb stops at the cap: the output is bounded, not the ratio.
            text = gunzipSync(req.rawBody!, { maxOutputLength: max + 64 * 1024 }).toString('utf8')
          } catch (e) {
            if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
              const head = await gzipHead(req.rawBody!, 4096)
              const job = /"job_id"\s*:\s*"([0-9a-f-]{36})"/.exec(head)?.[1]
              if (job && UUID.test(job)) await ingest.tooLarge(collector, job, null)
              throw NcmErrors.configTooLarge({ vars: { max } })
            }
            throw NcmErrors.resultInvalid({ field: 'body', vars: { reason: phrase('ncm:reason.not_gzip') } })
          }
          const answer = await ingest.result(collector, fetchResultOf(objectOf(Buffer.from(text, 'utf8'))))
          return reply({ body: answer, headers: v.versionHeader })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/collector/status',
      permission: PUBLIC,
      summary: "The collector's own status",
      description: `What \`portcullis collector status\` shows: the core's release and the contract state. ${SIGNED}`,
      tags: ['ncm'],
      schema: { response: { 200: StatusAnswer, 401: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        gate.run(req, async (collector, v) =>
          reply({ body: { collector_id: collector.id, name: collector.name, state: collector.state, core_version: c.platform.version, contract_state: 'match' as const }, headers: v.versionHeader }),
        ),
    }),
  ] as RouteDefinition[]
}
