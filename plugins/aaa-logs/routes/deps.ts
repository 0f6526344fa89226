import type { DatabaseService, IdentityService, SettingsService } from '../../../sdk/index.js'

export interface LogsRouteDeps {
  database: DatabaseService
  identity: IdentityService
  settings: SettingsService
}
