/** What the FreeRADIUS tree looks up by MAC (sdk/nac-policy.ts NacPolicySource.endpoints): every endpoint's groups and device type. */
import type { Knex } from 'knex'
import { ENDPOINTS } from './rows.js'

/** One statement, ordered by MAC, for the renderer's snapshot. One group at most per endpoint (static membership). */
export async function policyEndpoints(db: Knex | Knex.Transaction) {
  const rows = await db(ENDPOINTS).orderBy('mac').select('mac', 'endpoint_group_id', 'device_type')
  return rows.map((r) => ({ mac: r.mac, endpoint_group_ids: r.endpoint_group_id ? [r.endpoint_group_id] : [], device_type: r.device_type }))
}
