/**
 * /nac/sessions: 802.1X and MAB sessions from RADIUS accounting (services/sessions.ts
 * builds them), filterable, paginated, exportable with the SDK's export writer.
 */
import type { Knex } from 'knex'
import { defineRoute, EXPORT_DOWNLOAD, exportReply, ErrorBody, likeEscape, orNotFound, paginate, type ExportColumn } from '../../../sdk/index.js'
import { NAC_SESSIONS_READ } from '../permissions.js'
import { SESSION_STATE_SQL } from '../services/sessions.js'
import { exportIds, rowsInOrder } from '../services/export-rows.js'
import type { SessionTableRow } from '../tables.js'
import { SessionExportQuery, SessionListQuery, SessionListResponse, SessionParams, SessionResponse, SESSION_SEARCH_DOC, type SessionExportQuery as ExportQuery } from '../schemas/sessions.js'
import type { NacRouteDeps } from './deps.js'
import { canonicalMac } from './endpoint-writes.js'

const SESSIONS = 'nac_sessions'
/** The most rows one export holds. */
export const SESSION_EXPORT_CEILING = 100_000

type Row = SessionTableRow & { state: 'live' | 'stale' | 'ended' }
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())
const n = (v: number | string | null) => (v === null ? null : Number(v))

const toSession = (r: Row) => ({
  id: r.id,
  mac: r.mac,
  username: r.username,
  nas_ip: r.nas_ip,
  nas_port: r.nas_port,
  nas_port_type: r.nas_port_type,
  acct_session_id: r.acct_session_id,
  framed_ip: r.framed_ip,
  vlan: r.vlan,
  acl: r.acl,
  state: r.state,
  started_at: iso(r.started_at)!,
  last_update_at: iso(r.last_update_at)!,
  stopped_at: iso(r.stopped_at),
  interim_interval: r.interim_interval,
  session_time: r.session_time,
  input_octets: n(r.input_octets),
  output_octets: n(r.output_octets),
})
type Session = ReturnType<typeof toSession>

const selectSessions = (db: Knex) => db(SESSIONS).select<Row[]>(`${SESSIONS}.*`, db.raw(`${SESSION_STATE_SQL} AS state`))

const SORTS: Record<string, string> = {
  started_at: 'started_at',
  last_update_at: 'last_update_at',
  stopped_at: 'stopped_at',
  mac: 'mac',
  username: 'username',
  nas_ip: 'nas_ip',
}
const SEARCH = `(coalesce(mac, '') || ' ' || coalesce(username, '') || ' ' || nas_ip || ' ' || coalesce(nas_port, '') || ' ' || acct_session_id || ' ' || coalesce(framed_ip, '') || ' ' || coalesce(vlan, '') || ' ' || coalesce(acl, ''))`

/** The list's and the export's filters (AND), search included. */
function applySessionFilters(qb: Knex.QueryBuilder, q: Omit<ExportQuery, 'format' | 'sort_by' | 'sort_order'>): void {
  if (q.mac !== undefined) qb.where('mac', canonicalMac(q.mac))
  if (q.username !== undefined) qb.whereRaw('lower(username) = lower(?)', [q.username])
  if (q.nas_ip !== undefined) qb.where('nas_ip', q.nas_ip)
  if (q.state !== undefined) qb.whereRaw(`${SESSION_STATE_SQL} = ?`, [q.state])
  if (q.active_from !== undefined) qb.where((w) => w.whereNull('stopped_at').orWhere('stopped_at', '>=', q.active_from!))
  if (q.active_to !== undefined) qb.where('started_at', '<=', q.active_to)
  const term = q.search?.trim()
  if (term) qb.whereRaw(`${SEARCH} ILIKE ?`, [`%${likeEscape(term)}%`])
}

