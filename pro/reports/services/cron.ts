/**
 * Schedules: five-field cron expressions read in an IANA zone (croner), never more often than
 * once an hour. The gap is measured between real upcoming occurrences, so `0,30 * * * *`,
 * `* 9 * * *` and `0 0-23 * * *` are told apart from `0 * * * *` whatever way they are written.
 */
import { Cron } from 'croner'
import { ReportErrors } from '../errors.js'

export const MIN_GAP_MS = 3_600_000
/** Enough consecutive occurrences to cover any day's pattern of minutes and hours. */
const SAMPLE = 200

function parse(expr: string, zone: string): Cron {
  return new Cron(expr, { timezone: zone, paused: true, mode: '5-part' })
}

/** Throws the 422 at `field` (schedule.cron) for an expression that is malformed, has seconds, never fires or fires too often. */
export function checkCron(expr: string, zone: string, field: string, now = new Date()): void {
  const text = expr.trim()
  const parts = text.split(/\s+/)
  if (!text.startsWith('@') && parts.length === 6) throw ReportErrors.cronSeconds({ field })
  let runs: Date[]
  try {
    runs = parse(text, zone).nextRuns(SAMPLE, now)
  } catch {
    throw ReportErrors.cronInvalid({ field })
  }
  if (runs.length === 0) throw ReportErrors.cronInvalid({ field })
  let gap = Infinity
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i].getTime() - runs[i - 1].getTime())
  if (gap < MIN_GAP_MS) throw ReportErrors.cronTooOften({ field, vars: { minutes: Math.max(1, Math.round(gap / 60_000)) } })
}

/** The first occurrence strictly after `after`; null when the expression never fires again. */
export function nextOccurrence(expr: string, zone: string, after: Date): Date | null {
  return parse(expr.trim(), zone).nextRun(after)
}
