/** The plugin's coded errors (docs/reports.md, "Errors"); messages in locales/en.ts and ru.ts. */
import { defineError } from '@portcullis/sdk'

const k = (key: string) => `pro-reports:errors.${key}`

export const ReportErrors = {
  nameTaken: defineError(409, 'REPORT_NAME_TAKEN', k('name_taken')),
  /** Unknown, or one the caller may not read: the same answer, so nobody learns what exists beyond their view. */
  sourceUnknown: defineError(422, 'REPORT_SOURCE_UNKNOWN', k('source_unknown')),
  filterUnsupported: defineError(422, 'REPORT_FILTER_UNSUPPORTED', k('filter_unsupported')),
  groupUnknown: defineError(422, 'REPORT_GROUP_UNKNOWN', k('group_unknown')),
  rangeIncomplete: defineError(422, 'REPORT_RANGE_INCOMPLETE', k('range_incomplete')),
  rangeReversed: defineError(422, 'REPORT_RANGE_REVERSED', k('range_reversed')),
  rangeTooLong: defineError(422, 'REPORT_RANGE_TOO_LONG', k('range_too_long')),
  cronInvalid: defineError(422, 'REPORT_CRON_INVALID', k('cron_invalid')),
  cronSeconds: defineError(422, 'REPORT_CRON_SECONDS', k('cron_seconds')),
  cronTooOften: defineError(422, 'REPORT_CRON_TOO_OFTEN', k('cron_too_often')),
  timeZoneUnknown: defineError(422, 'REPORT_TIME_ZONE_UNKNOWN', k('time_zone_unknown')),
  runInProgress: defineError(409, 'REPORT_RUN_IN_PROGRESS', k('run_in_progress')),
} as const

/** Why a run failed, stored on the run (`error_code`) and shown with its message (`locales: run_errors`). */
export const RUN_ERRORS = [
  'REPORT_ACTOR_INACTIVE',
  'REPORT_PERMISSION_LOST',
  'REPORT_SOURCE_GONE',
  'REPORT_TIME_BUDGET_SPENT',
  'REPORT_SOURCE_FAILED',
  'REPORT_RENDER_FAILED',
  'REPORT_INTERRUPTED',
] as const
export type RunErrorCode = (typeof RUN_ERRORS)[number]
