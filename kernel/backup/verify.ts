/**
 * Reading an archive back: its members in order, decompressed as they come,
 * and the checks a restore makes on the whole archive before it writes
 * anything: readable to the end (not truncated), every member's checksum as
 * the manifest says, the manifest sealed by this master key.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'
import type { PortcullisError } from '../../sdk/index.js'
import type { MasterKeyMaterial } from '../security/master-key.js'
import { derivePassphraseKey } from '../security/unlock.js'
import { BackupErrors } from './errors.js'
import { FORMAT, FORMAT_VERSION, keyId, MANIFEST, sealMatches, SIGNATURE, type Manifest } from './manifest.js'
import { readTar, TarFormatError, type TarMember } from './tar.js'

const invalid = (reason: string) => BackupErrors.archiveInvalid({ vars: { reason } })
const tampered = (reason: string) => BackupErrors.archiveTampered({ vars: { reason } })

/** The members of the archive file, in order; a damaged or truncated file throws BACKUP_ARCHIVE_INVALID. */
export async function* archiveMembers(file: string): AsyncGenerator<TarMember> {
  const source = createReadStream(file, { highWaterMark: 1024 * 1024 })
  const gunzip = createGunzip({ chunkSize: 256 * 1024 })
  source.on('error', (e) => gunzip.destroy(e))
  source.pipe(gunzip)
  try {
    yield* readTar(gunzip)
  } catch (e) {
    throw asArchiveError(e)
  } finally {
    source.destroy()
    gunzip.destroy()
  }
}

function asArchiveError(e: unknown): unknown {
  if (e instanceof TarFormatError) return invalid(e.message)
  const code = (e as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return invalid(`cannot read the file (${code})`)
  if (code === 'Z_BUF_ERROR') return invalid('the archive ends before its end (truncated)')
  if (typeof code === 'string' && code.startsWith('Z_')) return invalid('not a gzip file, or a damaged one')
  return e
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** The key the archive's secrets are sealed with, from this installation's key material. */
async function keyFor(material: MasterKeyMaterial, manifest: Manifest): Promise<Buffer> {
  if (material.kind === 'key') return material.key
  // A passphrase: stretched with the salt recorded when the archive's database was set up.
  if (!manifest.master_key.kdf) throw mismatch(manifest)
  return derivePassphraseKey(material.passphrase, manifest.master_key.kdf)
}

const mismatch = (m: Manifest): PortcullisError => BackupErrors.masterKeyMismatch({ vars: { key_id: String(m.master_key?.id ?? '').slice(0, 16) } })

function parseManifest(bytes: Buffer): Manifest {
  let m: Partial<Manifest>
  try {
    m = JSON.parse(bytes.toString('utf8')) as Partial<Manifest>
  } catch {
    throw invalid('its manifest is not JSON')
  }
  if (m.format !== FORMAT) throw invalid('it is not a Portcullis backup (no manifest of ours)')
  if (m.format_version !== FORMAT_VERSION) throw invalid(`its format ${String(m.format_version)} is not the one this version reads (${FORMAT_VERSION})`)
  if (typeof m.master_key?.id !== 'string' || !Array.isArray(m.tables) || typeof m.checksums !== 'object' || typeof m.app_version !== 'string' || typeof m.schema !== 'object') {
    throw invalid('its manifest is incomplete')
  }
  return m as Manifest
}

export interface VerifiedArchive {
  manifest: Manifest
  /** The master key as unlocked for this archive (a passphrase stretched with its salt). */
  key: Buffer
}

/** Reads the whole archive once and refuses it unless it is complete, unchanged and sealed by this master key. */
export async function verifyArchive(file: string, material: MasterKeyMaterial): Promise<VerifiedArchive> {
  const seen = new Map<string, string>()
  let manifestBytes: Buffer | null = null
  let signature: string | null = null
  for await (const m of archiveMembers(file)) {
    if (seen.has(m.name) || (m.name === MANIFEST && manifestBytes) || (m.name === SIGNATURE && signature !== null)) throw tampered(`member ${m.name} appears twice`)
    if (m.name === MANIFEST) manifestBytes = m.data
    else if (m.name === SIGNATURE) signature = m.data.toString('utf8')
    else seen.set(m.name, sha256(m.data))
  }
  if (!manifestBytes) throw invalid('it is not a Portcullis backup (no manifest)')
  const manifest = parseManifest(manifestBytes)
  const key = await keyFor(material, manifest)
  // The key first: a wrong key is the operator's mistake, to be told as such, not as tampering.
  if (keyId(key) !== manifest.master_key.id) throw mismatch(manifest)
  if (signature === null || !sealMatches(key, manifestBytes, signature)) throw tampered('the manifest does not match its seal')
  for (const [name, hash] of Object.entries(manifest.checksums)) {
    const got = seen.get(name)
    if (got === undefined) throw tampered(`member ${name} is missing`)
    if (got !== hash) throw tampered(`member ${name} does not match its checksum`)
  }
  for (const name of seen.keys()) if (!(name in manifest.checksums)) throw tampered(`member ${name} is not in the manifest`)
  for (const t of manifest.tables) for (const name of t.members) if (!(name in manifest.checksums)) throw tampered(`member ${name} of ${t.name} has no checksum`)
  return { manifest, key }
}
