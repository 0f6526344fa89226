/** What every service and route of the plugin is handed: the deps, the version hooks and the fetch-now wake. */
import type { ResolvedDeps } from '../../../sdk/index.js'
import type { ncmDeps } from '../deps.js'
import type { ForgetHooks, VersionHooks } from './hooks.js'
import type { FetchWake } from './wake.js'

export type NcmDeps = ResolvedDeps<typeof ncmDeps>

export interface NcmContext extends NcmDeps {
  hooks: VersionHooks
  /** Run when a device's history is deleted: drop what you keep per device. */
  forget: ForgetHooks
  wake: FetchWake
}
