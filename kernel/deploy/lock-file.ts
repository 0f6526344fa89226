/**
 * The deploy lock between processes on one DATA_DIR (the server and the
 * `portcullis` CLI beside it): `<DATA_DIR>/releases/.deploy.lock` holds the
 * holder's pid. A lock left by a process that is gone is taken over; a live
 * holder is waited for up to 30 s, then the deploy answers 409. The cluster-wide
 * lease (lock.ts) is the other half: it orders deploys across nodes.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'
import type { Logger } from '../../sdk/index.js'
import { DeployErrors } from './model.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const isAlive = (pid: number): boolean => {
  if (!(pid > 0) || pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the folder's lock; resolves to its release. */
export async function takeFolderLock(dataDir: string, o: { nodeId: string; log: Logger; waitMs?: number }): Promise<() => void> {
  const dir = path.join(dataDir, 'releases')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, '.deploy.lock')
  const deadline = Date.now() + (o.waitMs ?? 30_000)
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(file, { force: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    const pid = Number(readFileSync(file, { encoding: 'utf8', flag: 'r' }) || 0)
    if (!isAlive(pid)) {
      o.log.warn({ pid }, 'taking over the deploy lock of a process that is gone')
      try {
        unlinkSync(file)
      } catch {
        // another process took it over first
      }
      continue
    }
    if (Date.now() > deadline) throw DeployErrors.inProgress({ vars: { node: o.nodeId, pid } })
    await sleep(100)
  }
}
