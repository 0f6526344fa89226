/** The plugin's own strings outside a request (a scheduled run has no caller's language): the report's language. */
import type { LocalizedText } from '@portcullis/sdk'
import en from '../locales/en.js'
import ru from '../locales/ru.js'

export type Language = 'en' | 'ru'
type Strings = typeof en

const fill = (text: string, vars: Record<string, unknown>) => text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => String(vars[k] ?? ''))

export function reportText(lang: Language, key: keyof Strings['report'], vars: Record<string, unknown> = {}): string {
  return fill((lang === 'ru' ? ru : en).report[key], vars)
}

export function runErrorText(lang: Language, code: string, vars: Record<string, unknown> = {}): string {
  const table = (lang === 'ru' ? ru : en).run_errors as Record<string, string>
  return fill(table[code] ?? code, vars)
}

export const localized = (t: LocalizedText, lang: Language): string => (lang === 'ru' ? (t.ru ?? t.en) : t.en)
