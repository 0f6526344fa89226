/** `nac_coa_requests` rows as the API and the service show them. */
import type { Knex } from 'knex'
import type { CoaRequestRecord } from '../../api.js'
import type { CoaRequestTableRow } from '../../tables.js'

export const COA_REQUESTS = 'nac_coa_requests'
export const COA_NAS = 'nac_coa_nas'
/** Automatic CoAs waiting for the next FreeRADIUS deploy (migrations/0005_nac_coa_waiting.ts). */
export const COA_WAITING = 'nac_coa_waiting'
/** Disconnect-Requests for a user's sessions waiting for the next FreeRADIUS deploy (migrations/0006). */
export const COA_WAITING_SESSIONS = 'nac_coa_waiting_sessions'

type Db = Knex | Knex.Transaction
export type CoaRecordWithAttributes = CoaRequestRecord & { attributes: { name: string; value: string }[]; error_cause_name: string | null }

/** RFC 5176 section 3.6. */
const ERROR_CAUSES: Record<number, string> = {
  201: 'Residual-Session-Context-Removed', 202: 'Invalid-EAP-Packet', 401: 'Unsupported-Attribute', 402: 'Missing-Attribute', 403: 'NAS-Identification-Mismatch',
  404: 'Invalid-Request', 405: 'Unsupported-Service', 406: 'Unsupported-Extension', 407: 'Invalid-Attribute-Value', 501: 'Administratively-Prohibited',
  502: 'Request-Not-Routable', 503: 'Session-Context-Not-Found', 504: 'Session-Context-Not-Removable', 505: 'Other-Proxy-Processing-Error',
  506: 'Resources-Unavailable', 507: 'Request-Initiated', 508: 'Multiple-Session-Selection-Unsupported',
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export const toCoaRecord = (r: CoaRequestTableRow): CoaRecordWithAttributes => ({
  id: r.id,
  endpoint_id: r.endpoint_id,
  mac: r.mac,
  action: r.action,
  reason: r.reason,
  device_id: r.device_id,
  device_name: r.device_name,
  nas_ip: r.nas_ip,
  nas_port: r.nas_port,
  dialect: r.dialect,
  packet_code: r.packet_code,
  attributes: (typeof r.attributes === 'string' ? (JSON.parse(r.attributes) as [string, string][]) : r.attributes).map(([name, value]) => ({ name, value })),
  requested_by: r.requested_by,
  requested_by_username: r.requested_by_username,
  result: r.result,
  error_cause: r.error_cause,
  error_cause_name: r.error_cause === null ? null : (ERROR_CAUSES[r.error_cause] ?? null),
  error_detail: r.error_detail,
  attempts: r.attempts,
  sent_at: iso(r.sent_at),
  answered_at: iso(r.answered_at),
  created_at: iso(r.created_at)!,
})

export const selectCoaRequests = (db: Db) => db(COA_REQUESTS).select('*')

export async function loadCoaRequest(db: Db, id: string): Promise<CoaRecordWithAttributes | null> {
  const row = await selectCoaRequests(db).where({ id }).first()
  return row ? toCoaRecord(row) : null
}
