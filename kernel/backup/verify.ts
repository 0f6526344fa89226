/**
 * Reading an archive back, once, in order: the sealed manifest first (the
 * key and the seal checked before anything else happens), then the data
 * members as they come, each hashed, then the sealed contents, checked
 * against every member seen. A restore loads the rows while it reads them
 * and commits only after `finish()` has found everything as it was made.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'
import type { PortcullisError } from '../../sdk/index.js'
import type { MasterKeyMaterial } from '../security/master-key.js'
import { derivePassphraseKey } from '../security/unlock.js'
import { BackupErrors } from './errors.js'
import { CONTENTS, CONTENTS_SEAL, FORMAT, FORMAT_VERSION, keyId, MANIFEST, MANIFEST_SEAL, memberOf, sealMatches, type Contents, type Manifest } from './manifest.js'
import { readTar, TarFormatError, type TarMember } from './tar.js'

const invalid = (reason: string) => BackupErrors.archiveInvalid({ vars: { reason } })
const tampered = (reason: string) => BackupErrors.archiveTampered({ vars: { reason } })
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

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

function parseJson<T>(bytes: Buffer, what: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T
  } catch {
    throw invalid(`its ${what} is not JSON`)
  }
}

function parseManifest(bytes: Buffer): Manifest {
  const m = parseJson<Partial<Manifest>>(bytes, 'manifest')
  if (m.format !== FORMAT) throw invalid('it is not a Portcullis backup (no manifest of ours)')
  if (m.format_version !== FORMAT_VERSION) throw invalid(`its format ${String(m.format_version)} is not the one this version reads (${FORMAT_VERSION})`)
  if (typeof m.master_key?.id !== 'string' || !Array.isArray(m.tables) || !Array.isArray(m.partitions) || !Array.isArray(m.sequences) || typeof m.app_version !== 'string' || typeof m.schema !== 'object') {
    throw invalid('its manifest is incomplete')
  }
  return m as Manifest
}

const mismatch = (m: Manifest): PortcullisError => BackupErrors.masterKeyMismatch({ vars: { key_id: String(m.master_key.id).slice(0, 16) } })

/** The key the archive's secrets are sealed with, from this installation's key material. */
async function keyFor(material: MasterKeyMaterial, manifest: Manifest): Promise<Buffer> {
  if (material.kind === 'key') return material.key
  // A passphrase: stretched with the salt recorded when the archive's database was set up.
  if (!manifest.master_key.kdf) throw mismatch(manifest)
  return derivePassphraseKey(material.passphrase, manifest.master_key.kdf)
}

export class ArchiveReader {
  private peeked: TarMember | null = null
  /**
   * The member after the one peeked, already being decompressed: while a restore writes one member to the
   * database, the next is read, so the two processes work side by side instead of taking turns.
   */
  private ahead: Promise<IteratorResult<TarMember>> | null = null
  /** Every data member read so far, with its SHA-256, in order. */
  private readonly seen: { name: string; sha256: string }[] = []

  private constructor(
    private readonly members: AsyncGenerator<TarMember>,
    readonly manifest: Manifest,
    /** The master key as unlocked for this archive (a passphrase stretched with its salt). */
    readonly key: Buffer,
    private readonly manifestSha256: string,
  ) {}

  /**
   * Reads the manifest and checks it: ours, sealed by this master key (a wrong
   * key is told as such, before the seal is looked at: it is the operator's
   * mistake, not tampering).
   */
  static async open(file: string, material: MasterKeyMaterial): Promise<ArchiveReader> {
    const members = archiveMembers(file)
    try {
      const first = await members.next()
      if (first.done || first.value.name !== MANIFEST) throw invalid('it is not a Portcullis backup (it does not start with our manifest)')
      const manifest = parseManifest(first.value.data)
      const key = await keyFor(material, manifest)
      if (keyId(key) !== manifest.master_key.id) throw mismatch(manifest)
      const sig = await members.next()
      if (sig.done || sig.value.name !== MANIFEST_SEAL || !sealMatches(key, MANIFEST, first.value.data, sig.value.data)) throw tampered('the manifest does not match its seal')
      return new ArchiveReader(members, manifest, key, sha256(first.value.data))
    } catch (e) {
      await members.return(undefined)
      throw e
    }
  }

  /** The next data member without taking it; null once the data is over (the contents come next). */
  async peek(): Promise<TarMember | null> {
    if (!this.peeked) {
      const r = await (this.ahead ?? this.members.next())
      this.ahead = null
      if (r.done) throw invalid('the archive ends without its contents (truncated)')
      this.peeked = r.value
      if (memberOf(r.value.name)) {
        this.ahead = this.members.next()
        // Awaited by the next peek (or dropped by close): its failure is reported there, not as unhandled.
        this.ahead.catch(() => undefined)
      }
    }
    return memberOf(this.peeked.name) ? this.peeked : null
  }

  /** Takes the next data member (null once the data is over), hashing it. */
  async next(): Promise<TarMember | null> {
    const m = await this.peek()
    if (!m) return null
    this.peeked = null
    this.seen.push({ name: m.name, sha256: sha256(m.data) })
    return m
  }

  /**
   * Reads the sealed contents and checks that the members read are exactly
   * the ones it lists, in its order, each with its checksum, and that the
   * archive ends there. Call it after the last data member.
   */
  async finish(): Promise<Contents> {
    if (await this.peek()) throw tampered(`member ${this.peeked!.name} is not where the manifest's tables put it`)
    const contentsMember = this.peeked
    this.peeked = null
    if (!contentsMember || contentsMember.name !== CONTENTS) throw tampered(`member ${contentsMember?.name ?? '?'} is not one of ours`)
    const sig = await (this.ahead ?? this.members.next())
    this.ahead = null
    if (sig.done || sig.value.name !== CONTENTS_SEAL || !sealMatches(this.key, CONTENTS, contentsMember.data, sig.value.data)) throw tampered('the list of members does not match its seal')
    if (!(await this.members.next()).done) throw tampered('members follow the end of the archive')
    const contents = parseJson<Contents>(contentsMember.data, 'list of members')
    if (contents.manifest_sha256 !== this.manifestSha256) throw tampered('the list of members belongs to another manifest')
    const listed = contents.tables.flatMap((t) => t.members)
    for (let i = 0; i < Math.max(listed.length, this.seen.length); i++) {
      const want = listed[i]
      const got = this.seen[i]
      if (!got) throw tampered(`member ${want} is missing`)
      if (got.name !== want) throw tampered(`member ${got.name} is not the one the archive lists there (${want ?? 'none'})`)
      if (contents.checksums[want] !== got.sha256) throw tampered(`member ${want} does not match its checksum`)
    }
    return contents
  }

  async close(): Promise<void> {
    await this.ahead?.catch(() => undefined)
    await this.members.return(undefined)
  }
}

/** Reads the whole archive and checks everything a restore checks, writing nothing: the manifest and the contents. */
export async function verifyArchive(file: string, material: MasterKeyMaterial): Promise<{ manifest: Manifest; contents: Contents; key: Buffer }> {
  const reader = await ArchiveReader.open(file, material)
  try {
    while (await reader.next()) {
      /* each member hashed as it is taken */
    }
    return { manifest: reader.manifest, contents: await reader.finish(), key: reader.key }
  } finally {
    await reader.close()
  }
}
