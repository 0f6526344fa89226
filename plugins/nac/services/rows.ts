/**
 * How endpoints and groups are read for the API and the service: one select
 * each, so a route, an export and another plugin all see the same record.
 */
import type { Knex } from 'knex'
import type { AuthResult, Endpoint, EndpointGroup } from '../api.js'
import type { EndpointGroupTableRow, EndpointTableRow } from '../tables.js'
import { isLocallyAdministered } from './mac.js'

type Db = Knex | Knex.Transaction

export const ENDPOINTS = 'nac_endpoints'
export const GROUPS = 'nac_endpoint_groups'

/** The one search expression: the same text in the query and in migration 0001's trigram index. */
export const SEARCH_EXPRESSION = `(mac || ' ' || replace(mac, ':', '') || ' ' || coalesce(description, '') || ' ' || coalesce(vendor, '') || ' ' || coalesce(device_type, ''))`

/** What PostgreSQL's uuid type accepts; anything else is no record (not a 500 from a failed cast). */
export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

const iso = (d: Date | string) => new Date(d).toISOString()
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d))

const endpointColumns = [
  'id', 'mac', 'description', 'owner_user_id', 'endpoint_group_id', 'vendor', 'first_seen_at', 'last_seen_at', 'last_nas_ip', 'last_nas_port',
  'last_auth_result', 'device_type', 'device_type_confidence', 'device_type_reason', 'created_at', 'updated_at',
] as const

export type EndpointRow = Pick<EndpointTableRow, (typeof endpointColumns)[number]>

/** One table, plain column names (knex types only those): nothing joins the endpoints. */
export const selectEndpoints = (db: Db) => db(ENDPOINTS).select(...endpointColumns)

export const toEndpoint = (r: EndpointRow): Endpoint => ({
  id: r.id,
  mac: r.mac,
  locally_administered: isLocallyAdministered(r.mac),
  vendor: r.vendor,
  description: r.description,
  owner_user_id: r.owner_user_id,
  endpoint_group_id: r.endpoint_group_id,
  first_seen_at: isoOrNull(r.first_seen_at),
  last_seen_at: isoOrNull(r.last_seen_at),
  last_nas_ip: r.last_nas_ip,
  last_nas_port: r.last_nas_port,
  last_auth_result: r.last_auth_result as AuthResult | null,
  device_type: r.device_type,
  device_type_confidence: r.device_type_confidence,
  device_type_reason: r.device_type_reason,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export async function loadEndpoint(db: Db, id: string): Promise<Endpoint | null> {
  if (!isUuid(id)) return null
  const row = await selectEndpoints(db).where('id', id).first()
  return row ? toEndpoint(row) : null
}

export async function loadEndpointByMac(db: Db, mac: string): Promise<Endpoint | null> {
  const row = await selectEndpoints(db).where('mac', mac).first()
  return row ? toEndpoint(row) : null
}

export interface GroupWithCount extends EndpointGroup {
  /** Endpoints in the group. */
  endpoint_count: number
}

export const selectGroups = (db: Db) => db(GROUPS).select('id', 'name', 'description', 'placement_device_types', 'created_at', 'updated_at')

/** The count is an SQL expression: its type is declared here, once. */
export const selectGroupsWithCount = (db: Db) =>
  selectGroups(db).select<(EndpointGroupTableRow & { endpoint_count: number })[]>(
    db.raw(`(SELECT count(*)::int FROM ${ENDPOINTS} e WHERE e.endpoint_group_id = ${GROUPS}.id) AS endpoint_count`),
  )

export const toGroup = (r: EndpointGroupTableRow): EndpointGroup => ({
  id: r.id,
  name: r.name,
  description: r.description,
  placement_device_types: r.placement_device_types ?? [],
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export const toGroupWithCount = (r: EndpointGroupTableRow & { endpoint_count: number }): GroupWithCount => ({ ...toGroup(r), endpoint_count: r.endpoint_count })

export async function loadGroup(db: Db, id: string): Promise<EndpointGroup | null> {
  if (!isUuid(id)) return null
  const row = await selectGroups(db).where('id', id).first()
  return row ? toGroup(row) : null
}

export async function loadGroupWithCount(db: Db, id: string): Promise<GroupWithCount | null> {
  if (!isUuid(id)) return null
  const row = await selectGroupsWithCount(db).where('id', id).first()
  return row ? toGroupWithCount(row) : null
}
