/**
 * Time ranges and zones: what "last month" means in the report's zone, and how an instant reads
 * there. Intl knows the zones (the IANA database Node ships); no zone arithmetic of our own
 * beyond asking it for an instant's wall time.
 */
import type { RangeKind } from '../tables.js'

export const MAX_RANGE_DAYS = 400
const DAY = 86_400_000

/** An IANA zone name Intl knows (`UTC`, `Europe/Berlin`); offsets and abbreviations are not names. */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(zone)) return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

interface Wall {
  year: number
  month: number
  day: number
  hour: number
  minute: number
}

function wallTime(at: Date, zone: string): Wall {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at)
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value)
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute') }
}

/** The instant at which the zone's clock reads midnight of that day (month 1..12; an overflowing month rolls into the next year). */
function zonedMidnight(year: number, month: number, zone: string): Date {
  const guess = Date.UTC(year, month - 1, 1)
  let t = guess
  // Twice: the offset at the first guess may differ from the one at the answer (a DST change that day).
  for (let i = 0; i < 2; i++) {
    const w = wallTime(new Date(t), zone)
    const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute)
    t = guess - (asUtc - t)
  }
  return new Date(t)
}

/** The half-open [from, to) a relative range covers when the report runs at `now`. */
export function resolveRange(kind: RangeKind, custom: { from: Date | null; to: Date | null }, now: Date, zone: string): { from: Date; to: Date } {
  switch (kind) {
    case 'last_24h':
      return { from: new Date(now.getTime() - DAY), to: now }
    case 'last_7d':
      return { from: new Date(now.getTime() - 7 * DAY), to: now }
    case 'last_30d':
      return { from: new Date(now.getTime() - 30 * DAY), to: now }
    case 'last_month': {
      const w = wallTime(now, zone)
      const prev = w.month === 1 ? { year: w.year - 1, month: 12 } : { year: w.year, month: w.month - 1 }
      return { from: zonedMidnight(prev.year, prev.month, zone), to: zonedMidnight(w.year, w.month, zone) }
    }
    case 'custom':
      return { from: custom.from!, to: custom.to! }
  }
}

/** `2026-11-28 14:05` as the zone's clock reads it. */
export function formatInZone(at: Date, zone: string): string {
  const w = wallTime(at, zone)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${w.year}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}`
}
