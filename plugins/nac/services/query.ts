/**
 * The endpoint list's filters, search and sort, shared by the list and the
 * export so that a file holds exactly what the list showed.
 */
import type { Knex } from 'knex'
import { likeEscape } from '../../../sdk/index.js'
import { macError } from '../errors.js'
import { macFragment, parseMac } from './mac.js'
import { ENDPOINTS, SEARCH_EXPRESSION } from './rows.js'

export interface EndpointFilters {
  endpoint_group_id?: string
  grouped?: boolean
  owner_user_id?: string
  vendor?: string
  device_type?: string
  mac?: string
  search?: string
}

export const SORT_COLUMNS: Record<string, string> = {
  mac: `${ENDPOINTS}.mac`,
  vendor: `${ENDPOINTS}.vendor`,
  device_type: `${ENDPOINTS}.device_type`,
  first_seen_at: `${ENDPOINTS}.first_seen_at`,
  last_seen_at: `${ENDPOINTS}.last_seen_at`,
  created_at: `${ENDPOINTS}.created_at`,
  updated_at: `${ENDPOINTS}.updated_at`,
}

/** The `mac` filter in canonical form, parsed before any query runs: a malformed one is the caller's 422. */
export function macFilter(q: EndpointFilters): string | undefined {
  if (q.mac === undefined) return undefined
  const p = parseMac(q.mac)
  if (!p.ok) throw macError(p.reason)({ field: 'mac' })
  return p.mac
}

/** Narrows `qb` to the filters (not search). Call `macFilter` first, outside the query. */
export function applyFilters(qb: Knex.QueryBuilder, q: EndpointFilters, mac: string | undefined): void {
  if (q.endpoint_group_id) qb.where(`${ENDPOINTS}.endpoint_group_id`, q.endpoint_group_id)
  if (q.grouped === true) qb.whereNotNull(`${ENDPOINTS}.endpoint_group_id`)
  if (q.grouped === false) qb.whereNull(`${ENDPOINTS}.endpoint_group_id`)
  if (q.owner_user_id) qb.where(`${ENDPOINTS}.owner_user_id`, q.owner_user_id)
  if (q.vendor !== undefined) qb.whereRaw(`lower(${ENDPOINTS}.vendor) LIKE ?`, [`${likeEscape(q.vendor.toLowerCase())}%`])
  if (q.device_type !== undefined) qb.whereRaw(`lower(${ENDPOINTS}.device_type) = lower(?)`, [q.device_type])
  if (mac !== undefined) qb.where(`${ENDPOINTS}.mac`, mac)
}

/**
 * `search` over the one expression the trigram index serves. A MAC fragment
 * written with separators also matches the bare hex, so `00-1B-63` finds
 * `00:1b:63:…`.
 */
export function applySearch(qb: Knex.QueryBuilder, search: string | undefined): void {
  const term = search?.trim()
  if (!term) return
  const fragment = macFragment(term)
  qb.where((w) => {
    w.whereRaw(`${SEARCH_EXPRESSION} ILIKE ?`, [`%${likeEscape(term)}%`])
    if (fragment) w.orWhereRaw(`${SEARCH_EXPRESSION} ILIKE ?`, [`%${likeEscape(fragment)}%`])
  })
}
