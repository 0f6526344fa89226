/** The routes' schemas (docs/reports.md; the console page reads the same). */
import { Name, Nullable, OptionalText, StringEnum, Timestamp, Type, Uuid, type Static } from '@portcullis/sdk'

export const MAX_SOURCES = 10
export const MAX_RECIPIENTS = 20
export const FORMATS = ['pdf', 'xlsx', 'html'] as const
export const RANGES = ['last_24h', 'last_7d', 'last_30d', 'last_month', 'custom'] as const
export const RUN_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const

const SourceId = Type.String({ minLength: 1, maxLength: 120, description: 'A report source id, `<plugin>.<name>` (GET /reports/sources).' })

export const TimeRange = Type.Object(
  {
    relative: StringEnum(RANGES, { description: 'last_24h, last_7d, last_30d: up to the moment the report runs; last_month: the previous calendar month in the report\'s time zone; custom: from/to.' }),
    from: Type.Optional(Nullable(Timestamp({ description: 'Only with custom: the first instant covered.' }))),
    to: Type.Optional(Nullable(Timestamp({ description: 'Only with custom: the end (not included). At most 400 days after from.' }))),
  },
  { title: 'ReportTimeRange', additionalProperties: false },
)

export const Schedule = Type.Object(
  {
    cron: Type.String({ minLength: 1, maxLength: 100, description: 'Five fields: minute hour day-of-month month day-of-week (`0 7 * * 1`: Mondays at 07:00). At most once an hour.' }),
    time_zone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the expression is read in (`Europe/Berlin`, `UTC`); also the report\'s time zone.' }),
  },
  { title: 'ReportSchedule', additionalProperties: false },
)

const Email = Type.String({ format: 'email', maxLength: 254 })

const fields = {
  name: Name({ maxLength: 128, description: 'Unique. Shown as the report\'s title; stored as given.' }),
  description: OptionalText({ maxLength: 1000 }),
  sources: Type.Array(SourceId, { minItems: 1, maxItems: MAX_SOURCES, uniqueItems: true, description: 'The sections of the report, in order.' }),
  time_range: TimeRange,
  device_group_id: Type.Optional(Nullable(Uuid({ description: 'Only the records of this device group and its subgroups (sources that accept device_group).' }))),
  user_group_id: Type.Optional(Nullable(Uuid({ description: 'Only the records of members of this user group (sources that accept user_group).' }))),
  formats: Type.Array(StringEnum(FORMATS), { minItems: 1, maxItems: 3, uniqueItems: true }),
  time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone of the report (ranges, times shown); default UTC. A schedule\'s time_zone sets it.' })),
  schedule: Type.Optional(Nullable(Schedule)),
  recipients: Type.Optional(Type.Array(Email, { maxItems: MAX_RECIPIENTS, uniqueItems: true, description: 'Where each run is mailed (PDF and xlsx attached, HTML as the body). Empty: not mailed.' })),
  language: Type.Optional(StringEnum(['en', 'ru'] as const, { description: 'Language of the files and the mail; default en.' })),
}

export const DefinitionCreate = Type.Object(fields, { title: 'ReportDefinitionCreate', additionalProperties: false })

export const DefinitionUpdate = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: fields.description,
    sources: Type.Optional(fields.sources),
    time_range: Type.Optional(fields.time_range),
    device_group_id: fields.device_group_id,
    user_group_id: fields.user_group_id,
    formats: Type.Optional(fields.formats),
    time_zone: fields.time_zone,
    schedule: fields.schedule,
    recipients: fields.recipients,
    language: fields.language,
  },
  { title: 'ReportDefinitionUpdate', additionalProperties: false },
)

export const DefinitionResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    sources: Type.Array(Type.String()),
    time_range: TimeRange,
    device_group_id: Nullable(Uuid()),
    user_group_id: Nullable(Uuid()),
    formats: Type.Array(StringEnum(FORMATS)),
    time_zone: Type.String(),
    schedule: Nullable(Schedule),
    recipients: Type.Array(Type.String()),
    language: StringEnum(['en', 'ru'] as const),
    owner_id: Nullable(Uuid({ description: 'Whom a scheduled run reads as: the last user who saved the definition.' })),
    owner_name: Nullable(Type.String()),
    next_run_at: Nullable(Timestamp({ description: 'The next scheduled run; null without a schedule.' })),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'ReportDefinition', additionalProperties: false },
)

export const DefinitionParams = Type.Object({ definition_id: Uuid() }, { additionalProperties: false })
export const RunParams = Type.Object({ run_id: Uuid() }, { additionalProperties: false })
export const FileParams = Type.Object({ run_id: Uuid(), format: StringEnum(FORMATS) }, { additionalProperties: false })

export const SourceResponse = Type.Object(
  {
    id: Type.String(),
    title: Type.String({ description: 'In the caller\'s language.' }),
    description: Type.String(),
    filters: Type.Array(StringEnum(['device_group', 'user_group'] as const)),
  },
  { title: 'ReportSource', additionalProperties: false },
)
export const SourceList = Type.Object({ items: Type.Array(SourceResponse) }, { title: 'ReportSourceList', additionalProperties: false })

export const RunResponse = Type.Object(
  {
    id: Uuid(),
    definition_id: Uuid(),
    definition_name: Type.String(),
    state: StringEnum(RUN_STATES),
    trigger: StringEnum(['manual', 'schedule'] as const),
    actor_id: Nullable(Uuid({ description: 'Who it ran as: the caller of "run now", or the definition\'s owner for a schedule.' })),
    actor_name: Nullable(Type.String()),
    scheduled_for: Nullable(Timestamp()),
    parameters: Type.Object(
      {
        from: Timestamp(),
        to: Timestamp(),
        time_zone: Type.String(),
        language: StringEnum(['en', 'ru'] as const),
        sources: Type.Array(Type.String()),
        device_group_id: Nullable(Uuid()),
        user_group_id: Nullable(Uuid()),
        formats: Type.Array(StringEnum(FORMATS)),
        recipients: Type.Array(Type.String()),
        row_limit: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    row_counts: Type.Array(
      Type.Object(
        { source: Type.String(), rows: Type.Integer(), total_rows: Nullable(Type.Integer()), truncated: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    truncated: Type.Boolean({ description: 'A section stopped at reports.row_limit rows (the files say so under it).' }),
    error_code: Nullable(Type.String()),
    error_detail: Nullable(Type.String({ description: 'Why it failed, in the caller\'s language.' })),
    mail_state: StringEnum(['none', 'sent', 'failed'] as const),
    mail_error: Nullable(Type.String()),
    files: Type.Array(Type.Object({ format: StringEnum(FORMATS), content_type: Type.String(), size: Type.Integer() }, { additionalProperties: false })),
    queued_at: Timestamp(),
    started_at: Nullable(Timestamp()),
    finished_at: Nullable(Timestamp()),
  },
  { title: 'ReportRun', additionalProperties: false },
)

export type DefinitionCreate = Static<typeof DefinitionCreate>
export type DefinitionUpdate = Static<typeof DefinitionUpdate>
export type Definition = Static<typeof DefinitionResponse>
export type Run = Static<typeof RunResponse>
