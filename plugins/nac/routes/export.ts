/**
 * GET /nac/endpoints/export: the list's filters, search and sort as an xlsx
 * or csv file through the SDK's export writer, in batches by id as the
 * sessions export (services/export-rows.ts).
 */
import { defineRoute, EXPORT_DOWNLOAD, exportReply, ErrorBody, type ExportColumn } from '../../../sdk/index.js'
import type { Endpoint } from '../api.js'
import { NAC_READ } from '../permissions.js'
import { present, type PresentedEndpoint } from '../services/present.js'
import { applyFilters, applySearch, macFilter, SORT_COLUMNS } from '../services/query.js'
import { ENDPOINTS, selectEndpoints, toEndpoint } from '../services/rows.js'
import { exportIds, rowsInOrder } from '../services/export-rows.js'
import { EndpointExportQuery, SEARCH_DOC } from '../schemas/endpoints.js'
import type { NacRouteDeps } from './deps.js'

/** The most rows one export holds. */
export const EXPORT_CEILING = 100_000

/** Machine names as headers: the import reads the same names back (services/csv.ts). */
export const EXPORT_COLUMNS: ExportColumn<PresentedEndpoint>[] = [
  { header: 'mac', key: 'mac', width: 19 },
  { header: 'description', key: 'description', width: 40 },
  { header: 'endpoint_group', key: 'endpoint_group_name', width: 24 },
  { header: 'owner', key: 'owner_username', width: 20 },
  { header: 'vendor', key: 'vendor', width: 32 },
  { header: 'locally_administered', key: 'locally_administered' },
  { header: 'device_type', key: 'device_type', width: 24 },
  { header: 'device_type_confidence', key: 'device_type_confidence' },
  { header: 'device_type_reason', key: 'device_type_reason', width: 40 },
  { header: 'first_seen_at', key: 'first_seen_at', width: 24 },
  { header: 'last_seen_at', key: 'last_seen_at', width: 24 },
  { header: 'last_nas_ip', key: 'last_nas_ip', width: 18 },
  { header: 'last_nas_port', key: 'last_nas_port', width: 24 },
  { header: 'last_auth_result', key: 'last_auth_result' },
  { header: 'created_at', key: 'created_at', width: 24 },
  { header: 'updated_at', key: 'updated_at', width: 24 },
]

export function exportRoutes(d: NacRouteDeps) {
  const { knex, users } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/endpoints/export',
      permission: NAC_READ,
      summary: 'Export endpoints',
      description: `The list's filters, search and sort, as a file: \`format\` \`xlsx\` (default) or \`csv\`; the whole filtered set up to ${EXPORT_CEILING.toLocaleString('en')} rows, and a cut export says so in \`X-Service-Export-Truncated: true\`.${SEARCH_DOC} \`X-Service-Export-Rows\` gives the number of rows; \`Content-Disposition\` names the file \`nac-endpoints-YYYYMMDD-HHMMSS.<format>\` (UTC). The header row holds the column names the import reads (\`mac\`, \`description\`, \`endpoint_group\`, \`owner\`, then read-only columns the import ignores), so an export imports back. CSV is RFC 4180 (UTF-8 with BOM, CRLF); a text cell starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a CR is prefixed with \`'\` (which the import takes off again). XLSX cells are plain values, never formulas. Times are ISO-8601 UTC.`,
      tags: ['nac'],
      download: EXPORT_DOWNLOAD,
      schema: { query: EndpointExportQuery, response: { 200: 'file', 422: ErrorBody } },
      handler: async ({ query: q }) => {
        const mac = macFilter(q)
        const order = q.sort_order ?? 'asc'
        const idsQuery = knex(ENDPOINTS).select(`${ENDPOINTS}.id`)
        applyFilters(idsQuery, q, mac)
        applySearch(idsQuery, q.search)
        const { ids, truncated } = await exportIds(idsQuery.orderBy(SORT_COLUMNS[q.sort_by ?? 'mac'], order).orderBy(`${ENDPOINTS}.id`, order), EXPORT_CEILING)
        const rows = rowsInOrder(
          ids,
          async (batch) => (await selectEndpoints(knex).whereIn('id', batch)).map(toEndpoint),
          (found: Endpoint[]) => present(knex, users, found),
        )
        return exportReply({ rows, columns: EXPORT_COLUMNS, format: q.format ?? 'xlsx', fileBase: 'nac-endpoints', rowCount: ids.length, truncated, sheetName: 'Endpoints' })
      },
    }),
  ]
}
