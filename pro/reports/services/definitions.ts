/**
 * Definitions: checking what a user saves, who may see one, and the row as the API shows it.
 * A definition over a source the caller may not read does not exist for that caller: not
 * listed, 404 by id, and naming such a source answers as an unknown one would.
 */
import type { Knex } from 'knex'
import { uuidArray, type Actor, type ReportSource } from '@portcullis/sdk'
import type { ReportDeps } from '../context.js'
import { ReportErrors } from '../errors.js'
import type { Definition } from '../schemas.js'
import type { DefinitionRow, RangeKind, ReportFormat } from '../tables.js'
import { checkCron, nextOccurrence } from './cron.js'
import { isTimeZone, MAX_RANGE_DAYS } from './time.js'

/** A definition as it is about to be stored (the create body, or the stored row with a PATCH applied). */
export interface DefinitionState {
  name: string
  description: string | null
  sources: string[]
  range_kind: RangeKind
  range_from: string | null
  range_to: string | null
  device_group_id: string | null
  user_group_id: string | null
  formats: ReportFormat[]
  schedule_cron: string | null
  time_zone: string
  language: 'en' | 'ru'
  recipients: string[]
}

export const mayUse = (actor: Actor, source: ReportSource): boolean => actor.isAdmin || actor.permissions.has(source.permission)

/** The ids of the sources the actor may use. */
export function usableSourceIds(d: ReportDeps, actor: Actor): string[] {
  return d.sources.list().filter((s) => mayUse(actor, s)).map((s) => s.id)
}

/** Narrows a query of `expr` (a jsonb array of source ids) to what the actor may see: every source usable. */
export function visibleTo(qb: Knex.QueryBuilder, d: ReportDeps, actor: Actor, expr: 'sources' | "r.parameters->'sources'"): void {
  if (actor.isAdmin) return
  qb.whereRaw(`${expr} <@ ?::jsonb`, [JSON.stringify(usableSourceIds(d, actor))])
}

export function maysee(d: ReportDeps, actor: Actor, sourceIds: readonly string[]): boolean {
  if (actor.isAdmin) return true
  return sourceIds.every((id) => {
    const s = d.sources.get(id)
    return s !== undefined && mayUse(actor, s)
  })
}

/** Everything the schema cannot say, as 422s at the field; locks the groups named until `trx` ends. */
export async function checkDefinition(d: ReportDeps, actor: Actor, s: DefinitionState, trx: Knex.Transaction, scheduleGiven: boolean): Promise<void> {
  const sources: ReportSource[] = []
  for (const [i, id] of s.sources.entries()) {
    const src = d.sources.get(id)
    if (!src || !mayUse(actor, src)) throw ReportErrors.sourceUnknown({ field: `sources[${i}]`, vars: { source: id } })
    sources.push(src)
  }
  for (const [filter, value, field] of [
    ['device_group', s.device_group_id, 'device_group_id'],
    ['user_group', s.user_group_id, 'user_group_id'],
  ] as const) {
    const refuses = value ? sources.find((src) => !src.filters.includes(filter)) : undefined
    if (refuses) throw ReportErrors.filterUnsupported({ field, vars: { source: refuses.id, filter: field } })
  }
  if (s.range_kind === 'custom') {
    if (!s.range_from) throw ReportErrors.rangeIncomplete({ field: 'time_range.from' })
    if (!s.range_to) throw ReportErrors.rangeIncomplete({ field: 'time_range.to' })
    const ms = Date.parse(s.range_to) - Date.parse(s.range_from)
    if (ms <= 0) throw ReportErrors.rangeReversed({ field: 'time_range.to' })
    const days = Math.ceil(ms / 86_400_000)
    if (days > MAX_RANGE_DAYS) throw ReportErrors.rangeTooLong({ field: 'time_range.to', vars: { days, max: MAX_RANGE_DAYS } })
  } else if (s.range_from || s.range_to) throw ReportErrors.rangeIncomplete({ field: s.range_from ? 'time_range.from' : 'time_range.to' })
  const zoneField = scheduleGiven ? 'schedule.time_zone' : 'time_zone'
  if (!isTimeZone(s.time_zone)) throw ReportErrors.timeZoneUnknown({ field: zoneField, vars: { zone: s.time_zone } })
  if (s.schedule_cron !== null) checkCron(s.schedule_cron, s.time_zone, 'schedule.cron')
  if (s.device_group_id) {
    const found = d.inventory ? await d.inventory.references.device_group.lockExisting([s.device_group_id], trx) : new Set<string>()
    if (!found.has(s.device_group_id.toLowerCase())) throw ReportErrors.groupUnknown({ field: 'device_group_id' })
  }
  if (s.user_group_id) {
    const found = await d.identity.references.user_group.lockExisting([s.user_group_id], trx)
    if (!found.has(s.user_group_id.toLowerCase())) throw ReportErrors.groupUnknown({ field: 'user_group_id' })
  }
}

