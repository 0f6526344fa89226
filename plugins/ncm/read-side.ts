/**
 * The read side of configuration tracking: the versions of a device and their text, the diff of two,
 * search over the latest configurations, and "who changed it". It keeps the latest masked lines of
 * every device up to date from the ingest's new-version hook, and drops them with a device's history.
 */
import type { RouteDefinition } from '../../sdk/index.js'
import { changesRoutes } from './routes/changes.js'
import { diffRoutes } from './routes/diff.js'
import { searchRoutes } from './routes/search.js'
import { versionRoutes } from './routes/versions.js'
import type { NcmContext } from './services/context.js'
import { latestLinesHook } from './services/search.js'

export function readSide(c: NcmContext): { routes: RouteDefinition[] } {
  c.hooks.add(latestLinesHook)
  // A device's history deleted (or the device gone from the inventory): its lines are searched no more.
  c.forget.add(async (trx, deviceIds) => {
    await trx('ncm_latest_lines').whereIn('device_id', deviceIds).delete()
  })
  return { routes: [...versionRoutes(c), ...diffRoutes(c), ...searchRoutes(c), ...changesRoutes(c)] }
}
