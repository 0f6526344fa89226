/**
 * Where the kit keeps the files a test throws away: the shared PostgreSQL cluster, every test app's data
 * folder (the embedded engine's cluster is in it) and the migrated templates they are copied from.
 *
 * Those files are written and deleted by the gigabyte in a run (an embedded app starts by copying a
 * cluster of some 1,500 files and 45 MB, and its folder is removed when it stops), and nothing in them
 * has to outlive the run. On a disk file system that is kernel time and writeback for nothing: an
 * embedded start, copy and removal cost about twice the CPU on ext4 that they cost in memory. So the
 * kit puts them on a memory file system when the machine has one with room (`/dev/shm`, at least 4 GiB
 * free), in one folder per test process reached through a link under os.tmpdir() (see makeScratchFolder),
 * removed when the process exits; else under os.tmpdir(), as
 * before. TEST_SCRATCH_DIR names the folder instead (`npm test` makes one per engine and removes it even
 * when a run is killed); TEST_SCRATCH_DIR=tmp keeps everything under os.tmpdir().
 *
 * Only the kit's own throwaway folders move: a test that makes a folder itself (a data folder it
 * restarts an app on, a daemon's short lock path) keeps it where it chose.
 */
import { chmodSync, mkdtempSync, rmSync, statfsSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const MEMORY_FS = '/dev/shm'
const ROOM_NEEDED = 4 * 1024 ** 3

let root: string | null = null

/** A memory file system with room for a run, or null. */
export function memoryFileSystem(): string | null {
  try {
    const s = statfsSync(MEMORY_FS)
    return s.bavail * s.bsize >= ROOM_NEEDED ? MEMORY_FS : null
  } catch {
    return null
  }
}

/**
 * A new folder for scratch files on the memory file system, reachable (not writable) by the daemons the
 * kit runs as other users (PostgreSQL as `postgres`), and the path to use for it: a link under
 * os.tmpdir(). Daemons are handed paths under /tmp as before, never under /dev: FreeRADIUS treats a
 * log file under /dev/ as a device (it opens it without creating it, so a new log file is "No such file
 * or directory" and the request fails).
 */
export function makeScratchFolder(memory: string): { path: string; remove(): void } {
  const dir = mkdtempSync(path.join(memory, 'pc-'))
  chmodSync(dir, 0o755)
  const link = path.join(os.tmpdir(), path.basename(dir))
  symlinkSync(dir, link)
  return {
    path: link,
    remove() {
      rmSync(link, { force: true })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The folder the kit's throwaway files go in (see above). */
export function scratchRoot(): string {
  if (root) return root
  const named = process.env.TEST_SCRATCH_DIR
  if (named === 'tmp') return (root = os.tmpdir())
  if (named) return (root = named)
  const memory = memoryFileSystem()
  if (!memory) return (root = os.tmpdir())
  try {
    const dir = makeScratchFolder(memory)
    process.once('exit', () => dir.remove())
    return (root = dir.path)
  } catch {
    return (root = os.tmpdir())
  }
}

/** A new folder for a test's throwaway files (a data folder, a backup target) under the scratch root. */
export const scratchFolder = (prefix: string): string => mkdtempSync(path.join(scratchRoot(), prefix))
