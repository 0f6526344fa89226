/** POST /devices/import: a CSV file of devices, judged row by row by the code of POST and PUT /devices. */
import { CsvImportQuery, ImportErrors, csvImportReport, defineRoute, ErrorBody, importCounts, readCsvImport, runCsvImport } from '../../../sdk/index.js'
import { INVENTORY_WRITE } from '../permissions.js'
import { DEVICE_IGNORED_COLUMNS, DEVICE_IMPORT_COLUMNS, DEVICE_IMPORT_MAX_BYTES, DEVICE_IMPORT_MAX_ROWS, deviceColumnOf, judgeDeviceRow } from '../services/device-import.js'
import type { InventoryRouteDeps } from './deps.js'

export const DeviceImportReport = csvImportReport('DeviceImportReport', 'name', 'DEVICE_NAME_TAKEN, ADDRESS_INVALID, ADDRESS_HOST_BITS, ADDRESS_TAKEN, REFERENCE_NOT_FOUND')

const DESCRIPTION = `A CSV file (RFC 4180, UTF-8, a byte-order mark allowed, at most ${DEVICE_IMPORT_MAX_BYTES / 1024 / 1024} MiB and ${DEVICE_IMPORT_MAX_ROWS.toLocaleString('en')} data rows). The first line names the columns, in any order and letter case: \`name\` (required: a new name creates a device, an existing one, case-insensitively, changes it), \`address\` (required for a new device), \`device_group\` (a group's name), \`vendor\`, \`model\`, \`description\`, \`tacacs_key\`, \`radius_secret\`, \`enabled\` (true/false, yes/no, 1/0). Each row is checked and written by the same code as POST /devices (a new name) or PUT /devices/{device_id} (an existing one), so a bad value is refused with the code, column and message those routes answer. A column left out keeps what an existing device has; an empty cell clears the vendor, model, description or group. The keys are write-only: an empty key cell keeps the device's key (remove one with PUT and \`null\`), a key is never repeated in the report or the audit trail, and a key equal to the device's is no change. The list's read-only fields (${DEVICE_IGNORED_COLUMNS.map((c) => `\`${c}\``).join(', ')}) are accepted and ignored. Any other column, a repeated column, no \`name\` column, a file that is not CSV or UTF-8, or too many rows: 422 IMPORT_INVALID and nothing written. Otherwise 200 with a report of every row (created, updated, unchanged or refused). Atomic by default: one refused row and nothing is written (\`applied: false\`); \`atomic=false\` writes the rows that pass; \`dry_run=true\` judges every row and writes nothing. One audit entry (\`device.import\`) lists every device created and changed (which keys were written, never their values).`

export function deviceImportRoutes(d: InventoryRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/devices/import',
      permission: INVENTORY_WRITE,
      summary: 'Import network devices from CSV',
      description: DESCRIPTION,
      tags: ['inventory'],
      rawBody: { mediaTypes: ['text/csv'], maxBytes: DEVICE_IMPORT_MAX_BYTES, description: 'The CSV file: a header line, then one device a row.' },
      schema: { query: CsvImportQuery, response: { 200: DeviceImportReport, 422: ErrorBody } },
      handler: async (req) => {
        const file = readCsvImport(req.rawBody ?? Buffer.alloc(0), { columns: DEVICE_IMPORT_COLUMNS, key: 'name', ignored: DEVICE_IGNORED_COLUMNS, maxRows: DEVICE_IMPORT_MAX_ROWS })
        const o = { atomic: req.query.atomic ?? true, dryRun: req.query.dry_run ?? false }
        return req.transaction(async (trx) => {
          const changed: { id: string; secrets_changed: string[] }[] = []
          const firstRow = new Map<string, number>()
          const r = await runCsvImport(trx, file, o, {
            t: req.t,
            key: 'name',
            fieldOf: deviceColumnOf,
            judge: async (row, sp) => {
              // A name repeated in the file would change the device an earlier row wrote: refused, naming that row.
              const name = (row.cells.name ?? '').trim().toLowerCase()
              const first = firstRow.get(name)
              if (first !== undefined) throw ImportErrors.duplicate({ field: 'name', vars: { row: first, key: (row.cells.name ?? '').trim().slice(0, 64) } })
              const v = await judgeDeviceRow(sp, row, d, req.checkBody)
              const keys = (['tacacs_key', 'radius_secret'] as const).filter((k) => (row.cells[k] ?? '').trim() !== '')
              if (name) firstRow.set(name, row.row)
              if (v.id && v.outcome !== 'unchanged') changed.push({ id: v.id, secrets_changed: keys })
              return v
            },
          })
          const counts = importCounts(r.results)
          if (r.applied && (counts.created || counts.updated)) {
            const written = (x: 'created' | 'updated') => r.results.filter((row) => row.outcome === x).map((row) => ({ id: row.id, name: row.key, secrets_written: changed.find((c) => c.id === row.id)?.secrets_changed ?? [] }))
            await req.audit({ action: 'device.import', resourceType: 'device', resourceId: null, after: { atomic: o.atomic, ...counts, created: written('created'), updated: written('updated') } }, trx)
          }
          return { applied: r.applied, atomic: o.atomic, dry_run: o.dryRun, ...counts, columns: [...file.columns], ignored_columns: file.ignored, results: r.results }
        })
      },
    }),
  ]
}
