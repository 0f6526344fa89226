/**
 * The master key: every at-rest secret and every token key is derived from it.
 * Sources, in order: MASTER_KEY, MASTER_KEY_FILE, then `<DATA_DIR>/master.key`.
 * Only the embedded engine generates one on first start: a cluster on a real
 * PostgreSQL must share one key, so it must be given, not invented per node.
 *
 * A key is 32 random bytes (64 hex characters or base64) and is used as is. A
 * passphrase is stretched with scrypt once the database is reachable, because
 * its salt is kept there (see unlock.ts); a weak one is refused right here.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { BootError } from '../boot-error.js'
import { passphraseWeakness } from './passphrase.js'

export type MasterKeyMaterial = { kind: 'key'; key: Buffer } | { kind: 'passphrase'; passphrase: string }

export interface MasterKeyResult {
  material: MasterKeyMaterial | null
  source: 'env' | 'file' | 'data-dir' | 'generated' | 'missing'
}

const HOW = 'Generate a key with `openssl rand -hex 32` (or use a passphrase of at least 32 characters that is not predictable).'

/** Fewer distinct byte values than this among 32 bytes is a made-up key, not a random one (a random key has about 30). */
const MIN_DISTINCT_KEY_BYTES = 16

/** Reads 64 hex characters, base64 of 32 bytes, or a strong passphrase; anything else refuses the boot. */
export function readMasterKey(text: string, where: string): MasterKeyMaterial {
  const s = text.trim()
  let key: Buffer | null = null
  if (/^[0-9a-fA-F]{64}$/.test(s)) key = Buffer.from(s, 'hex')
  else if (/^[A-Za-z0-9+/]+=*$/.test(s) && Buffer.from(s, 'base64').length === 32) key = Buffer.from(s, 'base64')
  if (key) {
    if (new Set(key).size < MIN_DISTINCT_KEY_BYTES) throw new BootError('MASTER_KEY_INVALID', `${where} is not random: its 32 bytes hold only ${new Set(key).size} different values. ${HOW}`)
    return { kind: 'key', key }
  }
  const weakness = passphraseWeakness(s)
  if (weakness) throw new BootError('MASTER_KEY_INVALID', `${where} is neither 64 hex characters nor 32 bytes in base64, and as a passphrase it is weak: ${weakness}. ${HOW}`)
  return { kind: 'passphrase', passphrase: s }
}

/** The 32 bytes of a hex or base64 key (tools and tests that sign tokens without a database); a passphrase needs unlockMasterKey. */
export function parseMasterKey(text: string, where: string): Buffer {
  const m = readMasterKey(text, where)
  if (m.kind === 'key') return m.key
  throw new BootError('MASTER_KEY_INVALID', `${where} is a passphrase: its key is derived with the salt kept in the database (unlockMasterKey)`)
}

export function loadMasterKey(opts: { masterKey: string | null; masterKeyFile: string | null; dataDir: string; mayGenerate: boolean }): MasterKeyResult {
  if (opts.masterKey) return { material: readMasterKey(opts.masterKey, 'MASTER_KEY'), source: 'env' }
  if (opts.masterKeyFile) {
    let text: string
    try {
      text = readFileSync(opts.masterKeyFile, 'utf8')
    } catch (e) {
      throw new BootError('MASTER_KEY_INVALID', `cannot read MASTER_KEY_FILE ${opts.masterKeyFile}: ${(e as Error).message}`)
    }
    return { material: readMasterKey(text, 'MASTER_KEY_FILE'), source: 'file' }
  }
  const file = path.join(opts.dataDir, 'master.key')
  if (existsSync(file)) return { material: readMasterKey(readFileSync(file, 'utf8'), file), source: 'data-dir' }
  if (!opts.mayGenerate) return { material: null, source: 'missing' }
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 })
  const key = randomBytes(32)
  // 'wx' so two processes racing on a first start cannot both write a key.
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  return { material: { kind: 'key', key }, source: 'generated' }
}
