/** POST /nac/endpoints/import: a CSV file of endpoints, with a report of every row (services/import.ts). */
import { defineRoute, ErrorBody } from '../../../sdk/index.js'
import { NAC_WRITE } from '../permissions.js'
import { IGNORED_COLUMNS, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, readCsv } from '../services/csv.js'
import { runImport, type Outcome } from '../services/import.js'
import { EndpointImportQuery, EndpointImportReport } from '../schemas/import.js'
import { MAC_NOTATIONS } from '../schemas/common.js'
import type { NacRouteDeps } from './deps.js'

const DESCRIPTION = `A CSV file (RFC 4180, UTF-8, a byte-order mark allowed, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB and ${IMPORT_MAX_ROWS.toLocaleString('en')} data rows). The first line names the columns, in any order and letter case: \`mac\` (required; ${MAC_NOTATIONS}), \`description\`, \`endpoint_group\` (a group's name), \`owner\` (a username). A column left out keeps what an existing endpoint has; a column present writes its value, an empty cell clearing it. The export's other columns (${IGNORED_COLUMNS.map((c) => `\`${c}\``).join(', ')}) are accepted and ignored, so an export imports back. Any other column, a repeated column, no \`mac\` column, a file that is not CSV or UTF-8, or too many rows: 422 IMPORT_INVALID and nothing written. Otherwise 200 with a report of every row: created, updated, unchanged, skipped or refused (with the code, column and message the API answers for the same value; a MAC repeated in the file is refused at its second row, DUPLICATE_IN_FILE). Atomic by default: one refused row and nothing is written (\`applied: false\`); \`atomic=false\` writes the rows that pass. One audit entry (\`endpoint.import\`) lists every endpoint created and every change made. Endpoints whose group changed get a reauthenticate CoA after the commit, as with PUT (setting \`nac.coa_on_change\`).`

export function importRoutes(d: NacRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/nac/endpoints/import',
      permission: NAC_WRITE,
      summary: 'Import endpoints from CSV',
      description: DESCRIPTION,
      tags: ['nac'],
      rawBody: { mediaTypes: ['text/csv'], maxBytes: IMPORT_MAX_BYTES, description: 'The CSV file: a header line, then one endpoint a row.' },
      schema: { query: EndpointImportQuery, response: { 200: EndpointImportReport, 422: ErrorBody } },
      handler: async (req) => {
        const file = readCsv(req.rawBody ?? Buffer.alloc(0))
        const o = { atomic: req.query.atomic ?? true, dryRun: req.query.dry_run ?? false, updateExisting: req.query.update_existing ?? true }
        let moved: { id: string; before: string | null; after: string | null }[] = []
        const report = await req.transaction(async (trx) => {
          const r = await runImport(trx, file, o, { identity: d.identity, users: d.users, t: (k, v) => req.t(k, v) })
          const n = (x: Outcome) => r.rows.filter((row) => row.outcome === x).length
          if (r.applied && (r.created.length || r.updated.length)) {
            await req.audit(
              { action: 'endpoint.import', resourceType: 'endpoint', resourceId: null, after: { atomic: o.atomic, rows: r.rows.length, refused: n('refused'), created: r.created, updated: r.updated } },
              trx,
            )
          }
          if (r.applied) moved = r.updated.filter((u) => 'endpoint_group_id' in u.after).map((u) => ({ id: u.id, before: u.before.endpoint_group_id ?? null, after: u.after.endpoint_group_id ?? null }))
          return {
            applied: r.applied,
            atomic: o.atomic,
            dry_run: o.dryRun,
            rows: r.rows.length,
            created: n('created'),
            updated: n('updated'),
            unchanged: n('unchanged'),
            skipped: n('skipped'),
            refused: n('refused'),
            columns: [...file.columns],
            ignored_columns: file.ignored,
            results: r.rows,
          }
        })
        // A group changed by the import is an authorization change (the CoA sender acts on it), told after the commit.
        if (moved.length) {
          const rows = new Map((await d.knex('nac_endpoints').whereIn('id', moved.map((m) => m.id)).select('id', 'mac', 'device_type', 'last_nas_ip', 'last_nas_port')).map((r) => [r.id, r]))
          await d.events.emit(
            moved.flatMap((m) => {
              const e = rows.get(m.id)
              if (!e) return []
              return [{ endpoint_id: m.id, mac: e.mac, cause: 'admin' as const, before: { device_type: e.device_type, endpoint_group_id: m.before }, after: { device_type: e.device_type, endpoint_group_id: m.after }, last_nas_ip: e.last_nas_ip, last_nas_port: e.last_nas_port }]
            }),
          )
        }
        return report
      },
    }),
  ]
}

