/**
 * The master key: every at-rest secret and every token key is derived from it.
 * Sources, in order: MASTER_KEY, MASTER_KEY_FILE, then `<DATA_DIR>/master.key`.
 * Only the embedded engine generates one on first start: a cluster on a real
 * PostgreSQL must share one key, so it must be given, not invented per node.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { BootError } from '../boot-error.js'

export interface MasterKeyResult {
  key: Buffer | null
  source: 'env' | 'file' | 'data-dir' | 'generated' | 'missing'
}

/** Accepts 64 hex chars, base64 of 32 bytes, or a passphrase of 32+ characters. */
export function parseMasterKey(text: string, where: string): Buffer {
  const s = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex')
  const b = Buffer.from(s, 'base64')
  if (b.length === 32 && /^[A-Za-z0-9+/]+=*$/.test(s)) return b
  if (s.length >= 32) return Buffer.from(s, 'utf8')
  throw new BootError('MASTER_KEY_INVALID', `${where} must be 64 hex characters, 32 bytes in base64, or a passphrase of at least 32 characters`)
}

export function loadMasterKey(opts: { masterKey: string | null; masterKeyFile: string | null; dataDir: string; mayGenerate: boolean }): MasterKeyResult {
  if (opts.masterKey) return { key: parseMasterKey(opts.masterKey, 'MASTER_KEY'), source: 'env' }
  if (opts.masterKeyFile) {
    let text: string
    try {
      text = readFileSync(opts.masterKeyFile, 'utf8')
    } catch (e) {
      throw new BootError('MASTER_KEY_INVALID', `cannot read MASTER_KEY_FILE ${opts.masterKeyFile}: ${(e as Error).message}`)
    }
    return { key: parseMasterKey(text, 'MASTER_KEY_FILE'), source: 'file' }
  }
  const file = path.join(opts.dataDir, 'master.key')
  if (existsSync(file)) return { key: parseMasterKey(readFileSync(file, 'utf8'), file), source: 'data-dir' }
  if (!opts.mayGenerate) return { key: null, source: 'missing' }
  mkdirSync(opts.dataDir, { recursive: true })
  const key = randomBytes(32)
  // 'wx' so two processes racing on a first start cannot both write a key.
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  return { key, source: 'generated' }
}
