/** The NAC service other plugins reach through `nacServiceRef` (see api.ts). */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { Endpoint, NacService } from '../api.js'
import { macError } from '../errors.js'
import type { AuthorizationEvents } from './events.js'
import { normalizeMac, parseMac } from './mac.js'
import { ouiVendor } from './oui.js'
import { ENDPOINTS, isUuid, loadEndpoint, loadEndpointByMac, loadGroup, selectEndpoints, selectGroups, toEndpoint, toGroup } from './rows.js'

/** Text from the network, as stored: one line, no control characters, cut to the column. */
const clip = (s: string | null | undefined, max: number): string | null => {
  if (s === null || s === undefined) return null
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim()
  return clean ? clean.slice(0, max) : null
}

/** Everything but the policy's part (services/policy-rules.ts, evaluate.ts) and the captive portal's (portal-*.ts), which index.ts adds. */
export function createNacService(knex: Knex, references: NacService['references'], events: AuthorizationEvents): Omit<NacService, 'compilePolicy' | 'evaluatePolicy' | 'registerEndpoint' | 'releaseEndpoint' | 'verifyPortalRedirect'> {
  return {
    references,
    onEndpointAuthorizationChanged: (listener) => events.on(listener),
    normalizeMac,
    vendorOf(mac) {
      const m = normalizeMac(mac)
      return m ? ouiVendor(m) : null
    },

    getEndpoint: (id, db = knex) => loadEndpoint(db, id),

    async findEndpointByMac(mac, db = knex) {
      const m = normalizeMac(mac)
      return m ? loadEndpointByMac(db, m) : null
    },

    async listEndpointsInGroup(groupId, db = knex) {
      if (!isUuid(groupId)) return []
      return (await selectEndpoints(db).where('endpoint_group_id', groupId).orderBy('mac')).map(toEndpoint)
    },

    async groupMembership(db = knex) {
      const rows = await db(ENDPOINTS).whereNotNull('endpoint_group_id').orderBy('endpoint_group_id').orderBy('mac').select('mac', 'endpoint_group_id')
      return rows.map((r) => ({ mac: r.mac, endpoint_group_id: r.endpoint_group_id! }))
    },

    getGroup: (id, db = knex) => loadGroup(db, id),

    async listGroups(db = knex) {
      return (await selectGroups(db).orderBy('name').orderBy('id')).map(toGroup)
    },

    /**
     * One statement: insert, or on the MAC's unique index move what the sighting says. A sighting
     * older than the last one (records replayed out of order) moves first seen back but leaves
     * the "last" fields to the newer one.
     */
    async recordSighting(s, db = knex): Promise<Endpoint> {
      const p = parseMac(s.mac)
      if (!p.ok) throw macError(p.reason)({ field: 'mac' })
      const at = s.at ?? new Date()
      const nasIp = s.nas_ip && isIP(s.nas_ip) ? s.nas_ip : null
      const nasPort = clip(s.nas_port, 64)
      const result = s.result === 'accept' || s.result === 'reject' ? s.result : null
      const { rows } = (await db.raw(
        `INSERT INTO ${ENDPOINTS} AS e (mac, vendor, first_seen_at, last_seen_at, last_nas_ip, last_nas_port, last_auth_result)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (mac) DO UPDATE SET
           first_seen_at = LEAST(coalesce(e.first_seen_at, EXCLUDED.first_seen_at), EXCLUDED.first_seen_at),
           last_nas_ip = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_nas_ip, e.last_nas_ip) ELSE e.last_nas_ip END,
           last_nas_port = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_nas_port, e.last_nas_port) ELSE e.last_nas_port END,
           last_auth_result = CASE WHEN e.last_seen_at IS NULL OR EXCLUDED.last_seen_at >= e.last_seen_at THEN coalesce(EXCLUDED.last_auth_result, e.last_auth_result) ELSE e.last_auth_result END,
           last_seen_at = GREATEST(coalesce(e.last_seen_at, EXCLUDED.last_seen_at), EXCLUDED.last_seen_at)
         RETURNING id`,
        [p.mac, ouiVendor(p.mac), at, at, nasIp, nasPort, result],
      )) as { rows: { id: string }[] }
      return (await loadEndpoint(db, rows[0].id))!
    },

    async setDeviceType(endpointId, v, db = knex) {
      if (!isUuid(endpointId)) return null
      const confidence = v.device_type === null || v.confidence === null ? null : Math.max(0, Math.min(100, Math.round(v.confidence)))
      const n = await db(ENDPOINTS)
        .where({ id: endpointId })
        .update({
          device_type: clip(v.device_type, 128),
          device_type_confidence: confidence,
          device_type_reason: v.device_type === null ? null : clip(v.reason, 500),
          updated_at: new Date(),
        })
      return n ? loadEndpoint(db, endpointId) : null
    },
  }
}

