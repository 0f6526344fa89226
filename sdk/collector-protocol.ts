/**
 * The wire between the core and a remote configuration collector (`portcullis collector`): the contract
 * token, the signing profile, the JSON shapes, and the envelope a device credential travels in.
 *
 * Any change to this file changes the wire, so a unit test pins its sha256 next to COLLECTOR_CONTRACT:
 * whoever edits it decides whether a collector of the old release still understands the core (keep the
 * token) or not (a new token: old collectors are then refused with 409 NCM_CONTRACT_MISMATCH and say so).
 *
 * The credential envelope: each job's credential is sealed to the collector's own X25519 key with a fresh
 * ephemeral key (ECDH, HKDF-SHA256, AES-256-GCM), and the additional data names the collector, the job,
 * the device, the host, the port and the lease's end. The collector rebuilds that data from the job fields
 * it acts on, so a job re-pointed at another host (or handed to another collector) does not open.
 * node:crypto only (the collector process imports this file).
 */
import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto'

/** Opaque, compared with `===`; a new one whenever old collectors can no longer talk to this core. */
export const COLLECTOR_CONTRACT = 'ncm-collector-14cb7b7c'
export const COLLECTOR_SIGNATURE_TAG = 'portcullis-ncm'
export const COLLECTOR_SIGNATURE_LABEL = 'ncm'
export const CONTRACT_HEADER = 'portcullis-contract'
export const RELEASE_HEADER = 'portcullis-release'
/** Every collector request covers these (RFC 9421); `@authority` is not, so a proxy may rewrite Host. */
export const COLLECTOR_COMPONENTS = ['@method', '@path', '@query', 'content-digest', CONTRACT_HEADER, RELEASE_HEADER]
export const COLLECTOR_PATH_PREFIX = '/api/v1/ncm/collector'

/** Raw keys, base64url. */
export interface EnrollRequest {
  token: string
  name: string
  ed25519_public_key: string
  x25519_public_key: string
}
export interface EnrollAnswer {
  collector_id: string
  name: string
  core_version: string
}
/** base64url fields. */
export interface CredentialEnvelope {
  v: 1
  epk: string
  iv: string
  ct: string
  tag: string
}
export interface DeviceCredential {
  username: string
  password?: string
  private_key?: string
  passphrase?: string
  enable_secret?: string
}
/** What the collector needs of a vendor profile; strip_lines and secret_lines stay in the core (the collector only moves bytes). */
export interface CollectorProfile {
  id: string
  name: string
  mode: 'shell' | 'exec'
  prompt: string
  login_prompt: string | null
  login_answer: string | null
  pre_commands: string[]
  enable_command: string | null
  enable_prompt: string | null
  command: string
  pager_pattern: string | null
  pager_answer: string
  command_timeout_seconds: number
  legacy_algorithms: boolean
}
export interface CollectorJob {
  job_id: string
  device_id: string
  device_name: string
  host: string
  port: number
  profile: CollectorProfile
  credential: CredentialEnvelope
  host_key_sha256: string | null
  connect_timeout_ms: number
  deadline_ms: number
  max_bytes: number
  lease_expires_at: string
}
export interface JobsAnswer {
  jobs: CollectorJob[]
  poll_seconds: number
  max_concurrency: number
}
export type FetchStatus = 'ok' | 'timeout' | 'connect_failed' | 'auth_failed' | 'host_key_mismatch' | 'too_large' | 'protocol_error'
export interface FetchResult {
  job_id: string
  status: FetchStatus
  started_at: string
  finished_at: string
  host_key_sha256: string | null
  output?: string
  detail?: string
}
export interface ResultAnswer {
  outcome: 'new_version' | 'unchanged' | 'recorded'
  version_id: string | null
}

const ENVELOPE_LABEL = 'portcullis-ncm-credential-v1'

