/**
 * The daemons' accounts on disk. A daemon that runs as an unprivileged account
 * (its plugin's server options, `ConfigRenderer.account`) must read its release
 * and write its logs, and nobody else may: its release folder and files go to
 * the account's group (folders 0750, files 0640: group read, nothing for
 * others), the folders it writes to become 2770 (setgid, so its files keep the
 * group and the platform, a member of it or root, reads and prunes them), and
 * the folders of DATA_DIR on the way there keep search-only access (0711: no
 * listing, nothing else in DATA_DIR opens, every other entry stays 0700/0600).
 *
 * kernel/security/data-dir.ts leaves a folder given to a daemon's group alone
 * (another group, group read and search), and keeps 0711 on the folders on the
 * way to one, so a restart of the platform does not lock the daemons out.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { DaemonAccount, DaemonFolder } from '../../sdk/index.js'

/** A group's id: a number as given, else the system's answer (`getent group`, then /etc/group). */
export function groupId(group: string): number {
  if (/^[0-9]+$/.test(group)) return Number(group)
  const r = spawnSync('getent', ['group', group], { encoding: 'utf8', timeout: 5000 })
  const line = r.status === 0 ? r.stdout.split('\n')[0] : (readEtc('/etc/group').find((l) => l.split(':')[0] === group) ?? '')
  const gid = line.split(':')[2]
  if (line.split(':')[0] !== group || !/^[0-9]+$/.test(gid ?? '')) throw new Error(`the group "${group}" does not exist on this machine`)
  return Number(gid)
}

function readEtc(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n')
  } catch {
    return []
  }
}

/** The group of a daemon's account, or null when it runs as whoever starts it. */
export interface DaemonGroup {
  account: DaemonAccount
  gid: number
}

export function resolveAccount(accounts: (DaemonAccount | null)[], daemon: string): DaemonGroup | null {
  const given = accounts.filter((a): a is DaemonAccount => a !== null)
  if (!given.length) return null
  if (given.some((a) => a.user !== given[0].user || a.group !== given[0].group)) throw new Error(`the renderers of ${daemon} name different accounts`)
  return { account: given[0], gid: groupId(given[0].group) }
}

/** The mode a rendered file gets on disk: the owner bits, and group read when a daemon's group reads it. */
export const onDiskMode = (declared: number, group: boolean) => (declared & 0o700) | (group && declared & 0o400 ? 0o040 : 0)

/** Owner-only folder, or 0750 for the daemon's group. */
export function shareFolder(dir: string, group: DaemonGroup | null, mode = 0o750): void {
  if (group) {
    chownSync(dir, -1, group.gid)
    chmodSync(dir, mode)
  } else if (lstatSync(dir).gid !== process.getgid?.()) {
    // The account was taken away: the folder is the platform's alone again.
    chownSync(dir, -1, process.getgid?.() ?? -1)
    chmodSync(dir, 0o700)
  }
}

/** Search-only (0711) on DATA_DIR and every folder below it on the way to `target`; folders outside DATA_DIR are the operator's. */
export function openWayTo(dataDir: string, target: string): void {
  const root = path.resolve(dataDir)
  const rel = path.relative(root, path.resolve(target))
  if (rel.startsWith('..') || path.isAbsolute(rel)) return
  let p = root
  for (const part of ['', ...rel.split(path.sep).slice(0, -1)]) {
    p = part ? path.join(p, part) : p
    const s = lstatSync(p)
    if (s.isDirectory() && (s.mode & 0o011) !== 0o011) chmodSync(p, (s.mode & 0o7777) | 0o011)
  }
}

/** A folder the daemon writes to: created, and given to its group (2770) when it has an account. */
export function prepareFolder(dataDir: string, folder: DaemonFolder, group: DaemonGroup | null): void {
  if (!group) return
  mkdirSync(folder.directory, { recursive: true, mode: 0o700 })
  openWayTo(dataDir, folder.directory)
  shareFolder(folder.directory, group, 0o2770)
}

/** Remove the dated logs of `folder` last written more than `days` days ago; returns the names removed. */
export function pruneLogs(folder: DaemonFolder, days: number, now = Date.now()): string[] {
  if (!folder.logs || !existsSync(folder.directory)) return []
  const limit = now - days * 86_400_000
  const removed: string[] = []
  for (const name of readdirSync(folder.directory)) {
    if (!folder.logs.test(name)) continue
    const p = path.join(folder.directory, name)
    const s = lstatSync(p)
    if (!s.isFile() || s.mtimeMs >= limit) continue
    rmSync(p, { force: true })
    removed.push(name)
  }
  return removed.sort()
}
