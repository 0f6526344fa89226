/**
 * PUT /nac/endpoints/{id}/device-type: an admin's device type, which profiling
 * never overrides; `null` hands the endpoint back to profiling. The groups'
 * placement rules apply to it as to a profiled type.
 */
import { defineRoute, ErrorBody, lockForChange } from '../../../sdk/index.js'
import { NAC_PROFILING_WRITE } from '../permissions.js'
import { authorizationChanged } from '../services/events.js'
import { loadPlacements, placedGroup } from '../services/placement.js'
import { presentOne } from '../services/present.js'
import { ENDPOINTS, loadEndpoint } from '../services/rows.js'
import { EndpointParams, EndpointResponse } from '../schemas/endpoints.js'
import { EndpointDeviceTypeBody } from '../schemas/profiling-rules.js'
import type { NacRouteDeps } from './deps.js'

export function endpointDeviceTypeRoutes(d: NacRouteDeps) {
  const { users } = d
  return [
    defineRoute({
      method: 'PUT',
      path: '/nac/endpoints/{endpoint_id}/device-type',
      permission: NAC_PROFILING_WRITE,
      summary: "Set or clear an endpoint's device type by hand",
      description:
        'A device type given here stays (confidence 100, the reason naming who set it) whatever profiling concludes later; `null` clears it and hands the endpoint back to profiling, which decides again with its next RADIUS record. A profiled endpoint without a static group moves to the group placing its new type.',
      tags: ['nac'],
      schema: { params: EndpointParams, body: EndpointDeviceTypeBody, response: { 200: EndpointResponse, 404: ErrorBody } },
      handler: async (req) => {
        const id = req.params.endpoint_id
        const type = req.body.device_type
        const out = await req.transaction(async (trx) => {
          const before = await presentOne(trx, users, await lockForChange(trx, ENDPOINTS, id, 'endpoint_id', loadEndpoint))
          const flags = (await trx(ENDPOINTS).where({ id }).first('endpoint_group_placed'))!
          const g = placedGroup(await loadPlacements(trx), { endpoint_group_id: before.endpoint_group_id, endpoint_group_placed: flags.endpoint_group_placed }, type)
          await trx(ENDPOINTS)
            .where({ id })
            .update({
              device_type: type,
              device_type_confidence: type === null ? null : 100,
              device_type_reason: type === null ? null : `set by hand by ${req.actor?.username ?? 'an administrator'}`.slice(0, 500),
              device_type_manual: type !== null,
              endpoint_group_id: g.endpoint_group_id,
              endpoint_group_placed: g.placed,
              updated_at: new Date(),
            })
          const after = await presentOne(trx, users, (await loadEndpoint(trx, id))!)
          await req.audit({ action: 'endpoint.device_type', resourceType: 'endpoint', resourceId: id, before, after }, trx)
          return { before, after }
        })
        const state = (e: typeof out.after) => ({ device_type: e.device_type, endpoint_group_id: e.endpoint_group_id })
        if (authorizationChanged(state(out.before), state(out.after))) {
          const a = out.after
          await d.events.emit([{ endpoint_id: a.id, mac: a.mac, cause: 'admin', before: state(out.before), after: state(a), last_nas_ip: a.last_nas_ip, last_nas_port: a.last_nas_port }])
        }
        return out.after
      },
    }),
  ]
}
