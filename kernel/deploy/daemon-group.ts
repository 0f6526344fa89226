/**
 * A deploy's disk work for a daemon that runs under its own account: the
 * account resolved from the renderers, release folders given to its group,
 * and a refused chown/chmod turned into a 422 that says what the server lacks.
 */
import { mkdirSync } from 'node:fs'
import type { ConfigRenderer } from '../../sdk/index.js'
import { openWayTo, resolveAccount, shareFolder, type DaemonGroup } from './account.js'
import { releasesDir } from './files.js'
import { DeployErrors } from './model.js'

/** The account of a daemon's renderers (its group resolved), or null: it runs as whoever starts it. */
export function daemonGroup(renderers: ConfigRenderer[], daemon: string): DaemonGroup | null {
  try {
    return resolveAccount(renderers.map((r) => r.account?.() ?? null), daemon)
  } catch (e) {
    throw DeployErrors.renderFailed({ vars: { renderer: renderers.map((r) => r.id).join(', '), message: (e as Error).message }, cause: e })
  }
}

/** Disk work for a daemon's group: a refused chown/chmod (the server is neither root nor a member of the group) is a 422 that says so. */
export function forGroup<T>(renderers: ConfigRenderer[], group: DaemonGroup | null, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (!group) throw e
    const message = `${(e as Error).message}: the server must run as root or as a member of the group "${group.account.group}" to give the daemon its files`
    throw DeployErrors.renderFailed({ vars: { renderer: renderers.map((r) => r.id).join(', '), message }, cause: e })
  }
}

/** The release folder of a daemon, created, and given to its group when it has an account (account.ts). */
export function releaseFolder(dataDir: string, daemon: string, group: DaemonGroup | null): string {
  const dir = releasesDir(dataDir, daemon)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (group) openWayTo(dataDir, dir)
  shareFolder(dir, group)
  return dir
}
