/**
 * The endpoint import: a CSV file (services/csv.ts) checked row by row, then
 * written in one savepoint. Design (docs/nac.md, Import):
 *
 * - Every row is judged first: created (a new MAC), updated (an existing MAC
 *   whose given columns differ), unchanged, skipped (existing, and
 *   `update_existing=false`) or refused with the code, field and message the
 *   API would answer for the same value. The report lists every row.
 * - `atomic` (the default): one refused row and nothing is written. Otherwise
 *   the rows that passed are written and the refused ones reported. `dry_run`
 *   judges and writes nothing.
 * - A column present writes its value to every row (an empty cell clears the
 *   description, the group or the owner); a column left out keeps what an
 *   existing endpoint has.
 * - Races: the groups and owners named are locked (FOR KEY SHARE) before the
 *   judgement, the existing endpoints FOR UPDATE; a MAC inserted meanwhile by
 *   someone else loses on the unique index and its row is refused
 *   (ENDPOINT_MAC_TAKEN), which in atomic mode undoes the whole savepoint.
 */
import type { Knex } from 'knex'
import { isPortcullisError, neutralizeFormula, TEXT_PATTERN, textArray, type IdentityService, type PortcullisError, type ReferenceTarget } from '../../../sdk/index.js'
import { NacErrors as E, macError } from '../errors.js'
import type { CsvFile, CsvRow } from './csv.js'
import { parseMac } from './mac.js'
import { ouiVendor } from './oui.js'
import { ENDPOINTS, GROUPS } from './rows.js'

export type Outcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'refused'

export interface RowResult {
  row: number
  line: number
  mac: string | null
  outcome: Outcome
  endpoint_id: string | null
  code: string | null
  field: string | null
  detail: string | null
}

export interface ImportOptions {
  atomic: boolean
  dryRun: boolean
  updateExisting: boolean
}

export interface ImportDeps {
  identity: IdentityService
  users: ReferenceTarget
  /** Translates a refusal into the request's language. */
  t(key: string, vars?: Record<string, unknown>): string
}

type Values = { description?: string | null; endpoint_group_id?: string | null; owner_user_id?: string | null }
interface Planned {
  r: RowResult
  mac: string
  values: Values
  existing: { id: string; description: string | null; endpoint_group_id: string | null; owner_user_id: string | null } | null
}

export interface ImportResult {
  applied: boolean
  rows: RowResult[]
  /** What the audit entry records: ids and MACs created, and each update's before and after. */
  created: { id: string; mac: string }[]
  updated: { id: string; mac: string; before: Values; after: Values }[]
}

const TEXT = new RegExp(TEXT_PATTERN)
/** The export prefixes `'` to a cell a spreadsheet would evaluate (sdk/export.ts): an import takes it off again. */
const unneutralize = (s: string) => (s.startsWith("'") && neutralizeFormula(s.slice(1)) === s ? s.slice(1) : s)

class Refusal {
  constructor(readonly error: PortcullisError) {}
}
/** Thrown inside the savepoint to undo it; never leaves runImport. */
class Undo extends Error {}

