/** One PostgreSQL cluster for the whole test run, started on first use and stopped by the root hook. */
import { startPostgres, type PgCluster } from './postgres.js'

let cluster: Promise<PgCluster> | null = null

export function sharedPostgres(): Promise<PgCluster> {
  if (!cluster) {
    cluster = startPostgres()
    // A run cut short (Ctrl-C, a CI timeout, a bail) must not leave a server behind: stopping is synchronous.
    void cluster.then((c) => {
      process.once('exit', () => c.destroy())
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130))
    })
  }
  return cluster
}

export async function stopSharedPostgres(): Promise<void> {
  if (cluster) (await cluster).destroy()
  cluster = null
}