/** The schedule's next occurrence after `now`, or null (no schedule). */
export function nextRunOf(s: Pick<DefinitionState, 'schedule_cron' | 'time_zone'>, now = new Date()): Date | null {
  return s.schedule_cron ? nextOccurrence(s.schedule_cron, s.time_zone, now) : null
}

const iso = (x: Date | null) => (x ? new Date(x).toISOString() : null)

export async function toDefinitions(d: ReportDeps, rows: DefinitionRow[], db: Knex | Knex.Transaction): Promise<Definition[]> {
  const owners = await d.identity.references.user.names(
    rows.map((r) => r.owner_id).filter((x): x is string => x !== null),
    db,
  )
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    sources: r.sources,
    time_range: r.range_kind === 'custom' ? { relative: r.range_kind, from: iso(r.range_from), to: iso(r.range_to) } : { relative: r.range_kind },
    device_group_id: r.device_group_id,
    user_group_id: r.user_group_id,
    formats: r.formats,
    time_zone: r.time_zone,
    schedule: r.schedule_cron ? { cron: r.schedule_cron, time_zone: r.time_zone } : null,
    recipients: r.recipients,
    language: r.language,
    owner_id: r.owner_id,
    owner_name: r.owner_id ? (owners.get(r.owner_id.toLowerCase()) ?? null) : null,
    next_run_at: iso(r.next_run_at),
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  }))
}

/** The groups and users definitions refer to: a group in use cannot be deleted; a deleted owner leaves the definition ownerless (its schedule then fails). */
export function registerReferenceGuards(d: ReportDeps): void {
  const referrers = (column: 'device_group_id' | 'user_group_id') => async (ids: readonly string[], db: Knex | Knex.Transaction) =>
    ((await db('reports_definitions').whereRaw(`${column} = ANY(?::uuid[])`, [uuidArray(ids)]).select('id', 'name')) as { id: string; name: string }[]).map((r) => ({
      type: 'report_definition',
      id: r.id,
      name: r.name,
    }))
  d.identity.references.user_group.registerGuard({ onDelete: 'restrict', referrers: referrers('user_group_id') })
  d.inventory?.references.device_group.registerGuard({ onDelete: 'restrict', referrers: referrers('device_group_id') })
  d.identity.references.user.registerGuard({
    onDelete: 'clear',
    referrers: async (ids, db) =>
      ((await db('reports_definitions').whereRaw('owner_id = ANY(?::uuid[])', [uuidArray(ids)]).select('id', 'name')) as { id: string; name: string }[]).map((r) => ({ type: 'report_definition', id: r.id, name: r.name })),
    clear: async (ids, trx) => {
      await trx('reports_definitions').whereRaw('owner_id = ANY(?::uuid[])', [uuidArray(ids)]).update({ owner_id: null })
    },
  })
}