const COLUMNS: ExportColumn<Session>[] = [
  { header: 'mac', key: 'mac', width: 19 },
  { header: 'username', key: 'username', width: 24 },
  { header: 'nas_ip', key: 'nas_ip', width: 18 },
  { header: 'nas_port', key: 'nas_port', width: 24 },
  { header: 'nas_port_type', key: 'nas_port_type', width: 16 },
  { header: 'acct_session_id', key: 'acct_session_id', width: 24 },
  { header: 'framed_ip', key: 'framed_ip', width: 18 },
  { header: 'vlan', key: 'vlan', width: 10 },
  { header: 'acl', key: 'acl', width: 24 },
  { header: 'state', key: 'state' },
  { header: 'started_at', key: 'started_at', width: 24 },
  { header: 'last_update_at', key: 'last_update_at', width: 24 },
  { header: 'stopped_at', key: 'stopped_at', width: 24 },
  { header: 'session_time', key: 'session_time' },
  { header: 'input_octets', key: 'input_octets', width: 16 },
  { header: 'output_octets', key: 'output_octets', width: 16 },
]

export function sessionRoutes(d: NacRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/sessions/export',
      permission: NAC_SESSIONS_READ,
      summary: 'Export sessions',
      description: `The list's filters, search and sort as a file: \`format\` \`xlsx\` (default) or \`csv\`, up to ${SESSION_EXPORT_CEILING.toLocaleString('en')} rows (a cut export says so in \`X-Service-Export-Truncated: true\`); \`X-Service-Export-Rows\` gives the number of rows; the file is named \`nac-sessions-YYYYMMDD-HHMMSS.<format>\` (UTC). CSV cells starting with \`=\`, \`+\`, \`-\`, \`@\` are prefixed with \`'\`; XLSX cells are plain values.${SESSION_SEARCH_DOC}`,
      tags: ['nac'],
      download: EXPORT_DOWNLOAD,
      schema: { query: SessionExportQuery, response: { 200: 'file', 422: ErrorBody } },
      handler: async ({ query: q }) => {
        // The ids in the list's order, then the rows in batches (services/export-rows.ts): 100,000 sessions are never all in memory.
        const idsQuery = knex(SESSIONS).select(`${SESSIONS}.id`)
        applySessionFilters(idsQuery, q)
        const order = q.sort_order ?? 'desc'
        const { ids, truncated } = await exportIds(idsQuery.orderBy(SORTS[q.sort_by ?? 'started_at'], order).orderBy(`${SESSIONS}.id`, order), SESSION_EXPORT_CEILING)
        const rows = rowsInOrder(ids, (batch) => selectSessions(knex).whereIn(`${SESSIONS}.id`, batch) as Promise<Row[]>, (found) => found.map(toSession))
        return exportReply({ rows, columns: COLUMNS, format: q.format ?? 'xlsx', fileBase: 'nac-sessions', rowCount: ids.length, truncated, sheetName: 'Sessions' })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/sessions',
      permission: NAC_SESSIONS_READ,
      summary: 'List sessions',
      description: `Sessions from RADIUS accounting, newest first by default. Filters combine with AND.${SESSION_SEARCH_DOC} A malformed \`mac\` answers 422 MAC_INVALID.`,
      tags: ['nac'],
      schema: { query: SessionListQuery, response: { 200: SessionListResponse, 422: ErrorBody } },
      handler: async ({ query }) =>
        paginate(
          { ...query, search: undefined },
          {
            base: () => selectSessions(knex),
            filter: (qb) => applySessionFilters(qb, query),
            searchColumns: [],
            sortColumns: SORTS,
            defaultSort: 'started_at',
            defaultPerPage: 20,
            tieBreaker: `${SESSIONS}.id`,
            map: toSession,
          },
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/sessions/{session_id}',
      permission: NAC_SESSIONS_READ,
      summary: 'Get a session',
      tags: ['nac'],
      schema: { params: SessionParams, response: { 200: SessionResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        const r = (await selectSessions(knex).where('id', params.session_id).first()) as Row | undefined
        return toSession(orNotFound(r ?? null, 'session_id'))
      },
    }),
  ]
}
