/**
 * A configuration collector in the test process: the same signing (sdk/http-signatures.ts) and wire
 * (sdk/collector-protocol.ts) as `portcullis collector`, without SSH. The ncm tests enroll with it,
 * take jobs, open their credentials and upload results (a configuration text of their choice), and
 * bend each piece of a request to see the core refuse it.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import {
  COLLECTOR_COMPONENTS,
  COLLECTOR_CONTRACT,
  COLLECTOR_SIGNATURE_LABEL,
  COLLECTOR_SIGNATURE_TAG,
  CONTRACT_HEADER,
  credentialAad,
  openCredential,
  rawPublicKey,
  RELEASE_HEADER,
  type CollectorJob,
  type DeviceCredential,
  type FetchResult,
  type JobsAnswer,
} from '../../sdk/collector-protocol.js'
import { contentDigest, signMessage } from '../../sdk/http-signatures.js'
import type { TestApp } from './app.js'
import type { TestResponse } from './http.js'

export interface SignedOptions {
  /** Query string without `?`. */
  query?: string
  body?: Uint8Array
  contentType?: string
  contract?: string
  release?: string
  /** Seconds since the epoch; default now. */
  created?: number
  nonce?: string
  /** Change the request after signing (the body, a header). */
  tamper?: (r: { headers: Record<string, string>; body: Uint8Array; query: string }) => void
  /** Abort the request (a collector that stops while it waits). */
  signal?: AbortSignal
}

/** One signed request, as the collector sends it. */
export async function signedFetch(baseUrl: string, key: KeyObject, keyid: string, method: string, path: string, o: SignedOptions = {}): Promise<TestResponse> {
  const body = o.body ?? new Uint8Array()
  const query = o.query ? `?${o.query}` : ''
  const headers: Record<string, string> = {
    'content-digest': contentDigest(body),
    [CONTRACT_HEADER]: o.contract ?? COLLECTOR_CONTRACT,
    [RELEASE_HEADER]: o.release ?? 'test-release',
  }
  if (method !== 'GET') headers['content-type'] = o.contentType ?? 'application/json'
  const sig = signMessage({ method, path, query, headers, body }, key, {
    keyid,
    tag: COLLECTOR_SIGNATURE_TAG,
    label: COLLECTOR_SIGNATURE_LABEL,
    components: COLLECTOR_COMPONENTS,
    created: o.created,
    nonce: o.nonce,
  })
  const sent = { headers: { ...headers, ...sig }, body, query }
  o.tamper?.(sent)
  const res = await fetch(baseUrl + path + sent.query, { method, headers: sent.headers, body: method === 'GET' ? undefined : Buffer.from(sent.body), signal: o.signal })
  const text = await res.text()
  let parsed: unknown = text
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text)
  return { status: res.status, headers: res.headers, body: parsed, text }
}

export class TestCollector {
  readonly ed = generateKeyPairSync('ed25519')
  readonly x = generateKeyPairSync('x25519')
  id = ''

  constructor(readonly baseUrl: string) {}

  /** The same collector (keys, id) talking to another node. */
  at(baseUrl: string): TestCollector {
    const c = new TestCollector(baseUrl)
    Object.assign(c, { ed: this.ed, x: this.x, id: this.id })
    return c
  }

  /** POST /ncm/collector/enroll with `token` (signed with keyid "enroll"); sets `id` on 201. */
  async enroll(token: string, o: SignedOptions & { name?: string } = {}): Promise<TestResponse> {
    const body = Buffer.from(JSON.stringify({ token, name: o.name ?? 'test-collector', ed25519_public_key: rawPublicKey(this.ed.publicKey), x25519_public_key: rawPublicKey(this.x.publicKey) }))
    const r = await signedFetch(this.baseUrl, this.ed.privateKey, 'enroll', 'POST', '/api/v1/ncm/collector/enroll', { body, ...o })
    if (r.status === 201) this.id = r.body.collector_id
    return r
  }

  signed(method: string, path: string, o: SignedOptions = {}): Promise<TestResponse> {
    return signedFetch(this.baseUrl, this.ed.privateKey, this.id, method, `/api/v1/ncm/collector/${path}`, o)
  }

