/**
 * Search over the latest configuration of every tracked device (design31 §6). The new-version hook
 * keeps `ncm_latest_lines` as the device's latest masked text, one row a line, with `line_lc`
 * lower-cased here in JavaScript so both engines compare the same bytes. Only masked text is
 * searched: a search cannot be used to guess a secret.
 *
 * `contains`: the term anywhere in a line. `line`: a whole line, indentation and trailing blanks
 * ignored: `ip http server` finds that line and not `no ip http server`. Both case-insensitive. The
 * `LIKE '%term%'` in both is what the trigram index (migration 0002) answers; `line` then
 * re-checks the trimmed line.
 */
import type { Knex } from 'knex'
import { likeEscape, uuidArray } from '../../../sdk/index.js'
import { NcmErrors } from '../errors.js'
import type { NcmContext } from './context.js'
import type { NewVersionHook } from './hooks.js'

/** The most devices one search counts; past it the answer says `total_capped`. */
export const SEARCH_MAX_DEVICES = 1000
/** The matching lines shown per device (all of them are counted). */
export const SEARCH_LINES_PER_DEVICE = 5
const INSERT_ROWS = 1000

/** Spaces and tabs: what `line` ignores at either end, the same set as the SQL btrim below. */
const trimBlanks = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '')
/** PostgreSQL text holds no NUL. */
const storable = (s: string) => s.replace(/\u0000/g, '\uFFFD')

/** Replaces the device's latest lines with those of `masked`, in the ingest's transaction. */
export async function replaceLatestLines(trx: Knex.Transaction, deviceId: string, masked: string): Promise<void> {
  await trx('ncm_latest_lines').where({ device_id: deviceId }).delete()
  const lines = masked === '' ? [] : masked.replace(/\n$/, '').split('\n')
  for (let i = 0; i < lines.length; i += INSERT_ROWS) {
    const rows = lines.slice(i, i + INSERT_ROWS).map((l, k) => {
      const line = storable(l)
      return { device_id: deviceId, n: i + k + 1, line, line_lc: line.toLowerCase() }
    })
    await trx('ncm_latest_lines').insert(rows)
  }
}

export const latestLinesHook: NewVersionHook = async (trx, v) => {
  await replaceLatestLines(trx, v.deviceId, v.masked)
}

export interface SearchQuery {
  q: string
  match?: 'contains' | 'line'
  device_group_id?: string
  page?: number
  per_page?: number
}

/** The WHERE of a search, with its bindings. */
function matcher(q: SearchQuery): { sql: string; bindings: string[] } {
  const term = storable(q.match === 'line' ? trimBlanks(q.q) : q.q).toLowerCase()
  const like = { sql: `line_lc LIKE ? ESCAPE '\\'`, bindings: [`%${likeEscape(term)}%`] }
  if (q.match !== 'line') return like
  return { sql: `${like.sql} AND btrim(line_lc, E' \\t') = ?`, bindings: [...like.bindings, term] }
}

export async function searchLatest(c: NcmContext, q: SearchQuery) {
  const db = c.database.knex
  const page = q.page ?? 1
  const perPage = q.per_page ?? 50
  let only: string[] | null = null
  if (q.device_group_id) {
    if (!(await c.inventory.getGroup(q.device_group_id))) throw NcmErrors.groupNotFound({ field: 'device_group_id' })
    const groups = new Set(await c.inventory.groupDescendants(q.device_group_id))
    only = (await c.inventory.listDevices()).filter((d) => d.device_group_id !== null && groups.has(d.device_group_id)).map((d) => d.id)
  }
  const m = matcher(q)
  const empty = { items: [], total: 0, total_capped: false, page, per_page: perPage, pages: 0 }
  if (only && !only.length) return empty
  const within = only ? { sql: ' AND device_id = ANY(?::uuid[])', bindings: [uuidArray(only)] } : { sql: '', bindings: [] }
  // The matching devices with their counts, at most SEARCH_MAX_DEVICES + 1 (to know there were more).
  const counted = (
    await db.raw<{ rows: { device_id: string; match_count: number | string }[] }>(
      `SELECT device_id, count(*) AS match_count FROM ncm_latest_lines WHERE ${m.sql}${within.sql} GROUP BY device_id ORDER BY device_id LIMIT ?`,
      [...m.bindings, ...within.bindings, SEARCH_MAX_DEVICES + 1],
    )
  ).rows
  if (!counted.length) return empty
  const capped = counted.length > SEARCH_MAX_DEVICES
  const found = counted.slice(0, SEARCH_MAX_DEVICES)
  const names = await c.inventory.references.device.names(
    found.map((r) => r.device_id),
    db,
  )
  const nameOf = (id: string) => names.get(id) ?? ''
  // By name, then id: plain code-unit order, the same on every engine and locale.
  found.sort((a, b) => (nameOf(a.device_id) < nameOf(b.device_id) ? -1 : nameOf(a.device_id) > nameOf(b.device_id) ? 1 : a.device_id < b.device_id ? -1 : 1))
  const onPage = found.slice((page - 1) * perPage, page * perPage)
  const ids = onPage.map((r) => r.device_id)
  // Per device, its first matching lines by number: the primary key (device_id, n) walked in order and
  // stopped at the fifth match, never the term's index over every device (a common term matches millions):
  // `(line_lc || '')` is not the indexed expression, so the planner cannot take that index here.
  const lines = ids.length
    ? (
        await db.raw<{ rows: { device_id: string; n: number; line: string }[] }>(
          `SELECT d.id AS device_id, l.n, l.line FROM unnest(?::uuid[]) AS d(id)
             CROSS JOIN LATERAL (SELECT n, line FROM ncm_latest_lines WHERE device_id = d.id AND ${m.sql.replace(/^line_lc /, "(line_lc || '') ")} ORDER BY n LIMIT ?) l
            ORDER BY d.id, l.n`,
          [uuidArray(ids), ...m.bindings, SEARCH_LINES_PER_DEVICE],
        )
      ).rows
    : []
  const latest = new Map((ids.length ? await db('ncm_devices').whereIn('device_id', ids).select('device_id', 'latest_version_id') : []).map((r) => [r.device_id, r.latest_version_id]))
  const byDevice = new Map<string, { n: number; line: string }[]>()
  for (const l of lines) {
    const list = byDevice.get(l.device_id) ?? []
    list.push({ n: Number(l.n), line: l.line })
    byDevice.set(l.device_id, list)
  }
  return {
    items: onPage.map((r) => ({
      device_id: r.device_id,
      device_name: names.get(r.device_id) ?? null,
      version_id: latest.get(r.device_id) ?? null,
      match_count: Number(r.match_count),
      lines: byDevice.get(r.device_id) ?? [],
    })),
    total: found.length,
    total_capped: capped,
    page,
    per_page: perPage,
    pages: Math.ceil(found.length / perPage),
  }
}
