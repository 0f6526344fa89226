/** Settings of the log lists (the API side). */
import { defineSetting, Type } from '../../../sdk/index.js'

export const listSettingRefs = {
  countBudgetMs: defineSetting(
    'aaa-logs.count_budget_ms',
    Type.Integer({ minimum: 1, maximum: 60000 }),
    150,
    'Milliseconds a log list may spend counting the matches of a free-text search (or of filters the rollup does not keep) on PostgreSQL; past it the count stops and the answer says total_by_filter_capped (the page is then looked for by time within the same budget, else read out of all the matches, exactly counted). The count also stops at 10,000 matches.',
  ),
} as const

export const listSettings = Object.values(listSettingRefs)
