/**
 * The supervisor as the kernel builds it: the daemons of the server option
 * daemons.supervise, each run as its renderers say (ConfigRenderer.run), what
 * it prints masked by the secret values of the release it serves.
 */
import path from 'node:path'
import { releaseMasker, type AuditService, type ConfigRenderer, type Logger } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import { readReleaseSecrets, releasesDir } from '../deploy/files.js'
import { Supervisor } from './supervisor.js'

/** null when the node supervises nothing (the option is empty). */
export function superviseDaemons(o: { dataDir: string; daemons: string[]; renderers: () => ConfigRenderer[]; audit: AuditService; log: Logger }): Supervisor | null {
  if (!o.daemons.length) return null
  return new Supervisor({
    dataDir: o.dataDir,
    daemons: o.daemons,
    audit: o.audit,
    log: o.log,
    run: async (daemon) => {
      for (const r of o.renderers()) if (r.daemon === daemon && r.run) return r.run()
      return null
    },
    masker: (daemon) => releaseMasker(readReleaseSecrets(path.join(releasesDir(o.dataDir, daemon), 'current')) ?? []),
  })
}

/** At boot: each supervised daemon is one a loaded plugin renders and knows how to run. */
export function verifySupervised(daemons: string[], renderers: ConfigRenderer[]): void {
  for (const d of daemons) {
    if (!renderers.some((r) => r.daemon === d && r.run)) {
      const known = [...new Set(renderers.filter((r) => r.run).map((r) => r.daemon))].sort().join(', ') || 'none'
      throw new BootError('CONFIG_INVALID', `daemons.supervise names "${d}", which no loaded plugin runs (it can supervise: ${known})`)
    }
  }
}
