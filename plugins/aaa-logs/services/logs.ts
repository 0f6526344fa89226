/**
 * The five log kinds as the API shows them: their tables, columns, filters,
 * sort names, search expression and export columns, and the one query builder
 * the list, export and get-one routes share.
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import { likeEscape, type ExportColumn } from '../../../sdk/index.js'
import { RADIUS_REJECT_REASONS } from '../../../sdk/logs/freeradius.js'
import { LOG_TABLE, type LogKind, type LogTable } from '../api.js'
import { AaaLogsErrors } from '../errors.js'
import type { RadiusAcctTable, RadiusAuthTable, TacacsAcctTable, TacacsAuthnTable, TacacsAuthzTable } from '../tables.js'

type ColumnsOf<T> = T extends { columns: infer C } ? keyof C & string : never
/** A column of any log kind (tables.ts): the kinds below name only these, so a renamed column breaks the build. */
export type LogColumn = ColumnsOf<typeof TacacsAuthnTable | typeof TacacsAuthzTable | typeof TacacsAcctTable | typeof RadiusAuthTable | typeof RadiusAcctTable>

export interface KindDef {
  kind: LogKind
  /** Under /aaa/logs/. */
  path: string
  /** Export file name stem. */
  fileBase: string
  /** Schema name stem: `TacacsAuthn` → TacacsAuthnLogResponse, TacacsAuthnLogListResponse. */
  schemaStem: string
  summary: string
  table: LogTable
  /** Kind-specific filters with a closed set of values. */
  enumFilters: Partial<Record<LogColumn, readonly string[]>>
  /** Kind-specific filters matched exactly. */
  textFilters: readonly LogColumn[]
  sortBy: readonly LogColumn[]
  /** Text columns `search` looks in (one expression, served by a trigram index where pg_trgm exists). */
  searchColumns: readonly LogColumn[]
  /** The kind's own columns, in order, after the common ones. */
  columns: readonly LogColumn[]
}

export const COMMON_COLUMNS = ['id', 'timestamp', 'username', 'nas_ip', 'node_id', 'device_name', 'client_address', 'session_id'] as const
export const TRAILING_COLUMNS = ['source_file', 'source_offset', 'ingested_at'] as const
const COMMON_SEARCH: LogColumn[] = ['username', 'device_name', 'client_address', 'session_id']

export const KINDS: KindDef[] = [
  {
    kind: 'tacacs_authentication',
    path: 'tacacs/authentication',
    fileBase: 'tacacs-authentication',
    schemaStem: 'TacacsAuthn',
    summary: 'TACACS+ authentication log',
    table: LOG_TABLE.tacacs_authentication,
    enumFilters: { status: ['success', 'failure'] },
    textFilters: ['rule_name', 'profile'],
    sortBy: ['timestamp', 'username', 'nas_ip', 'status', 'rule_name', 'profile'],
    searchColumns: [...COMMON_SEARCH, 'rule_name', 'profile', 'authen_type', 'port', 'message'],
    columns: ['status', 'rule_name', 'profile', 'authen_type', 'port', 'message', 'result_code'],
  },
  {
    kind: 'tacacs_authorization',
    path: 'tacacs/authorization',
    fileBase: 'tacacs-authorization',
    schemaStem: 'TacacsAuthz',
    summary: 'TACACS+ authorization log',
    table: LOG_TABLE.tacacs_authorization,
    enumFilters: { action: ['permit', 'deny'] },
    textFilters: ['rule_name', 'profile', 'service'],
    sortBy: ['timestamp', 'username', 'nas_ip', 'action', 'rule_name', 'profile', 'service'],
    searchColumns: [...COMMON_SEARCH, 'rule_name', 'profile', 'service', 'command'],
    columns: ['action', 'rule_name', 'profile', 'service', 'priv_lvl', 'command', 'arguments', 'reply_arguments', 'result_code'],
  },
  {
    kind: 'tacacs_accounting',
    path: 'tacacs/accounting',
    fileBase: 'tacacs-accounting',
    schemaStem: 'TacacsAcct',
    summary: 'TACACS+ accounting log',
    table: LOG_TABLE.tacacs_accounting,
    enumFilters: { action: ['start', 'stop', 'watchdog'] },
    textFilters: [],
    sortBy: ['timestamp', 'username', 'nas_ip', 'action'],
    searchColumns: [...COMMON_SEARCH, 'service', 'command', 'port'],
    columns: ['action', 'service', 'command', 'arguments', 'port'],
  },
  {
    kind: 'radius_authentication',
    path: 'radius/authentication',
    fileBase: 'radius-authentication',
    schemaStem: 'RadiusAuth',
    summary: 'RADIUS authentication log',
    table: LOG_TABLE.radius_authentication,
    // MS-CHAPv1 beyond the contract's three: refused unless a RADIUS profile allows it, and logged as what it was (issue 12).
    // reject_reason third: the rollup splits counts by the first two only (a reject_reason filter is counted from the rows).
    enumFilters: { status: ['accept', 'reject'], auth_type: ['PAP', 'MS-CHAPv2', 'CHAP', 'MS-CHAPv1', 'PEAP', 'EAP-TLS', 'MAB'], reject_reason: RADIUS_REJECT_REASONS },
    textFilters: [],
    sortBy: ['timestamp', 'username', 'nas_ip', 'status', 'rule_name', 'rule_label'],
    searchColumns: [...COMMON_SEARCH, 'rule_name', 'rule_label', 'calling_station_id', 'called_station_id', 'nas_identifier', 'reason'],
    columns: ['status', 'auth_type', 'reject_reason', 'rule_name', 'rule_label', 'calling_station_id', 'called_station_id', 'nas_port', 'nas_ip_address', 'nas_identifier', 'reply_attributes', 'reply_attributes_truncated', 'reason'],
  },
  {
    kind: 'radius_accounting',
    path: 'radius/accounting',
    fileBase: 'radius-accounting',
    schemaStem: 'RadiusAcct',
    summary: 'RADIUS accounting log',
    table: LOG_TABLE.radius_accounting,
    enumFilters: { acct_status_type: ['Start', 'Stop', 'Interim-Update'] },
    textFilters: [],
    sortBy: ['timestamp', 'username', 'nas_ip', 'acct_status_type'],
    searchColumns: [...COMMON_SEARCH, 'acct_session_id', 'calling_station_id', 'nas_port'],
    columns: ['acct_status_type', 'acct_session_id', 'calling_station_id', 'framed_ip', 'session_time', 'input_octets', 'output_octets', 'nas_port', 'nas_ip_address', 'nas_identifier'],
  },
]

