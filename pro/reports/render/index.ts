/**
 * The renderers' entry: a report document in, a file out. Pure functions, no
 * database and no network; each format's library is loaded on its first use
 * (pdfkit and exceljs take a noticeable part of a server's start).
 */
import type { RenderedFile, ReportDocument, ReportFormat } from './document.js'

export type { RenderedFile, RenderedSection, ReportDocument, ReportFormat, ReportLocale } from './document.js'

export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html; charset=utf-8',
}

export async function renderReport(doc: ReportDocument, format: ReportFormat): Promise<RenderedFile> {
  let content: Buffer
  if (format === 'pdf') content = await (await import('./pdf.js')).renderPdf(doc)
  else if (format === 'xlsx') content = await (await import('./xlsx.js')).renderXlsx(doc)
  else if (format === 'html') content = Buffer.from((await import('./html.js')).renderHtml(doc), 'utf8')
  else throw new Error(`unknown report format: ${String(format)}`)
  return { content, contentType: REPORT_CONTENT_TYPES[format], extension: format }
}