export async function runImport(trx: Knex.Transaction, file: CsvFile, o: ImportOptions, d: ImportDeps): Promise<ImportResult> {
  const refuse = (r: RowResult, e: PortcullisError): RowResult =>
    Object.assign(r, { outcome: 'refused' as const, code: e.code, field: e.field, detail: d.t(e.messageKey, e.vars), endpoint_id: r.endpoint_id })

  // The groups and owners the file names, each looked up (and locked) once.
  const has = (c: string) => (file.columns as readonly string[]).includes(c)
  const groupNames = has('endpoint_group') ? [...new Set(file.rows.map((r) => (r.cells.endpoint_group ?? '').trim().toLowerCase()).filter(Boolean))] : []
  const groups = new Map<string, string>()
  if (groupNames.length) {
    const rows = await trx(GROUPS).whereRaw('lower(name) = ANY(?::text[])', [textArray(groupNames)]).forKeyShare().select('id', 'name')
    for (const g of rows) groups.set(g.name.toLowerCase(), g.id)
  }
  const owners = new Map<string, string>()
  if (has('owner')) {
    const names = [...new Set(file.rows.map((r) => (r.cells.owner ?? '').trim()).filter(Boolean))]
    const found = new Map<string, string>()
    for (const n of names) {
      const u = n.length <= 128 ? await d.identity.findUser({ username: n }, trx) : null
      if (u) found.set(n.toLowerCase(), u.id)
    }
    const locked = await d.users.lockExisting([...found.values()], trx)
    for (const [n, id] of found) if (locked.has(id.toLowerCase())) owners.set(n, id)
  }

  // Judge each row on its own.
  const planned: Planned[] = []
  const rows: RowResult[] = []
  const firstRow = new Map<string, number>()
  for (const row of file.rows) {
    const cell = row.cells.mac ?? ''
    const parsed = parseMac(cell)
    const r: RowResult = { row: row.row, line: row.line, mac: parsed.ok ? parsed.mac : cell.slice(0, 64) || null, outcome: 'refused', endpoint_id: null, code: null, field: null, detail: null }
    rows.push(r)
    try {
      const p = judge(row, file, groups, owners)
      r.mac = p.mac
      const first = firstRow.get(p.mac)
      if (first !== undefined) throw new Refusal(E.importDuplicate({ field: 'mac', vars: { mac: p.mac, row: first } }))
      firstRow.set(p.mac, row.row)
      planned.push({ r, mac: p.mac, values: p.values, existing: null })
    } catch (e) {
      if (e instanceof Refusal) refuse(r, e.error)
      else if (isPortcullisError(e)) refuse(r, e)
      else throw e
    }
  }

  // The endpoints that exist, locked for the update.
  const byMac = new Map(planned.map((p) => [p.mac, p]))
  for (let i = 0; i < planned.length; i += 1000) {
    const macs = planned.slice(i, i + 1000).map((p) => p.mac)
    const q = trx(ENDPOINTS).whereRaw('mac = ANY(?::text[])', [textArray(macs)]).select('id', 'mac', 'description', 'endpoint_group_id', 'owner_user_id')
    for (const e of await (o.dryRun ? q : q.forUpdate())) byMac.get(e.mac)!.existing = e
  }
  const creates: Planned[] = []
  const updates: (Planned & { changed: Values })[] = []
  for (const p of planned) {
    if (!p.existing) {
      p.r.outcome = 'created'
      creates.push(p)
      continue
    }
    p.r.endpoint_id = p.existing.id
    if (!o.updateExisting) {
      p.r.outcome = 'skipped'
      continue
    }
    const changed = Object.fromEntries(Object.entries(p.values).filter(([k, v]) => p.existing![k as keyof Values] !== v)) as Values
    if (Object.keys(changed).length) {
      p.r.outcome = 'updated'
      updates.push({ ...p, changed })
    } else p.r.outcome = 'unchanged'
  }

  const refused = () => rows.some((r) => r.outcome === 'refused')
  const result: ImportResult = { applied: false, rows, created: [], updated: [] }
  if (o.dryRun || (o.atomic && refused())) {
    if (o.dryRun) for (const p of creates) p.r.endpoint_id = null
    return result
  }
  try {
    await trx.transaction(async (sp) => {
      for (let i = 0; i < creates.length; i += 500) {
        const chunk = creates.slice(i, i + 500)
        const inserted = await sp(ENDPOINTS)
          .insert(chunk.map((p) => ({ mac: p.mac, vendor: ouiVendor(p.mac), description: p.values.description ?? null, endpoint_group_id: p.values.endpoint_group_id ?? null, owner_user_id: p.values.owner_user_id ?? null })))
          .onConflict('mac')
          .ignore()
          .returning(['id', 'mac'])
        const ids = new Map(inserted.map((x) => [x.mac, x.id]))
        for (const p of chunk) {
          const id = ids.get(p.mac)
          if (id) {
            p.r.endpoint_id = id
            result.created.push({ id, mac: p.mac })
          } else refuse(p.r, E.macTaken({ field: 'mac', vars: { mac: p.mac } }))
        }
      }
      if (o.atomic && refused()) throw new Undo()
      for (let i = 0; i < updates.length; i += 500) await updateChunk(sp, updates.slice(i, i + 500))
      for (const u of updates) {
        const before = Object.fromEntries(Object.keys(u.changed).map((k) => [k, u.existing![k as keyof Values]])) as Values
        result.updated.push({ id: u.existing!.id, mac: u.mac, before, after: u.changed })
      }
    })
    result.applied = true
  } catch (e) {
    if (!(e instanceof Undo)) throw e
    for (const p of creates) if (p.r.outcome === 'created') p.r.endpoint_id = null
    result.created = []
  }
  return result
}

