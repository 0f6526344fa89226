import { Nullable, StringEnum, Type, Uuid } from '../../../sdk/index.js'
import { IMPORT_MAX_ROWS } from '../services/csv.js'

export const EndpointImportQuery = Type.Object(
  {
    atomic: Type.Optional(Type.Boolean({ default: true, description: '`true` (default): one refused row and nothing is written (`applied: false`); the report still judges every row. `false`: the rows that pass are written, the refused ones reported.' })),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Judge every row and write nothing (`applied: false`).' })),
    update_existing: Type.Optional(Type.Boolean({ default: true, description: '`false`: a row whose MAC exists is `skipped`, never changed.' })),
  },
  { additionalProperties: false },
)

const RowReport = Type.Object(
  {
    row: Type.Integer({ minimum: 1, description: 'The data row: 1 is the first after the header.' }),
    line: Type.Integer({ minimum: 1, description: 'The file line the row ends on (the same line unless a quoted field spans several).' }),
    mac: Nullable(Type.String({ description: 'Canonical when the cell was a MAC; else the cell as given (at most 64 characters).' })),
    outcome: StringEnum(['created', 'updated', 'unchanged', 'skipped', 'refused'] as const),
    endpoint_id: Nullable(Uuid({ description: 'The endpoint created, updated, left unchanged or skipped; null when refused, or when nothing was written (dry run, atomic refusal) for a row that would have created one.' })),
    code: Nullable(Type.String({ description: 'For a refused row: the code the API answers for the same value (MAC_INVALID, MAC_GROUP_ADDRESS, MAC_ZERO, ENDPOINT_MAC_TAKEN, DUPLICATE_IN_FILE, REFERENCE_NOT_FOUND, IMPORT_ROW_INVALID).' })),
    field: Nullable(Type.String({ description: 'For a refused row: the column at fault (`mac`, `description`, `endpoint_group`, `owner`), or null for the row as a whole.' })),
    detail: Nullable(Type.String({ description: 'For a refused row: why, in the language of Accept-Language.' })),
  },
  { title: 'EndpointImportRow', additionalProperties: false },
)

const count = (description: string) => Type.Integer({ minimum: 0, description })

export const EndpointImportReport = Type.Object(
  {
    applied: Type.Boolean({ description: 'Whether anything was written: false for a dry run, and for an atomic import with a refused row.' }),
    atomic: Type.Boolean(),
    dry_run: Type.Boolean(),
    rows: count(`Data rows in the file (at most ${IMPORT_MAX_ROWS.toLocaleString('en')}).`),
    created: count('Rows that created an endpoint (or would have, when `applied` is false).'),
    updated: count('Rows that changed an existing endpoint (or would have).'),
    unchanged: count('Rows whose endpoint already had those values.'),
    skipped: count('Rows whose MAC exists, with `update_existing=false`.'),
    refused: count('Rows refused; each says why.'),
    columns: Type.Array(Type.String(), { description: 'The columns the import wrote from.' }),
    ignored_columns: Type.Array(Type.String(), { description: "Columns of the export that an import does not write (the vendor, what the network saw, profiling's verdict)." }),
    results: Type.Array(RowReport, { description: 'Every data row, in file order.' }),
  },
  { title: 'EndpointImportReport', additionalProperties: false },
)
