/** Formatting shared by the pages. */

/** A timestamp in the screen's language, on a 24-hour clock (no AM/PM whatever the language), or a dash. */
export const when = (iso: string | null | undefined, lang: string) => (iso ? new Date(iso).toLocaleString(lang, { hourCycle: 'h23' }) : '—')

/** The time of day (hours and minutes, 24-hour clock) in the screen's language: a chart's axis. */
export const clock = (iso: string, lang: string) => new Date(iso).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })

/** A day and hour, short (24-hour clock): a week's axis. */
export const dayHour = (iso: string, lang: string) => new Date(iso).toLocaleString(lang, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
