/**
 * What a renderer draws: a report run's result, already read and localized
 * by the runner. The renderers (pdf.ts, xlsx.ts, html.ts) are pure: a
 * document in, a file out, no database.
 */
import type { ReportSection } from '@portcullis/sdk'

export type ReportFormat = 'pdf' | 'xlsx' | 'html'
export type ReportLocale = 'en' | 'ru'

export interface RenderedSection extends ReportSection {
  /** The source's title in the report's locale. */
  title: string
  /** Said under the section when it is not complete ("Stopped at 100,000 rows of 2,345,678: narrow the time range."); null otherwise. */
  note: string | null
}

export interface ReportDocument {
  /** The report definition's name. */
  title: string
  /** The parameters in words: time range with its zone, device group, user group. */
  subtitle: string
  generatedAt: Date
  /** IANA zone the times are shown in. */
  timeZone: string
  locale: ReportLocale
  sections: RenderedSection[]
}

export interface RenderedFile {
  content: Buffer
  contentType: string
  /** `pdf`, `xlsx`, `html`: the download's file name ends with it. */
  extension: ReportFormat
}
