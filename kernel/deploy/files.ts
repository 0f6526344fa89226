/**
 * Release folders on disk, written so that a crash at any moment leaves
 * either no release or a complete one: files go into `<name>.partial/`, each
 * written under a temporary name, fsynced and renamed; the folder is fsynced
 * and renamed to `<name>`; `current` is a symlink replaced by rename(2).
 */
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeSync, lstatSync, chmodSync, chownSync } from 'node:fs'
import path from 'node:path'
import { releaseMasker, type RenderedFile } from '../../sdk/index.js'
import { onDiskMode, shareFolder, type DaemonGroup } from './account.js'

export interface FileRecord {
  path: string
  /** Of the file on disk: the integrity check of a rollback and the pending comparison; never shown. */
  sha256: string
  size: number
  mode: string
  /** Of the file as every view shows it, its secrets masked (releaseMasker): what the API answers. Absent from records written before. */
  masked_sha256?: string
  masked_size?: number
}

/** A file record as the API shows it: the hash and size of the masked text (null for a release recorded before they were kept). */
export interface ShownFileRecord {
  path: string
  sha256: string | null
  size: number | null
  mode: string
}

export const shownFileRecords = (files: readonly FileRecord[]): ShownFileRecord[] =>
  files.map((f) => ({ path: f.path, sha256: f.masked_sha256 ?? null, size: f.masked_size ?? null, mode: f.mode }))

/**
 * The secret values of a release (RenderedFile.secrets, every file's), kept in the release folder
 * under this name, mode 0600 for the service user only (the daemon's group does not read it): the
 * views of the release mask them. It holds nothing the release's files do not hold already, and
 * goes with the folder when the folder is removed. Never a rendered file, never listed as one.
 */
export const SECRETS_FILE = '.portcullis-secrets.json'

/** Every secret value the files declare, once each. */
export const declaredSecrets = (files: readonly RenderedFile[]): string[] => [...new Set(files.flatMap((f) => f.secrets ?? []))].sort()

/**
 * The secret values a release folder was rendered with; null for a folder written before they were
 * kept (its views then mask by line name only: deploy once to get the full masking).
 */
export function readReleaseSecrets(root: string): string[] | null {
  try {
    const v: unknown = JSON.parse(readFileSync(path.join(root, SECRETS_FILE), 'utf8'))
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null
  } catch {
    return null
  }
}

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex')
export const modeString = (m: number) => '0' + (m & 0o777).toString(8).padStart(3, '0')

export const releasesDir = (dataDir: string, daemon: string) => path.join(dataDir, 'releases', daemon)

export const CURRENT = 'current'
export const PARTIAL = '.partial'