/** The one search expression of a kind: the same text in the query and in migration 0002's trigram index. */
export const searchExpression = (cols: readonly string[]) => cols.map((c) => `coalesce(${c}::text, '')`).join(` || ' ' || `)

const BIGINTS = new Set(['source_offset', 'session_time', 'input_octets', 'output_octets'])
const TIMES = new Set(['timestamp', 'ingested_at'])

export const allColumns = (k: KindDef) => [...COMMON_COLUMNS, ...k.columns, ...TRAILING_COLUMNS]

/**
 * A row of any of the five kinds, read by column name. knex types a query on
 * one named table; the kinds are handled alike (KINDS names their columns), so
 * their five row types meet here, in `logRows`, and nowhere else.
 */
export type LogRow = Partial<Record<LogColumn, unknown>>

/** The one query on a kind's table: every list, export and get-one starts here. */
export const logRows = (db: Knex | Knex.Transaction, k: KindDef) => db<LogRow, LogRow[]>(k.table)

/** `count(*)` of a query's rows (knex types a count's row loosely: the one place that reads it). */
export async function countOf(qb: Knex.QueryBuilder): Promise<number> {
  const r: { n?: string | number } | undefined = await qb.count({ n: '*' }).first()
  return Number(r?.n)
}

/** A row as the API shows it: times ISO-8601 UTC, bigints as numbers, every column present. */
export function toEntry(k: KindDef, row: LogRow): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of allColumns(k)) {
    const v = row[c]
    if (v === null || v === undefined) out[c] = c === 'arguments' || c === 'reply_arguments' || c === 'reply_attributes' ? [] : null
    else if (TIMES.has(c)) out[c] = new Date(v as string).toISOString()
    else if (BIGINTS.has(c) || c === 'priv_lvl') out[c] = Number(v)
    else if (c === 'reply_attributes' && typeof v === 'string') out[c] = JSON.parse(v)
    else out[c] = v
  }
  return out
}

export interface LogFilters {
  search?: string
  username?: string
  nas_ip?: string
  node_id?: string
  date_from?: string
  date_to?: string
  [filter: string]: unknown
}

/** What the schema cannot say: `nas_ip` must be an address (422 at `nas_ip`). Called before any query runs. */
export function checkLogFilters(q: LogFilters): void {
  if (q.nas_ip !== undefined && !isIP(q.nas_ip)) throw AaaLogsErrors.nasIpInvalid({ field: 'nas_ip' })
}

/** Narrow `qb` to the filters and search (not the sort). */
export function applyLogFilters(k: KindDef, qb: Knex.QueryBuilder, q: LogFilters): void {
  checkLogFilters(q)
  if (q.username !== undefined) qb.where('username', q.username)
  if (q.nas_ip !== undefined) qb.whereRaw('nas_ip = ?::inet', [q.nas_ip])
  if (q.node_id !== undefined) qb.where('node_id', q.node_id)
  if (q.date_from !== undefined) qb.where('timestamp', '>=', q.date_from)
  if (q.date_to !== undefined) qb.where('timestamp', '<=', q.date_to)
  for (const f of [...Object.keys(k.enumFilters), ...k.textFilters]) {
    const v = q[f]
    if (v !== undefined) qb.where(f, v as string)
  }
  const term = q.search?.trim()
  if (term) qb.whereRaw(`(${searchExpression(k.searchColumns)}) ILIKE ?`, [`%${likeEscape(term)}%`])
}

const label = (key: string) =>
  key
    .split('_')
    .map((w) => (['id', 'ip', 'nas'].includes(w) ? w.toUpperCase() : w[0].toUpperCase() + w.slice(1)))
    .join(' ')

/** Every column of the kind, headed by a readable label. */
export const exportColumns = (k: KindDef): ExportColumn<Record<string, unknown>>[] => allColumns(k).map((key) => ({ header: label(key), key }))

/**
 * Every row of a log table, exact: the count migration 0003's triggers keep in
 * the writing transactions (one primary-key read, not a scan of the table).
 */
export async function rowCount(knex: Knex, k: KindDef): Promise<number> {
  const r = await knex('aaa_log_row_counts').where({ table_name: k.table }).first('n')
  if (r) return r.n
  return countOf(logRows(knex, k))
}
