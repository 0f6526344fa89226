/**
 * Secrets at rest: AES-256-GCM with a key derived per purpose by HKDF-SHA256
 * from the master key. The purpose is also the additional authenticated data,
 * so a RADIUS secret cannot be decrypted as, or swapped for, a TOTP seed.
 * Sealed form: `v2.<iv>.<tag>.<ciphertext>` (base64url), under the master key
 * as unlocked (a passphrase stretched by scrypt). `v1` is the same cipher under
 * the key material as given, the raw bytes of a passphrase included: written
 * before passphrases were stretched, it is still read, never written.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { PortcullisError, type SecretsService } from '../../sdk/index.js'

export const masterKeyUnavailable = () => new PortcullisError(503, 'MASTER_KEY_UNAVAILABLE', 'core:errors.master_key_unavailable')

export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `portcullis:${purpose}`, 32))
}

/** A value stored in the database to tell whether this node holds the cluster's key. */
export const keyCheckValue = (master: Buffer): string => createHmac('sha256', deriveKey(master, 'key-check')).update('portcullis').digest('hex')

/** `legacy` opens `v1` envelopes: the passphrase's own bytes (defaults to `master`, which is the same for a 32-byte key). */
export function createSecrets(master: Buffer | null, legacy: Buffer | null = master): SecretsService {
  const roots = { v2: master, v1: legacy }
  const keys = new Map<string, Buffer>()
  const keyFor = (purpose: string, version: 'v1' | 'v2' = 'v2') => {
    const root = roots[version]
    if (!root) throw masterKeyUnavailable()
    let k = keys.get(`${version}:${purpose}`)
    if (!k) keys.set(`${version}:${purpose}`, (k = deriveKey(root, `secret:${purpose}`)))
    return k
  }
  return {
    get loaded() {
      return master !== null
    },
    encrypt(purpose, plaintext) {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', keyFor(purpose), iv)
      c.setAAD(Buffer.from(purpose))
      const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()])
      return ['v2', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
    },
    decrypt(purpose, sealed) {
      return openEnvelope(createDecipheriv, (v) => keyFor(purpose, v), purpose, sealed)
    },
    async decryptMany(purpose, sealed) {
      if (sealed.length < PARALLEL_FROM || availableParallelism() < 2) return sealed.map((x) => openEnvelope(createDecipheriv, (v) => keyFor(purpose, v), purpose, x))
      // The keys the batch needs, derived here so that a missing master key is the same 503 as decrypt's.
      const keys: Partial<Record<'v1' | 'v2', Buffer>> = {}
      for (const x of sealed) if ((x.startsWith('v1.') || x.startsWith('v2.')) && !keys[x.slice(0, 2) as 'v1' | 'v2']) keys[x.slice(0, 2) as 'v1' | 'v2'] = keyFor(purpose, x.slice(0, 2) as 'v1' | 'v2')
      const half = Math.ceil(sealed.length / 2)
      const theirs = openInWorker(keys, purpose, sealed.slice(half))
      try {
        const mine = sealed.slice(0, half).map((x) => openEnvelope(createDecipheriv, (v) => keyFor(purpose, v), purpose, x))
        return mine.concat(await theirs)
      } catch (e) {
        await theirs.catch(() => undefined)
        throw e
      }
    },
  }
}

/**
 * Opens one envelope. Self-contained (its arguments and the global Buffer only), because its source
 * is also the body of the worker that opens the second half of a large batch (`openInWorker`).
 */
function openEnvelope(decipher: typeof createDecipheriv, key: (version: 'v1' | 'v2') => Buffer, purpose: string, sealed: string): string {
  const [v, iv, tag, ct] = sealed.split('.')
  if ((v !== 'v1' && v !== 'v2') || !iv || !tag || ct === undefined) throw new Error('sealed secret has an unknown format')
  const d = decipher('aes-256-gcm', key(v), Buffer.from(iv, 'base64url'))
  d.setAAD(Buffer.from(purpose))
  d.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8')
}

/**
 * Below this many, one thread opens them all: a worker costs tens of milliseconds to start, and an
 * envelope about 5 µs to open (measured: 100,000 verifiers took 0.5-0.8 s on one core).
 */
const PARALLEL_FROM = 20_000

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const { createDecipheriv } = require('node:crypto')
const openEnvelope = ${openEnvelope.toString()}
const key = (v) => { const k = workerData.keys[v]; if (!k) throw new Error('no key for ' + v); return Buffer.from(k) }
try {
  parentPort.postMessage({ opened: workerData.sealed.map((x) => openEnvelope(createDecipheriv, key, workerData.purpose, x)) })
} catch (e) {
  parentPort.postMessage({ error: String((e && e.message) || e) })
}
`

/** The second half of a large batch, opened on another core by a short-lived worker thread (it gets the purpose's derived keys, copied, and ends with the batch). */
function openInWorker(keys: Partial<Record<'v1' | 'v2', Buffer>>, purpose: string, sealed: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { keys, purpose, sealed } })
    worker.once('message', (m: { opened?: string[]; error?: string }) => {
      void worker.terminate()
      if (m.opened) resolve(m.opened)
      else reject(new Error(m.error ?? 'the worker opened nothing'))
    })
    worker.once('error', reject)
  })
}