/**
 * Up to 500 updates in one statement (one round trip, not one per row): each row says which
 * columns it sets, so a column a row leaves alone keeps its value.
 */
async function updateChunk(sp: Knex.Transaction, chunk: { existing: Planned['existing']; changed: Values }[]): Promise<void> {
  const cols = ['description', 'endpoint_group_id', 'owner_user_id'] as const
  const rows = chunk.map(() => '(?::uuid, ?::boolean, ?::text, ?::boolean, ?::uuid, ?::boolean, ?::uuid)').join(', ')
  const bindings = chunk.flatMap((u) => [u.existing!.id, ...cols.flatMap((c) => [c in u.changed, u.changed[c] ?? null])])
  await sp.raw(
    `UPDATE ${ENDPOINTS} AS e SET
       description = CASE WHEN v.set_description THEN v.description ELSE e.description END,
       endpoint_group_id = CASE WHEN v.set_group THEN v.endpoint_group_id ELSE e.endpoint_group_id END,
       endpoint_group_placed = CASE WHEN v.set_group THEN false ELSE e.endpoint_group_placed END,
       owner_user_id = CASE WHEN v.set_owner THEN v.owner_user_id ELSE e.owner_user_id END,
       updated_at = now()
     FROM (VALUES ${rows}) AS v(id, set_description, description, set_group, endpoint_group_id, set_owner, owner_user_id)
     WHERE e.id = v.id`,
    bindings,
  )
}

/** One row's MAC and the values of its given columns, or the refusal of its first bad cell. */
function judge(row: CsvRow, file: CsvFile, groups: Map<string, string>, owners: Map<string, string>): { mac: string; values: Values } {
  if (row.width !== file.expectedWidth) throw new Refusal(E.importRowWidth({ field: null, vars: { cells: row.width, expected: file.expectedWidth } }))
  const text = row.cells.mac ?? ''
  const p = parseMac(text)
  if (!p.ok) throw new Refusal(macError(p.reason)({ field: 'mac', vars: { value: text.slice(0, 64) } }))
  const values: Values = {}
  if (row.cells.description !== undefined) {
    const desc = unneutralize(row.cells.description.trim())
    if (desc.length > 500) throw new Refusal(E.importRowDescriptionLong({ field: 'description', vars: { max: 500 } }))
    if (!TEXT.test(desc)) throw new Refusal(E.importRowDescriptionText({ field: 'description' }))
    values.description = desc || null
  }
  if (row.cells.endpoint_group !== undefined) {
    const name = row.cells.endpoint_group.trim()
    const id = name ? groups.get(name.toLowerCase()) : null
    if (id === undefined) throw new Refusal(E.groupNameNotFound({ field: 'endpoint_group', vars: { name: name.slice(0, 64) } }))
    values.endpoint_group_id = id
  }
  if (row.cells.owner !== undefined) {
    const name = row.cells.owner.trim()
    const id = name ? owners.get(name.toLowerCase()) : null
    if (id === undefined) throw new Refusal(E.ownerNameNotFound({ field: 'owner', vars: { name: name.slice(0, 64) } }))
    values.owner_user_id = id
  }
  return { mac: p.mac, values }
}

/** A text[] literal (one parameter, read alike by pg and PGlite): each element quoted, `"` and `\` escaped. */