/** The envelope's additional data: a JSON array, so no field can run into the next. */
export function credentialAad(collectorId: string, job: Pick<CollectorJob, 'job_id' | 'device_id' | 'host' | 'port' | 'lease_expires_at'>): Buffer {
  return Buffer.from(JSON.stringify([ENVELOPE_LABEL, collectorId, job.job_id, job.device_id, job.host, job.port, job.lease_expires_at]))
}

/** A raw public key (32 bytes, base64url) of a public or private X25519/Ed25519 key. */
export function rawPublicKey(k: KeyObject): string {
  const pub = k.type === 'private' ? createPublicKey(k) : k
  const jwk = pub.export({ format: 'jwk' })
  if (typeof jwk.x !== 'string' || (jwk.crv !== 'Ed25519' && jwk.crv !== 'X25519')) throw new Error('not an Ed25519 or X25519 key')
  return jwk.x
}

/** The public key of 32 raw bytes in base64url; throws on anything else. */
export function publicKeyFromRaw(kind: 'ed25519' | 'x25519', raw: string): KeyObject {
  if (typeof raw !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(raw) || Buffer.from(raw, 'base64url').toString('base64url') !== raw) throw new Error('not a raw 32-byte key')
  return createPublicKey({ key: { kty: 'OKP', crv: kind === 'ed25519' ? 'Ed25519' : 'X25519', x: raw }, format: 'jwk' })
}

function envelopeKey(shared: Buffer, epkRaw: string, recipientRaw: string): Buffer {
  const salt = Buffer.concat([Buffer.from(epkRaw, 'base64url'), Buffer.from(recipientRaw, 'base64url')])
  return Buffer.from(hkdfSync('sha256', shared, salt, ENVELOPE_LABEL, 32))
}

/** Seals a credential to a collector's X25519 public key, bound to `aad` (credentialAad). */
export function sealCredential(c: DeviceCredential, collectorX25519: KeyObject, aad: Buffer): CredentialEnvelope {
  const eph = generateKeyPairSync('x25519')
  const epk = rawPublicKey(eph.publicKey)
  const key = envelopeKey(diffieHellman({ privateKey: eph.privateKey, publicKey: collectorX25519 }), epk, rawPublicKey(collectorX25519))
  const iv = randomBytes(12)
  const plain: DeviceCredential = { username: c.username }
  for (const f of ['password', 'private_key', 'passphrase', 'enable_secret'] as const) if (c[f] !== undefined) plain[f] = c[f]
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad)
  const ct = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()])
  return { v: 1, epk, iv: iv.toString('base64url'), ct: ct.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') }
}

const optionalString = (v: unknown) => v === undefined || typeof v === 'string'

/** Opens an envelope with the collector's own X25519 private key; throws when anything was changed. */
export function openCredential(e: CredentialEnvelope, ownX25519Private: KeyObject, aad: Buffer): DeviceCredential {
  if (!e || e.v !== 1 || typeof e.iv !== 'string' || typeof e.ct !== 'string' || typeof e.tag !== 'string') throw new Error('not a credential envelope')
  const iv = Buffer.from(e.iv, 'base64url')
  const tag = Buffer.from(e.tag, 'base64url')
  if (iv.length !== 12 || tag.length !== 16) throw new Error('not a credential envelope')
  const shared = diffieHellman({ privateKey: ownX25519Private, publicKey: publicKeyFromRaw('x25519', e.epk) })
  const key = envelopeKey(shared, e.epk, rawPublicKey(ownX25519Private))
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 }).setAAD(aad)
  decipher.setAuthTag(tag)
  const plain = Buffer.concat([decipher.update(Buffer.from(e.ct, 'base64url')), decipher.final()])
  const c = JSON.parse(plain.toString('utf8')) as Record<string, unknown>
  if (typeof c?.username !== 'string' || !['password', 'private_key', 'passphrase', 'enable_secret'].every((f) => optionalString(c[f]))) throw new Error('not a device credential')
  return c as unknown as DeviceCredential
}
