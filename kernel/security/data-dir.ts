/**
 * DATA_DIR is private to the service user: it holds the embedded database (whose
 * WAL carries password hashes and sealed secrets), the master key, the node id
 * and the deploy releases (rendered daemon configurations, shared secrets included).
 * Directories are 0700 and files 0600 (an owner-executable file stays 0700).
 *
 * Two mechanisms, because neither is enough alone: a umask of 077 while an app
 * runs covers what the process creates (but PGlite writes its initial cluster
 * and `pg_internal.init` with explicit 0666/0644 modes, and an installation made
 * by an older version is already too open), and a walk of DATA_DIR at start
 * and at stop takes group and other bits away from whatever has them.
 */
import { chmodSync, lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Logger } from '../../sdk/index.js'

let holders = 0
let saved = 0

/**
 * Sets the umask to 077 and returns its release: the last app of the process to
 * stop puts back the umask it found, so an embedding process (the tests start
 * apps in-process) gets its own back.
 */
export function privateUmask(): () => void {
  if (holders++ === 0) saved = process.umask(0o077)
  let released = false
  return () => {
    if (released) return
    released = true
    if (--holders === 0) process.umask(saved)
  }
}

/** Directories that are never a DATA_DIR of their own: walking them would change other people's files. */
const shared = () => new Set(['/', os.homedir(), os.tmpdir()].map((d) => path.resolve(d)))

export interface ProtectResult {
  /** Paths whose modes were narrowed. */
  repaired: number
  /** Paths that could not be changed (owned by another user, or chmod refused). */
  failed: string[]
}

/**
 * Takes group and other permissions away from DATA_DIR and everything in it,
 * without following symbolic links (a link is left alone, and so is its target).
 * A directory is narrowed before its entries are visited, so by the time an
 * entry is lstat-ed and chmod-ed nobody else can swap it for a link.
 */
export function protectDataDir(dataDir: string, log?: Logger): ProtectResult {
  const out: ProtectResult = { repaired: 0, failed: [] }
  let root: string
  try {
    root = realpathSync(dataDir)
  } catch {
    return out // not created yet: everything made from now on inherits the umask
  }
  if (shared().has(root)) {
    log?.warn({ data_dir: root }, 'DATA_DIR is a shared directory: not changing the modes of its contents')
    return out
  }
  const uid = process.getuid?.()
  const gid = process.getgid?.()
  // A folder the deploy gave to a daemon's group (kernel/deploy/account.ts: another group, group read
  // and search) is the daemon's: left alone, and the folders on the way to it keep search-only (0711).
  const daemonFolder = (s: Stats) => s.isDirectory() && gid !== undefined && s.gid !== gid && (s.mode & 0o050) === 0o050
  const onTheWay = new Set<string>()
  for (const stack = [root]; stack.length; ) {
    const p = stack.pop()!
    try {
      for (const e of readdirSync(p, { withFileTypes: true })) {
        if (!e.isDirectory()) continue
        const child = path.join(p, e.name)
        if (!daemonFolder(lstatSync(child))) stack.push(child)
        else for (let a = p; a !== path.dirname(root); a = path.dirname(a)) onTheWay.add(a)
      }
    } catch {
      // unreadable or removed meanwhile: the walk below reports it
    }
  }
  const stack = [root]
  while (stack.length) {
    const p = stack.pop()!
    let s: Stats
    try {
      s = lstatSync(p)
    } catch {
      continue // removed meanwhile (a temporary file)
    }
    if (s.isSymbolicLink() || daemonFolder(s)) continue
    if (s.isDirectory()) {
      try {
        for (const name of readdirSync(p)) stack.push(path.join(p, name))
      } catch {
        out.failed.push(p)
      }
    }
    const mode = s.mode & 0o7777
    const allowed = onTheWay.has(p) ? 0o711 : 0o700
    if ((mode & ~allowed & 0o7777) === 0) continue
    if (uid !== undefined && uid !== 0 && s.uid !== uid) {
      out.failed.push(p)
      continue
    }
    try {
      chmodSync(p, mode & allowed)
      out.repaired++
    } catch {
      out.failed.push(p)
    }
  }
  if (out.repaired) log?.info({ data_dir: root, repaired: out.repaired }, 'DATA_DIR: took group and other permissions away')
  if (out.failed.length) log?.warn({ data_dir: root, count: out.failed.length, first: out.failed[0] }, 'DATA_DIR: some paths could not be made owner-only')
  return out
}
