/** One PostgreSQL cluster for the whole test run, started on first use and stopped by the root hook. */
import { startPostgres, type PgCluster } from './postgres.js'

let cluster: Promise<PgCluster> | null = null

export function sharedPostgres(): Promise<PgCluster> {
  cluster ??= startPostgres()
  return cluster
}

export async function stopSharedPostgres(): Promise<void> {
  if (cluster) (await cluster).destroy()
  cluster = null
}
