/**
 * Values as the renderers show them: times in the report's zone, numbers
 * grouped the reader's way, booleans in words, and text stripped of control
 * characters (they are invalid in xlsx's XML and draw as boxes in a PDF).
 */
import type { LocalizedText, ReportColumn } from '@portcullis/sdk'
import type { ReportDocument, ReportLocale } from './document.js'
import { formatNumber } from './numbers.js'
import { wordsFor } from './words.js'

export { formatNumber }

export type Cell = string | number | boolean | null

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    } catch {
      // The runner checks the zone; a zone this Node does not know still renders, in UTC, rather than failing the run.
      f = formatter('UTC')
    }
    formatters.set(timeZone, f)
  }
  return f
}

export interface WallClock { year: number; month: number; day: number; hour: number; minute: number; second: number }

/** The date and time a clock in `timeZone` shows at `at`. */
export function wallClock(at: Date, timeZone: string): WallClock {
  const p: Record<string, number> = {}
  for (const part of formatter(timeZone).formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value)
  return { year: p.year, month: p.month, day: p.day, hour: p.hour % 24, minute: p.minute, second: p.second }
}

const two = (n: number) => String(n).padStart(2, '0')

/** `2026-11-28 23:47:59` in the zone. */
export function formatTime(at: Date, timeZone: string): string {
  const w = wallClock(at, timeZone)
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}:${two(w.second)}`
}

/** A timestamp cell as a Date, or null when the text is not one. */
export function parseTime(v: Cell): Date | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? null : d
}

// C0 controls except tab and line ends, DEL, C1 controls, lone surrogates and the non-characters XML refuses.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

export const cleanText = (s: string): string => s.replace(CONTROL, '')

/** A cell as text in the report's words: the PDF and HTML tables. */
export function cellText(v: Cell, column: ReportColumn, doc: ReportDocument): string {
  if (v === null || v === undefined) return ''
  if (column.type === 'timestamp') {
    const d = parseTime(v)
    return d ? formatTime(d, doc.timeZone) : cleanText(String(v))
  }
  if (typeof v === 'boolean') return v ? wordsFor(doc.locale).yes : wordsFor(doc.locale).no
  if (typeof v === 'number') return column.type === 'integer' ? formatNumber(v, doc.locale) : String(v)
  return cleanText(v)
}

/** A localized title in the report's language. */
export function localized(text: LocalizedText | string, locale: ReportLocale): string {
  if (typeof text === 'string') return text
  return (locale === 'ru' ? text.ru : undefined) ?? text.en
}