  async jobs(o: SignedOptions & { wait?: number; slots?: number } = {}): Promise<TestResponse<JobsAnswer>> {
    return this.signed('GET', 'jobs', { query: `wait=${o.wait ?? 0}&slots=${o.slots ?? 8}`, ...o })
  }

  /** The job's credential, opened as the collector opens it (its AAD rebuilt from the job). */
  credential(job: CollectorJob): DeviceCredential {
    return openCredential(job.credential, this.x.privateKey, credentialAad(this.id, job))
  }

  /** POST results: gzip of the JSON (or `raw`, already compressed). */
  upload(result: FetchResult, o: SignedOptions & { raw?: Buffer } = {}): Promise<TestResponse> {
    return this.signed('POST', 'results', { body: o.raw ?? gzipSync(Buffer.from(JSON.stringify(result))), contentType: 'application/gzip', ...o })
  }

  /** An ok result for `job` carrying `output`. */
  static ok(job: Pick<CollectorJob, 'job_id'>, output: string, hostKey = TEST_HOST_KEY): FetchResult {
    const now = Date.now()
    return { job_id: job.job_id, status: 'ok', started_at: new Date(now - 1500).toISOString(), finished_at: new Date(now).toISOString(), host_key_sha256: hostKey, output }
  }
}

export const TEST_HOST_KEY = `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`

/** A collector created through the API (as an administrator) and enrolled. */
export async function enrollCollector(t: TestApp, name = `col-${randomBytes(3).toString('hex')}`): Promise<TestCollector> {
  const created = await t.admin('POST', '/api/v1/ncm/collectors', { body: { name } })
  if (created.status !== 201) throw new Error(`POST /ncm/collectors: ${created.status} ${created.text}`)
  const col = new TestCollector(t.url)
  const r = await col.enroll(created.body.enrollment_token)
  if (r.status !== 201) throw new Error(`enroll: ${r.status} ${r.text}`)
  return col
}

/**
 * A device group with one device at `address` (a /32), a password credential, and a schedule on
 * `collector` with the given profile (cisco_ios by default): the device is tracked and, after
 * `fetchNow`, due. Answers the ids.
 */
export async function trackDevice(
  t: TestApp,
  collector: TestCollector,
  o: { address: string; name?: string; tacacsKey?: string; password?: string; profileId?: string },
): Promise<{ deviceId: string; groupId: string; credentialId: string; scheduleId: string }> {
  const tag = randomBytes(3).toString('hex')
  const must = (r: TestResponse, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`)
    return r.body
  }
  const group = must(await t.admin('POST', '/api/v1/device-groups', { body: { name: `ncm-${tag}` } }), 'group')
  const device = must(await t.admin('POST', '/api/v1/devices', { body: { name: o.name ?? `sw-${tag}`, address: o.address, device_group_id: group.id, ...(o.tacacsKey ? { tacacs_key: o.tacacsKey } : {}) } }), 'device')
  const cred = must(await t.admin('POST', '/api/v1/ncm/credentials', { body: { name: `cred-${tag}`, username: 'backup', auth: 'password', password: o.password ?? `pw-${tag}-Secret` } }), 'credential')
  const schedule = must(
    await t.admin('POST', '/api/v1/ncm/schedules', { body: { device_group_id: group.id, collector_id: collector.id, credential_id: cred.id, profile_id: o.profileId ?? CISCO_IOS } }),
    'schedule',
  )
  return { deviceId: device.id, groupId: group.id, credentialId: cred.id, scheduleId: schedule.id }
}

/** The built-in cisco_ios profile's id. */
export const CISCO_IOS = '6e636d00-0000-4000-8000-000000000001'

/** Makes the device due now (POST …/fetch) and takes its job. */
export async function takeJob(t: TestApp, collector: TestCollector, deviceId: string): Promise<CollectorJob> {
  const f = await t.admin('POST', `/api/v1/ncm/devices/${deviceId}/fetch`)
  if (f.status !== 202) throw new Error(`fetch now: ${f.status} ${f.text}`)
  const r = await collector.jobs()
  if (r.status !== 200) throw new Error(`jobs: ${r.status} ${r.text}`)
  const job = r.body.jobs.find((j) => j.device_id === deviceId)
  if (!job) throw new Error(`no job for ${deviceId}: ${r.text}`)
  return job
}
