/**
 * The renderers' own fixed words in the report's language. Everything else
 * (titles, the parameters, the "stopped at" note) arrives already localized
 * in the document.
 */
import type { ReportLocale } from './document.js'
import { formatNumber } from './numbers.js'

export interface Words {
  generated: string
  timesIn: (zone: string) => string
  page: (n: number, of: number) => string
  continued: string
  noRows: string
  noData: string
  yes: string
  no: string
  summary: string
  label: string
  value: string
  rows: (shown: number, total: number | null, truncated: boolean) => string
  /** Under a PDF or HTML table cut at the page formats' own limit. */
  shownFirst: (shown: number) => string
}

const group = (n: number, locale: ReportLocale) => formatNumber(n, locale)

const EN: Words = {
  generated: 'Generated',
  timesIn: (zone) => `Times are in ${zone}`,
  page: (n, of) => `page ${n} of ${of}`,
  continued: 'continued',
  noRows: 'No rows in this time range.',
  noData: 'No data',
  yes: 'yes',
  no: 'no',
  summary: 'Summary',
  label: 'Label',
  value: 'Value',
  rows: (shown, total, truncated) =>
    truncated
      ? total !== null ? `${group(shown, 'en')} of ${group(total, 'en')} rows shown` : `first ${group(shown, 'en')} rows shown`
      : `${group(shown, 'en')} rows`,
  shownFirst: (shown) => `This file shows the first ${group(shown, 'en')} rows of the table; the xlsx format holds every row read.`,
}

const RU: Words = {
  generated: 'Сформирован',
  timesIn: (zone) => `Время указано в поясе ${zone}`,
  page: (n, of) => `стр. ${n} из ${of}`,
  continued: 'продолжение',
  noRows: 'За этот период строк нет.',
  noData: 'Нет данных',
  yes: 'да',
  no: 'нет',
  summary: 'Сводка',
  label: 'Метка',
  value: 'Значение',
  rows: (shown, total, truncated) =>
    truncated
      ? total !== null ? `показано ${group(shown, 'ru')} строк из ${group(total, 'ru')}` : `показаны первые ${group(shown, 'ru')} строк`
      : `строк: ${group(shown, 'ru')}`,
  shownFirst: (shown) => `Здесь показаны первые ${group(shown, 'ru')} строк таблицы; в формате xlsx есть все прочитанные строки.`,
}

export const wordsFor = (locale: ReportLocale): Words => (locale === 'ru' ? RU : EN)
