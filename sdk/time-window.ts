/**
 * A rule's time window, as the AAA policy and the NAC policy store, check and
 * hand to their renderers (moved here from plugins/aaa-policy/services/conditions.ts
 * when the NAC policy needed the same rules: one meaning of a window for every
 * daemon and every policy test).
 *
 * Days of the week and a start and end time of day, to the minute, in the
 * local time of the host the daemons run on. `start` is inclusive, `end`
 * exclusive: 08:00-18:00 holds from 08:00:00 to 17:59:59; `end` 24:00 is the
 * end of the day. A window whose end is not after its start crosses midnight:
 * `days` are the days it starts on, and it runs on into the next day's early
 * hours (Fri 22:00-06:00 holds Friday 22:00 to Saturday 05:59). Start equal to
 * end is refused: it would be either nothing or the whole day, and both have a
 * clearer spelling.
 */
import type { PolicyTimeWindow } from './policy.js'
import { phrase, type Phrase } from './say.js'

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Day = (typeof DAYS)[number]

/** What a policy table keeps and its API shows. */
export interface StoredTimeWindow {
  days: Day[]
  start: string
  end: string
}

/** The JSON Schema patterns of `start` and `end`. */
export const TIME_WINDOW_START = '^([01][0-9]|2[0-3]):[0-5][0-9]$'
export const TIME_WINDOW_END = '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$'

/** C's tm_wday of each day: Sunday 0. */
const WDAY: Record<Day, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 }
const LABEL: Record<Day, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' }

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * Why the window is refused (the schema has checked its shape), or null. `at` is the window's field path.
 * The reason is a phrase (kernel/locales reasons-en.ts): the error that carries it says it in the caller's language.
 */
export function timeWindowProblem(w: StoredTimeWindow, at = 'time_window'): { field: string; reason: Phrase } | null {
  if (minutes(w.start) === minutes(w.end)) {
    return { field: `${at}.end`, reason: phrase('core:reason.time_window_equal', { start: w.start, end: w.end }) }
  }
  return null
}

/** Days in week order, consecutive runs of three or more as a range: `Mon-Fri`, `Sat,Sun`, `Mon,Wed-Fri`. */
function dayLabel(days: readonly Day[]): string {
  const idx = DAYS.map((d, i) => (days.includes(d) ? i : -1)).filter((i) => i >= 0)
  const runs: number[][] = []
  for (const i of idx) {
    const last = runs[runs.length - 1]
    if (last && last[last.length - 1] === i - 1) last.push(i)
    else runs.push([i])
  }
  return runs.map((r) => (r.length >= 3 ? `${LABEL[DAYS[r[0]]]}-${LABEL[DAYS[r[r.length - 1]]]}` : r.map((i) => LABEL[DAYS[i]]).join(','))).join(',')
}

/** The window as the renderers and the policy tests read it: a label and the minute spans of the week. */
export function toPolicyWindow(w: StoredTimeWindow): PolicyTimeWindow {
  const start = minutes(w.start)
  const end = minutes(w.end)
  const days = [...new Set(w.days.map((d) => WDAY[d]))].sort((a, b) => a - b)
  const label = `${dayLabel(w.days)} ${w.start}-${w.end}`
  if (end > start) return { label, spans: [{ days, from: start, to: end }] }
  // Crosses midnight: the evening on its days, the early hours on the day after each.
  const spans = [{ days, from: start, to: 1440 }]
  if (end > 0) spans.push({ days: days.map((d) => (d + 1) % 7).sort((a, b) => a - b), from: 0, to: end })
  return { label, spans }
}

/** Whether a local weekday (0 Sunday) and minute of the day fall inside the window. */
export const inWindowAt = (w: PolicyTimeWindow, day: number, minute: number): boolean => w.spans.some((s) => s.days.includes(day) && minute >= s.from && minute < s.to)

/** Whether `at` (its local time on this host) is inside the window. */
export const inTimeWindow = (w: PolicyTimeWindow, at: Date): boolean => inWindowAt(w, at.getDay(), at.getHours() * 60 + at.getMinutes())
