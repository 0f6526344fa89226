/** Every route of the plugin core (design31 §3 "B"); the read side and compliance add theirs in index.ts. */
import type { RouteDefinition } from '../../../sdk/index.js'
import { CollectorGate } from '../services/collector-gate.js'
import type { NcmContext } from '../services/context.js'
import { Ingest } from '../services/ingest.js'
import type { Reconciler } from '../services/reconcile.js'
import { collectorApiRoutes } from './collector-api.js'
import { collectorRoutes } from './collectors.js'
import { credentialRoutes } from './credentials.js'
import { deviceRoutes } from './devices.js'
import { profileRoutes } from './profiles.js'
import { scheduleRoutes } from './schedules.js'

export function ncmRoutes(c: NcmContext, reconciler: Reconciler): RouteDefinition[] {
  return [
    ...collectorApiRoutes(c, new CollectorGate(c), new Ingest(c), reconciler),
    ...collectorRoutes(c),
    ...credentialRoutes(c),
    ...profileRoutes(c),
    ...scheduleRoutes(c, reconciler),
    ...deviceRoutes(c),
  ]
}
