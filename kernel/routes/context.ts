import type { Knex } from 'knex'
import type { PendingState } from '../../sdk/index.js'
import type { SettingsStore } from '../settings/store.js'
import type { ServerOptions } from '../settings/server-options.js'
import type { ContributionRegistry } from '../plugins/registry.js'
import type { MigrationOwner } from '../db/migrate.js'
import type { DaemonProcessState } from '../daemons/supervisor.js'
import type { ReadReplicaState } from '../db/read-replica.js'

/** What the kernel's own routes may read of the running kernel. */
export interface KernelContext {
  knex: Knex
  version: string
  startedAt: Date
  nodeId: string
  role: 'primary' | 'replica'
  engine: 'postgres' | 'embedded'
  owners: MigrationOwner[]
  settings: SettingsStore
  options: ServerOptions
  registry: ContributionRegistry
  masterKeyLoaded: boolean
  plugins: { id: string; version: string }[]
  /** The running edition (EDITION), shown in /ready and system info. */
  edition: { id: 'community' | 'pro'; name: 'Community' | 'Pro' }
  /** The installation id: Pro only (null in Community); system info shows it to administrators. */
  installationId: string | null
  /** Changes not yet deployed, per daemon (deploy/pending.ts). */
  pending: () => Promise<PendingState>
  /** The daemons this node runs itself (daemons.supervise), as its supervisor sees them now; [] when none. */
  daemons: () => DaemonProcessState[]
  /** Where log searches read (kernel/db/read-replica.ts): `off` without DATABASE_READ_URL. */
  readReplica: () => ReadReplicaState
}
