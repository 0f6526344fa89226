/** Numbers grouped the reader's way (12,345 / 12 345). Its own file: words.ts and format.ts both use it. */
import type { ReportLocale } from './document.js'

// One formatter a language: toLocaleString builds a new one on every call (the most of a long table's time).
const NUMBERS: Record<ReportLocale, Intl.NumberFormat> = {
  en: new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }),
  ru: new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 }),
}

export function formatNumber(n: number, locale: ReportLocale): string {
  return Number.isFinite(n) ? NUMBERS[locale === 'ru' ? 'ru' : 'en'].format(n) : String(n)
}
