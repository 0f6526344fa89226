/** The plugin's settings, under `reports.*` (the product's name for them, not the package's id). */
import { defineSetting, Type } from '@portcullis/sdk'

export const reportTimeBudget = defineSetting(
  'reports.time_budget_seconds',
  Type.Integer({ minimum: 10, maximum: 3600 }),
  300,
  'How long one report run may read, in seconds (10 to 3600). A run that needs longer stops and is recorded as failed (REPORT_TIME_BUDGET_SPENT): narrow its time range.',
)

export const reportRowLimit = defineSetting(
  'reports.row_limit',
  Type.Integer({ minimum: 100, maximum: 1_000_000 }),
  100_000,
  'At most this many detail rows per source in one report (100 to 1,000,000). Figures and charts still cover the whole range; the report says where its rows stop.',
)

export const reportRetentionDays = defineSetting(
  'reports.retention_days',
  Type.Integer({ minimum: 1, maximum: 3650 }),
  90,
  'How many days report runs and their files are kept (1 to 3650); older ones are deleted in the background.',
)

export const reportSettings = [reportTimeBudget, reportRowLimit, reportRetentionDays]