function fsyncPath(p: string): void {
  let fd: number | undefined
  try {
    fd = openSync(p, 'r')
    fsyncSync(fd)
  } catch {
    // some file systems refuse fsync on a directory: nothing more can be done
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** A rendered path stays inside its release folder. */
export function safeRelative(p: string): string {
  const n = path.posix.normalize(p)
  if (!n || n.startsWith('/') || n === '.' || n.startsWith('../') || n === '..' || n.includes('\0') || n === CURRENT || n === SECRETS_FILE) throw new Error(`renderer returned an unsafe path "${p}"`)
  return n
}

/**
 * Write `files` into the folder `finalDir` (which must not exist), atomically as a folder. Files get
 * the owner bits of their declared mode (everything under DATA_DIR is the service user's); with the
 * daemon's group (account.ts), group read too, and the folders 0750 for that group.
 */
export function writeRelease(finalDir: string, files: RenderedFile[], pause: () => void = () => undefined, group: DaemonGroup | null = null, secretValues?: string[], o: { maskedRecords?: boolean } = {}): FileRecord[] {
  const tmp = finalDir + PARTIAL
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true, mode: 0o700 })
  shareFolder(tmp, group)
  // A release written from the database (deploy/store.ts) brings its secrets list beside its files.
  const secrets = secretValues ?? declaredSecrets(files)
  const mask = releaseMasker(secrets)
  writeSecrets(path.join(tmp, SECRETS_FILE), secrets)
  const out: FileRecord[] = []
  for (const f of files) {
    const rel = safeRelative(f.path)
    const p = path.join(tmp, rel)
    for (let d = path.dirname(rel); d !== '.'; d = path.dirname(d)) {
      if (existsSync(path.join(tmp, d))) break
      mkdirSync(path.join(tmp, d), { recursive: true, mode: 0o700 })
    }
    for (let d = path.dirname(rel); d !== '.' && group; d = path.dirname(d)) shareFolder(path.join(tmp, d), group)
    const t = p + '.tmp'
    const mode = onDiskMode(f.mode, group !== null)
    const fd = openSync(t, 'w', mode)
    try {
      const buf = Buffer.from(f.content, 'utf8')
      let off = 0
      while (off < buf.length) off += writeSync(fd, buf, off)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (group) chownSync(t, -1, group.gid)
    chmodSync(t, mode) // the umask may have narrowed it
    renameSync(t, p)
    // The masked hash and size are what the views show; a node agent writing a release it verifies against the recorded hashes needs none (masking is most of the write's time).
    if (o.maskedRecords === false) out.push({ path: rel, sha256: sha256(f.content), size: Buffer.byteLength(f.content), mode: modeString(mode) })
    else {
      const masked = mask(f.content)
      out.push({ path: rel, sha256: sha256(f.content), size: Buffer.byteLength(f.content), mode: modeString(mode), masked_sha256: sha256(masked), masked_size: Buffer.byteLength(masked) })
    }
    pause()
  }
  fsyncPath(tmp)
  renameSync(tmp, finalDir)
  fsyncPath(path.dirname(finalDir))
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** The secrets file of a release: 0600, the service user's alone (never the daemon group's). */
function writeSecrets(p: string, secrets: string[]): void {
  const fd = openSync(p, 'w', 0o600)
  try {
    writeSync(fd, JSON.stringify(secrets))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  chmodSync(p, 0o600)
}

/** Point `<dir>/current` at `release` (a folder name in `dir`): a new link under a temporary name, renamed over the old one. */
export function switchCurrent(dir: string, release: string): void {
  const tmp = path.join(dir, `.current-${process.pid}-${Date.now()}`)
  rmSync(tmp, { force: true })
  symlinkSync(release, tmp)
  renameSync(tmp, path.join(dir, CURRENT))
  fsyncPath(dir)
}

/** The release name `current` points to, or null. */
export function currentRelease(dir: string): string | null {
  try {
    if (!lstatSync(path.join(dir, CURRENT)).isSymbolicLink()) return null
    return path.basename(readlinkSync(path.join(dir, CURRENT)))
  } catch {
    return null
  }
}

/** Every regular file of a release folder, relative paths sorted. */
export function listFiles(root: string): string[] {
  const out: string[] = []
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (r === SECRETS_FILE) continue
      if (e.isDirectory()) walk(r)
      else if (e.isFile()) out.push(r)
    }
  }
  walk('')
  return out.sort()
}

export interface ReadFile extends FileRecord {
  content: string
}

export function readRelease(root: string): ReadFile[] {
  return listFiles(root).map((rel) => {
    const p = path.join(root, rel)
    const buf = readFileSync(p)
    return { path: rel, sha256: sha256(buf), size: buf.length, mode: modeString(statSync(p).mode), content: buf.toString('utf8') }
  })
}

/** The folder holds exactly the recorded files with the recorded hashes. */
export function releaseIntact(root: string, files: FileRecord[]): boolean {
  try {
    const got = readRelease(root)
    if (got.length !== files.length) return false
    const want = new Map(files.map((f) => [f.path, f.sha256]))
    return got.every((g) => want.get(g.path) === g.sha256)
  } catch {
    return false
  }
}

/** Keep the newest `keep` release folders of a daemon's folder `dir`, and always the current one (deploy.keep_releases, on every node). */
export function pruneReleaseFolders(dir: string, keep: number): void {
  if (!existsSync(dir)) return
  const cur = currentRelease(dir)
  const names = readdirSync(dir).filter((n) => /^\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(n)).sort().reverse()
  for (const n of names.slice(keep)) if (n !== cur) rmSync(path.join(dir, n), { recursive: true, force: true })
}

/** A release folder name: sortable UTC time, then the deploy id's first 8 characters. */
export const releaseName = (at: Date, id: string) => `${at.toISOString().replace(/[-:]/g, '').replace('.', '')}-${id.slice(0, 8)}`

/** The current release of a daemon's folder, its files and its secrets (readReleaseSecrets), read from disk; null when none is current. */
export function readCurrentRelease(dir: string): { release: string; files: ReturnType<typeof readRelease>; secrets: string[] | null } | null {
  const release = currentRelease(dir)
  if (!release) return null
  const p = path.join(dir, release)
  if (!existsSync(p) || !lstatSync(p).isDirectory()) return null
  return { release, files: readRelease(p), secrets: readReleaseSecrets(p) }
}
