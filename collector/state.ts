/**
 * The collector's only file: `<state>/collector.json`, mode 0600 in a 0700 folder. It holds who the
 * collector is (its id and name), where its core is, and its two private keys (PKCS8 PEM): Ed25519 to
 * sign requests, X25519 to open the credential envelopes. Never a device credential: those arrive
 * sealed per job and live in memory for one session.
 *
 * Written to a fresh file (O_EXCL, 0600 from the first byte) and renamed over the old one, so a crash
 * leaves the old state or the new one, never half of one, and the keys are never readable by others.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, constants } from 'node:fs'
import path from 'node:path'

export const STATE_FILE = 'collector.json'

export interface CollectorState {
  collector_id: string
  name: string
  core_url: string
  /** Extra CA certificates for the core's HTTPS (a file the collector reads at each start), or null. */
  ca_file: string | null
  ed25519_private_key: string
  x25519_private_key: string
  enrolled_at: string
}

export interface CollectorKeys {
  sign: KeyObject
  open: KeyObject
}

export function newKeys(): CollectorKeys {
  return { sign: generateKeyPairSync('ed25519').privateKey, open: generateKeyPairSync('x25519').privateKey }
}

export const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }).toString()

export function stateKeys(s: CollectorState): CollectorKeys {
  const sign = createPrivateKey(s.ed25519_private_key)
  const open = createPrivateKey(s.x25519_private_key)
  if (sign.asymmetricKeyType !== 'ed25519' || open.asymmetricKeyType !== 'x25519') throw new Error('the state file holds keys of the wrong kind')
  return { sign, open }
}

export function statePath(dir: string): string {
  return path.join(path.resolve(dir), STATE_FILE)
}

/** The state, or null when the collector was never enrolled here. A state others can read is refused. */
export function readState(dir: string): CollectorState | null {
  const file = statePath(dir)
  let text: string
  try {
    if ((statSync(file).mode & 0o077) !== 0) throw new Error(`${file} can be read by others than its owner: chmod 600 it (and enroll again if it may have leaked)`)
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  const s = JSON.parse(text) as Partial<CollectorState>
  for (const f of ['collector_id', 'name', 'core_url', 'ed25519_private_key', 'x25519_private_key'] as const) {
    if (typeof s[f] !== 'string' || s[f] === '') throw new Error(`${file} has no ${f}: enroll again`)
  }
  return { ca_file: null, enrolled_at: '', ...s } as CollectorState
}

export function writeState(dir: string, s: CollectorState): void {
  const root = path.resolve(dir)
  mkdirSync(root, { recursive: true, mode: 0o700 })
  const tmp = path.join(root, `.${STATE_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`)
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
  try {
    writeSync(fd, JSON.stringify(s, null, 2) + '\n')
    fsyncSync(fd)
  } catch (err) {
    closeSync(fd)
    unlinkSync(tmp)
    throw err
  }
  closeSync(fd)
  renameSync(tmp, statePath(root))
}
