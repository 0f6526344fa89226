/**
 * Report sources: the data a report can be made of, each contributed by the
 * plugin that owns that data (device-administration activity by aaa-logs,
 * certificate expiry by pki, configuration changes by ncm, the audit trail by
 * the kernel). A report plugin (the Pro edition's `pro-reports`) lists them
 * through `coreServices.reportSources` and never reads another plugin's
 * tables itself: the owner knows its schema, its indexes and who may read it.
 *
 * A source only reads, through the reader it is given (the log replica when
 * one is configured), stops at `rowLimit` detail rows and says so, and
 * honours `signal` (the run's time budget). The caller has already checked
 * `permission`; a source that shows rows of several kinds (a secret, another
 * permission's data) checks the rest against `actor` itself.
 */
import type { Actor } from './actor.js'
import type { DatabaseReader } from './database-reader.js'
import type { LocalizedText } from './localized-text.js'

/** Parameters a source may accept besides the time range. */
export type ReportFilter = 'device_group' | 'user_group'

export interface ReportColumn {
  key: string
  title: LocalizedText
  type: 'text' | 'integer' | 'timestamp' | 'boolean'
}

/** A key number of the summary page ("Failed logins: 42"). */
export interface ReportFigure {
  label: LocalizedText
  value: number | string
}

/** A chart of the summary page: labelled values, drawn as bars (categories) or a line (a time series, labels in order). */
export interface ReportChart {
  title: LocalizedText
  kind: 'bar' | 'line'
  points: { label: string; value: number }[]
}

export interface ReportQuery {
  /** Read with this and nothing else; never write through it. */
  reader: DatabaseReader
  /** Half-open [from, to). For a state report (certificate expiry) it is the window looked at (expiring between). */
  from: Date
  to: Date
  /** Only the records of this device group (and its descendants), when the source accepts `device_group`. */
  deviceGroupId: string | null
  /** Only the records of members of this user group, when the source accepts `user_group`. */
  userGroupId: string | null
  /** At most this many detail rows; more sets `truncated`. Figures and charts cover everything in the range. */
  rowLimit: number
  /** Aborted when the run's time budget is spent or the run is cancelled. */
  signal: AbortSignal
  /** Whose view the report is: the user who runs it, or the owner of a schedule. */
  actor: Actor
}

export interface ReportSection {
  figures: ReportFigure[]
  charts: ReportChart[]
  columns: ReportColumn[]
  /** Detail rows keyed by column key: text, integer, ISO date-time text, boolean or null. */
  rows: Record<string, string | number | boolean | null>[]
  /** true when more rows matched than `rowLimit`. */
  truncated: boolean
  /** How many detail rows matched in all, when the source counted them; null when it stopped counting. */
  totalRows: number | null
}

export interface ReportSource {
  /** `<plugin id>.<name>`, e.g. `aaa-logs.tacacs-activity`: stable, stored in report definitions. */
  id: string
  title: LocalizedText
  description: LocalizedText
  /** The caller must hold it (an administrator holds every permission). */
  permission: string
  /** Which filters it honours; a report asking for another is refused before it runs. */
  filters: ReportFilter[]
  run(query: ReportQuery): Promise<ReportSection>
}

export interface ReportSourcesService {
  /** At init: a plugin adds the sources over its own data. Boot fails on a duplicate id or one outside the plugin's prefix. */
  add(plugin: string, source: ReportSource): void
  list(): ReportSource[]
  get(id: string): ReportSource | undefined
}
