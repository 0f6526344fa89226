/** The ingester (filled by the ingestion side). */
import type { ClusterInfo, DatabaseService, Logger, PlatformInfo, SettingsService } from '../../../sdk/index.js'
import type { Ingester, LoadExclusions } from '../api.js'

export interface IngesterDeps {
  database: DatabaseService
  settings: SettingsService
  logger: Logger
  cluster: ClusterInfo
  platform: PlatformInfo
  loadExclusions: LoadExclusions
}

export function createIngester(_d: IngesterDeps): Ingester {
  return { start: async () => undefined, stop: async () => undefined }
}
