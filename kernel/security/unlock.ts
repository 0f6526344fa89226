/**
 * Unlocking the master key against the database, right after it is reachable.
 *
 * A passphrase is stretched with scrypt: the random salt and the parameters
 * live in `kernel_meta` (`master_key_kdf`), next to the key check value
 * (`master_key_check`), so every node of a cluster derives the same key and an
 * offline guess costs a full scrypt run. A 32-byte key is used as is.
 *
 * Before stretching existed a passphrase's own bytes were the key, so an older
 * database holds a check value of those bytes: it is still accepted, and the
 * primary then records a salt and the new check value. Envelopes sealed before
 * (`v1`) stay readable with the old derivation (see secrets.ts); tokens signed
 * before do not, so a passphrase install's sessions end at that upgrade.
 */
import { randomBytes, scrypt } from 'node:crypto'
import type { Knex } from 'knex'
import type { Logger } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import type { MasterKeyMaterial } from './master-key.js'
import { keyCheckValue } from './secrets.js'

export interface KdfParams {
  alg: 'scrypt'
  N: number
  r: number
  p: number
  /** base64, 16 bytes */
  salt: string
}

/** 128 × N × r = 128 MiB of memory and about 0.3 s on one core (measured on a shared 2-core server): paid once per boot. */
export const DEFAULT_KDF = { N: 2 ** 17, r: 8, p: 1 } as const

export interface UnlockedKey {
  /** Seals new secrets (`v2`) and signs tokens. */
  key: Buffer
  /** Opens `v1` envelopes: the key material as it was used before stretching. */
  legacy: Buffer
}

const CHECK = 'master_key_check'
const KDF = 'master_key_kdf'

const invalid = (why: string) => new BootError('MASTER_KEY_INVALID', `the master key's scrypt parameters in the database (kernel_meta ${KDF}) are unusable: ${why}`)

/** Parses the stored parameters, within bounds, so a tampered row cannot make a boot take minutes or gigabytes. */
export function parseKdfParams(text: string): KdfParams {
  let v: Partial<KdfParams>
  try {
    v = JSON.parse(text) as Partial<KdfParams>
  } catch {
    throw invalid('not JSON')
  }
  const { alg, N, r, p, salt } = v
  if (alg !== 'scrypt') throw invalid(`unknown algorithm ${String(alg)}`)
  if (!Number.isInteger(N) || N! < 2 ** 14 || N! > 2 ** 22 || (N! & (N! - 1)) !== 0) throw invalid('N must be a power of two from 2^14 to 2^22')
  if (!Number.isInteger(r) || r! < 1 || r! > 32 || !Number.isInteger(p) || p! < 1 || p! > 16) throw invalid('r must be 1 to 32 and p 1 to 16')
  if (typeof salt !== 'string' || Buffer.from(salt, 'base64').length < 16) throw invalid('the salt must be at least 16 bytes in base64')
  return { alg, N: N!, r: r!, p: p!, salt }
}

export function derivePassphraseKey(passphrase: string, k: KdfParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), Buffer.from(k.salt, 'base64'), 32, { N: k.N, r: k.r, p: k.p, maxmem: 256 * k.N * k.r * k.p }, (e, key) => (e ? reject(e) : resolve(key))),
  )
}

const meta = async (knex: Knex, key: string) => (await knex('kernel_meta').where({ key }).first('value'))?.value

/** The stored scrypt parameters; a primary records fresh ones, a replica waits for them to replicate. */
async function kdfParams(knex: Knex, legacyCheck: string, o: { canWrite: boolean; log: Logger; intervalMs?: number }): Promise<KdfParams> {
  let logged = false
  for (;;) {
    const text = await meta(knex, KDF)
    if (text) return parseKdfParams(text)
    // No salt yet: a new database, or one whose passphrase was used unstretched, which must be this one.
    const check = await meta(knex, CHECK)
    if (check !== undefined && check !== legacyCheck) throw wrongKey()
    if (o.canWrite) {
      const fresh: KdfParams = { alg: 'scrypt', ...DEFAULT_KDF, salt: randomBytes(16).toString('base64') }
      // Two primaries starting together: the first insert wins and both read it back.
      await knex('kernel_meta').insert({ key: KDF, value: JSON.stringify(fresh) }).onConflict('key').ignore()
      continue
    }
    if (!logged) o.log.info('replica: waiting for the primary to record the master key passphrase salt')
    logged = true
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 1000))
  }
}

const wrongKey = () => new BootError('MASTER_KEY_INVALID', 'this master key is not the one the database was set up with; every node of a cluster must use the same MASTER_KEY')

/**
 * Derives the key a node works with and checks it against the database's check
 * value (recording it on a first start), refusing a key the data was not sealed with.
 */
export async function unlockMasterKey(knex: Knex, material: MasterKeyMaterial, o: { canWrite: boolean; log: Logger; intervalMs?: number }): Promise<UnlockedKey> {
  const legacy = material.kind === 'key' ? material.key : Buffer.from(material.passphrase, 'utf8')
  const legacyCheck = keyCheckValue(legacy)
  const key = material.kind === 'key' ? material.key : await derivePassphraseKey(material.passphrase, await kdfParams(knex, legacyCheck, o))
  const check = keyCheckValue(key)
  let stored = await meta(knex, CHECK)
  if (stored === undefined) {
    if (!o.canWrite) return { key, legacy }
    await knex('kernel_meta').insert({ key: CHECK, value: check }).onConflict('key').ignore()
    stored = await meta(knex, CHECK)
  }
  if (stored === check) return { key, legacy }
  if (material.kind === 'passphrase' && stored === legacyCheck) {
    if (o.canWrite) {
      await knex('kernel_meta').where({ key: CHECK, value: legacyCheck }).update({ value: check, updated_at: knex.fn.now() })
      o.log.warn('the master key passphrase is now stretched with scrypt (salt in kernel_meta); sessions signed before this start are no longer valid')
    }
    return { key, legacy }
  }
  throw wrongKey()
}
