/**
 * The HTML page: one self-contained document usable as an e-mail body. Styles
 * are inline attributes (mail programs drop <style> blocks and external
 * sheets), charts are inline SVG, there is no script and no external resource
 * (an image or font URL would call home when the mail is opened).
 *
 * Every text from the data (names, commands, titles, the note) is escaped: a
 * `<script>` typed as a user name shows as those characters.
 */
import type { ReportColumn } from '@portcullis/sdk'
import { AXIS_COLOUR, BAR_COLOUR, CHART_FONT_SIZE, GRID_COLOUR, LINE_COLOUR, layoutChart } from './charts.js'
import type { RenderedSection, ReportDocument } from './document.js'
import { cellText, cleanText, formatNumber, formatTime, localized } from './format.js'
import { TABLE_ROW_CAP } from './limits.js'
import { wordsFor, type Words } from './words.js'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text safe in an element's content and in a quoted attribute. */
export const escapeHtml = (s: string): string => cleanText(s).replace(/[&<>"']/g, (ch) => ESCAPES[ch])

const FONT = "font-family:'DejaVu Sans',Arial,Helvetica,sans-serif"
const CHART_W = 640
const CHART_H = 180

const n1 = (v: number) => (Math.round(v * 10) / 10).toString()

export function renderHtml(doc: ReportDocument): string {
  const words = wordsFor(doc.locale)
  const e = escapeHtml
  const parts: string[] = [
    '<!DOCTYPE html>',
    `<html lang="${doc.locale === 'ru' ? 'ru' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${e(doc.title)}</title></head>`,
    `<body style="margin:0;padding:20px;background:#ffffff;color:#1a1a1a;${FONT};font-size:14px;line-height:1.4">`,
    `<h1 style="font-size:22px;margin:0 0 6px 0">${e(doc.title)}</h1>`,
  ]
  if (doc.subtitle) parts.push(`<p style="margin:0 0 4px 0;color:#555555">${e(doc.subtitle)}</p>`)
  parts.push(`<p style="margin:0 0 16px 0;color:#555555;font-size:12px">${e(words.generated)}: ${e(formatTime(doc.generatedAt, doc.timeZone))} (${e(doc.timeZone)})</p>`)
  for (const s of doc.sections) parts.push(section(s, doc, words))
  parts.push('</body></html>')
  return parts.join('\n')
}

function section(s: RenderedSection, doc: ReportDocument, words: Words): string {
  const e = escapeHtml
  const out: string[] = [`<h2 style="font-size:18px;margin:24px 0 4px 0;border-bottom:1px solid #cccccc">${e(s.title)}</h2>`]
  out.push(`<p style="margin:0 0 6px 0;color:#555555;font-size:12px">${e(words.rows(s.rows.length, s.totalRows, s.truncated))}</p>`)
  if (s.note) out.push(`<p style="margin:0 0 8px 0;color:#9a3d00">${e(s.note)}</p>`)
  if (s.figures.length > 0) {
    // A table, not a grid of divs: mail programs lay tables out reliably.
    const cells = s.figures.map((f) => {
      const value = typeof f.value === 'number' ? formatNumber(f.value, doc.locale) : f.value
      return `<td style="padding:6px 18px 6px 0;vertical-align:top"><div style="color:#666666;font-size:12px">${e(localized(f.label, doc.locale))}</div><div style="font-size:20px;font-weight:bold">${e(value)}</div></td>`
    })
    const rows: string[] = []
    for (let i = 0; i < cells.length; i += 3) rows.push(`<tr>${cells.slice(i, i + 3).join('')}</tr>`)
    out.push(`<table role="presentation" style="border-collapse:collapse;margin:4px 0 8px 0">${rows.join('')}</table>`)
  }
  for (const chart of s.charts) {
    out.push(`<h3 style="font-size:14px;margin:12px 0 4px 0">${e(localized(chart.title, doc.locale))}</h3>`)
    out.push(svgChart(chart, doc, words))
  }
  out.push(table(s, doc, words))
  return out.join('\n')
}

function svgChart(chart: RenderedSection['charts'][number], doc: ReportDocument, words: Words): string {
  const e = escapeHtml
  const lay = layoutChart(chart, CHART_W, CHART_H, doc.locale)
  const { plot } = lay
  const font = `font-size="${CHART_FONT_SIZE + 1}" fill="#666666" font-family="DejaVu Sans, Arial, sans-serif"`
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_W}" height="${CHART_H}" viewBox="0 0 ${CHART_W} ${CHART_H}" role="img" aria-label="${e(localized(chart.title, doc.locale))}" style="display:block;max-width:100%;height:auto">`]
  for (const t of lay.ticks) {
    out.push(`<line x1="${n1(plot.x)}" y1="${n1(t.y)}" x2="${n1(plot.x + plot.w)}" y2="${n1(t.y)}" stroke="${GRID_COLOUR}" stroke-width="0.5"/>`)
    out.push(`<text x="${n1(plot.x - 4)}" y="${n1(t.y + 3)}" text-anchor="end" ${font}>${e(t.label)}</text>`)
  }
  for (const b of lay.bars) out.push(`<rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" fill="${BAR_COLOUR}"/>`)
  if (lay.points.length > 0) {
    out.push(`<polyline points="${lay.points.map((p) => `${n1(p.x)},${n1(p.y)}`).join(' ')}" fill="none" stroke="${LINE_COLOUR}" stroke-width="1.5"/>`)
    for (const p of lay.points) out.push(`<circle cx="${n1(p.x)}" cy="${n1(p.y)}" r="2" fill="${LINE_COLOUR}"/>`)
  }
  out.push(`<polyline points="${n1(plot.x)},${n1(plot.y)} ${n1(plot.x)},${n1(plot.y + plot.h)} ${n1(plot.x + plot.w)},${n1(plot.y + plot.h)}" fill="none" stroke="${AXIS_COLOUR}" stroke-width="0.75"/>`)
  for (const l of lay.xLabels) out.push(`<text x="${n1(l.x)}" y="${n1(plot.y + plot.h + 11)}" text-anchor="middle" ${font}>${e(l.text)}</text>`)
  for (const v of lay.values) out.push(`<text x="${n1(v.x)}" y="${n1(v.y - 1)}" text-anchor="middle" ${font}>${e(v.text)}</text>`)
  if (lay.empty) out.push(`<text x="${n1(plot.x + plot.w / 2)}" y="${n1(plot.y + plot.h / 2)}" text-anchor="middle" ${font}>${e(words.noData)}</text>`)
  out.push('</svg>')
  return out.join('')
}

function table(s: RenderedSection, doc: ReportDocument, words: Words): string {
  const e = escapeHtml
  if (s.columns.length === 0 || s.rows.length === 0) return `<p style="color:#666666">${e(words.noRows)}</p>`
  const cell = 'padding:3px 8px;border-bottom:1px solid #e2e2e2;vertical-align:top;text-align:left'
  const align = (c: ReportColumn) => (c.type === 'integer' ? ';text-align:right' : '')
  const head = s.columns.map((c) => `<th style="${cell};background:#e8eef5;font-weight:bold${align(c)}">${e(localized(c.title, doc.locale))}</th>`).join('')
  const body = s.rows.slice(0, TABLE_ROW_CAP).map((r) =>
    `<tr>${s.columns.map((c) => `<td style="${cell}${align(c)}">${e(cellText(r[c.key], c, doc))}</td>`).join('')}</tr>`)
  const out = [
    `<table style="border-collapse:collapse;font-size:12px;margin:12px 0"><thead><tr>${head}</tr></thead><tbody>`,
    body.join('\n'),
    '</tbody></table>',
  ]
  if (s.rows.length > TABLE_ROW_CAP) out.push(`<p style="color:#9a3d00">${e(words.shownFirst(TABLE_ROW_CAP))}</p>`)
  if (s.note) out.push(`<p style="color:#9a3d00">${e(s.note)}</p>`)
  return out.join('\n')
}
