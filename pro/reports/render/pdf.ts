/**
 * The PDF: a summary first (title, parameters, when, each section's key
 * figures and its charts drawn as vector bars or a line), then each section's
 * table, its header repeated on every page, long cells wrapped to three lines
 * and cut with an ellipsis, "page N of M" on every page.
 *
 * Cyrillic needs a font that has it: DejaVu Sans is embedded (subset) when the
 * system has it (Debian's fonts-dejavu-core); without it pdfkit's built-in
 * Helvetica draws Latin text only (docs/reports.md, "Rendering").
 *
 * The same document renders to the same bytes: the creation date is the
 * report's generation time, and pdfkit derives the file id from it.
 */
import { existsSync, readFileSync } from 'node:fs'
import PDFDocument from 'pdfkit'
import type { ReportColumn } from '@portcullis/sdk'
import { AXIS_COLOUR, BAR_COLOUR, CHART_FONT_SIZE, GRID_COLOUR, LINE_COLOUR, layoutChart, type ChartLayout } from './charts.js'
import type { RenderedSection, ReportDocument } from './document.js'
import { cellText, formatNumber, formatTime, localized } from './format.js'
import { TABLE_ROW_CAP } from './limits.js'
import { wordsFor, type Words } from './words.js'

export const PDF_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'
const PDF_FONT_BOLD = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'

const MARGIN = 40
const FOOTER = 30
const TEXT = '#1a1a1a'
const GREY = '#666666'
const NOTE = '#9a3d00'
const HEADER_FILL = '#e8eef5'
const CELL_SIZE = 7.5
const CELL_PAD = 2
const MAX_LINES = 3

type Pdf = PDFKit.PDFDocument

let fonts: { body: Buffer | string; bold: Buffer | string } | undefined

/** Read once: DejaVu Sans when installed, else pdfkit's standard Helvetica (Latin only). */
function pdfFonts() {
  if (!fonts) {
    fonts = existsSync(PDF_FONT)
      ? { body: readFileSync(PDF_FONT), bold: existsSync(PDF_FONT_BOLD) ? readFileSync(PDF_FONT_BOLD) : readFileSync(PDF_FONT) }
      : { body: 'Helvetica', bold: 'Helvetica-Bold' }
  }
  return fonts
}

interface Ctx {
  pdf: Pdf
  doc: ReportDocument
  words: Words
  y: number
}

const contentWidth = (pdf: Pdf) => pdf.page.width - 2 * MARGIN
const bottom = (pdf: Pdf) => pdf.page.height - MARGIN - FOOTER + 10

function style(pdf: Pdf, font: 'body' | 'bold', size: number, colour = TEXT) {
  pdf.font(font).fontSize(size).fillColor(colour)
}

/** Writes wrapped text at the cursor and moves it down. */
function para(c: Ctx, text: string, font: 'body' | 'bold', size: number, colour = TEXT, gap = 4) {
  style(c.pdf, font, size, colour)
  const width = contentWidth(c.pdf)
  const h = c.pdf.heightOfString(text, { width })
  ensure(c, h)
  c.pdf.text(text, MARGIN, c.y, { width, height: h + 1 })
  c.y += h + gap
}

function newPage(c: Ctx, landscape = false) {
  c.pdf.addPage({ size: 'A4', layout: landscape ? 'landscape' : 'portrait', margin: MARGIN })
  c.y = MARGIN
}

function ensure(c: Ctx, height: number) {
  if (c.y + height > bottom(c.pdf)) newPage(c, c.pdf.page.width > c.pdf.page.height)
}

export async function renderPdf(doc: ReportDocument): Promise<Buffer> {
  const f = pdfFonts()
  const pdf = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    lang: doc.locale,
    displayTitle: true,
    info: { Title: doc.title, Subject: doc.subtitle, Creator: 'Portcullis reports', Producer: 'Portcullis', CreationDate: doc.generatedAt, ModDate: doc.generatedAt },
  })
  pdf.registerFont('body', f.body)
  pdf.registerFont('bold', f.bold)
  const chunks: Buffer[] = []
  pdf.on('data', (b: Buffer) => chunks.push(b))
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', () => resolve())
    pdf.on('error', reject)
  })
  const c: Ctx = { pdf, doc, words: wordsFor(doc.locale), y: MARGIN }
  summary(c)
  for (const s of doc.sections) table(c, s)
  footers(c)
  pdf.end()
  await ended
  return Buffer.concat(chunks)
}

function summary(c: Ctx) {
  const { doc, words } = c
  para(c, doc.title, 'bold', 18, TEXT, 4)
  if (doc.subtitle) para(c, doc.subtitle, 'body', 10, GREY, 2)
  para(c, `${words.generated}: ${formatTime(doc.generatedAt, doc.timeZone)} (${doc.timeZone})`, 'body', 9, GREY, 14)
  for (const s of doc.sections) {
    ensure(c, 60)
    para(c, s.title, 'bold', 13, TEXT, 3)
    para(c, words.rows(s.rows.length, s.totalRows, s.truncated), 'body', 8, GREY, 6)
    if (s.note) para(c, s.note, 'body', 9, NOTE, 6)
    figures(c, s)
    for (const chart of s.charts) {
      const height = 150
      ensure(c, height + 20)
      para(c, localized(chart.title, doc.locale), 'bold', 10, TEXT, 2)
      drawChart(c.pdf, layoutChart(chart, contentWidth(c.pdf), height, doc.locale), MARGIN, c.y, words)
      c.y += height + 12
    }
    c.y += 6
  }
}

/** Key figures three to a row: the label small, the value large. */
function figures(c: Ctx, s: RenderedSection) {
  const perRow = 3
  const cellW = contentWidth(c.pdf) / perRow
  for (let i = 0; i < s.figures.length; i += perRow) {
    ensure(c, 40)
    s.figures.slice(i, i + perRow).forEach((fig, j) => {
      const x = MARGIN + j * cellW
      style(c.pdf, 'body', 8, GREY)
      c.pdf.text(localized(fig.label, c.doc.locale), x, c.y, { width: cellW - 8, height: 20, ellipsis: true })
      style(c.pdf, 'bold', 14)
      const value = typeof fig.value === 'number' ? formatNumber(fig.value, c.doc.locale) : fig.value
      c.pdf.text(value, x, c.y + 20, { width: cellW - 8, height: 18, ellipsis: true, lineBreak: false })
    })
    c.y += 42
  }
}

function drawChart(pdf: Pdf, lay: ChartLayout, x0: number, y0: number, words: Words) {
  const { plot } = lay
  const small = (text: string, x: number, y: number, width: number, align: 'left' | 'center' | 'right') => {
    style(pdf, 'body', CHART_FONT_SIZE, GREY)
    pdf.text(text, x, y, { width, align, lineBreak: false, height: CHART_FONT_SIZE + 3 })
  }
  for (const t of lay.ticks) {
    pdf.moveTo(x0 + plot.x, y0 + t.y).lineTo(x0 + plot.x + plot.w, y0 + t.y).lineWidth(0.5).strokeColor(GRID_COLOUR).stroke()
    small(t.label, x0, y0 + t.y - CHART_FONT_SIZE / 2, plot.x - 4, 'right')
  }
  for (const b of lay.bars) pdf.rect(x0 + b.x, y0 + b.y, b.w, b.h).fill(BAR_COLOUR)
  if (lay.points.length > 0) {
    const [first, ...rest] = lay.points
    pdf.moveTo(x0 + first.x, y0 + first.y)
    for (const p of rest) pdf.lineTo(x0 + p.x, y0 + p.y)
    pdf.lineWidth(1.5).strokeColor(LINE_COLOUR).stroke()
    for (const p of lay.points) pdf.circle(x0 + p.x, y0 + p.y, 2).fill(LINE_COLOUR)
  }
  pdf.moveTo(x0 + plot.x, y0 + plot.y).lineTo(x0 + plot.x, y0 + plot.y + plot.h).lineTo(x0 + plot.x + plot.w, y0 + plot.y + plot.h)
    .lineWidth(0.75).strokeColor(AXIS_COLOUR).stroke()
  for (const l of lay.xLabels) small(l.text, x0 + l.x - 40, y0 + plot.y + plot.h + 3, 80, 'center')
  for (const v of lay.values) small(v.text, x0 + v.x - 40, y0 + v.y - CHART_FONT_SIZE - 1, 80, 'center')
  if (lay.empty) small(words.noData, x0 + plot.x, y0 + plot.y + plot.h / 2, plot.w, 'center')
}

/**
 * Column widths from the titles and the first rows' text. When all fit, they
 * grow to fill the page; when not, the narrow ones keep their width and the
 * wide ones share the rest equally (a long command wraps, a device name does not).
 */
function columnWidths(c: Ctx, s: RenderedSection): number[] {
  const total = contentWidth(c.pdf)
  const sample = s.rows.slice(0, 200)
  const desired = s.columns.map((col) => {
    style(c.pdf, 'bold', CELL_SIZE)
    let w = Math.min(c.pdf.widthOfString(localized(col.title, c.doc.locale)), 80)
    style(c.pdf, 'body', CELL_SIZE)
    for (const r of sample) w = Math.max(w, c.pdf.widthOfString(cellText(r[col.key], col, c.doc).slice(0, 150)))
    return Math.max(24, w + 2 * CELL_PAD + 1)
  })
  const sum = desired.reduce((a, b) => a + b, 0)
  if (sum <= total) return desired.map((d) => (d * total) / sum)
  const widths: number[] = new Array(desired.length)
  let left = desired.map((_, i) => i)
  let remaining = total
  for (;;) {
    const share = remaining / left.length
    const narrow = left.filter((i) => desired[i] <= share)
    if (narrow.length === 0) {
      for (const i of left) widths[i] = share
      return widths
    }
    for (const i of narrow) {
      widths[i] = desired[i]
      remaining -= desired[i]
    }
    left = left.filter((i) => desired[i] > share)
  }
}

/** A cell's text and how many lines it takes in `width` (at most MAX_LINES; more is cut with an ellipsis). */
function fit(pdf: Pdf, raw: string, width: number, lineH: number): { text: string; lines: number } {
  if (raw === '') return { text: '', lines: 1 }
  // No more characters than three lines could hold even in the narrowest glyphs: keeps the wrapper's work bounded.
  const cap = Math.ceil((MAX_LINES * width) / (CELL_SIZE * 0.25))
  const text = (raw.length > cap ? raw.slice(0, cap) : raw).replace(/\t/g, ' ').replace(/\r\n?/g, '\n')
  if (!text.includes('\n') && pdf.widthOfString(text) <= width) return { text, lines: 1 }
  const h = pdf.heightOfString(text, { width })
  return { text, lines: Math.min(MAX_LINES, Math.max(1, Math.round(h / lineH))) }
}

function table(c: Ctx, s: RenderedSection) {
  const { pdf, doc, words } = c
  const landscape = s.columns.length > 5
  newPage(c, landscape)
  para(c, s.title, 'bold', 13, TEXT, 3)
  para(c, words.rows(s.rows.length, s.totalRows, s.truncated), 'body', 8, GREY, 3)
  if (s.note) para(c, s.note, 'body', 9, NOTE, 3)
  if (s.rows.length > TABLE_ROW_CAP) para(c, words.shownFirst(TABLE_ROW_CAP), 'body', 9, NOTE, 3)
  c.y += 4
  if (s.columns.length === 0 || s.rows.length === 0) {
    para(c, words.noRows, 'body', 10, GREY)
    return
  }
  const widths = columnWidths(c, s)
  const xs = widths.reduce<number[]>((acc, w, i) => [...acc, i === 0 ? MARGIN : acc[i - 1] + widths[i - 1]], [])
  style(pdf, 'body', CELL_SIZE)
  const lineH = pdf.currentLineHeight(true)

  const header = () => {
    style(pdf, 'bold', CELL_SIZE)
    const cells = s.columns.map((col, i) => fit(pdf, localized(col.title, doc.locale), widths[i] - 2 * CELL_PAD, lineH))
    const h = Math.min(2, Math.max(...cells.map((x) => x.lines))) * lineH + 2 * CELL_PAD
    pdf.rect(MARGIN, c.y, contentWidth(pdf), h).fill(HEADER_FILL)
    style(pdf, 'bold', CELL_SIZE)
    cells.forEach((cell, i) => pdf.text(cell.text, xs[i] + CELL_PAD, c.y + CELL_PAD, { width: widths[i] - 2 * CELL_PAD, height: 2 * lineH + 0.5, ellipsis: true }))
    c.y += h
  }
  header()
  style(pdf, 'body', CELL_SIZE)
  for (const row of s.rows.slice(0, TABLE_ROW_CAP)) {
    const cells = s.columns.map((col: ReportColumn, i) => fit(pdf, cellText(row[col.key], col, doc), widths[i] - 2 * CELL_PAD, lineH))
    const h = Math.max(...cells.map((x) => x.lines)) * lineH + 2 * CELL_PAD
    if (c.y + h > bottom(pdf)) {
      newPage(c, landscape)
      para(c, `${s.title} (${words.continued})`, 'bold', 10, GREY, 4)
      header()
      style(pdf, 'body', CELL_SIZE)
    }
    cells.forEach((cell, i) => {
      if (cell.text === '') return
      const right = s.columns[i].type === 'integer'
      pdf.text(cell.text, xs[i] + CELL_PAD, c.y + CELL_PAD, { width: widths[i] - 2 * CELL_PAD, height: cell.lines * lineH + 0.5, ellipsis: true, align: right ? 'right' : 'left' })
    })
    c.y += h
    pdf.moveTo(MARGIN, c.y).lineTo(MARGIN + contentWidth(pdf), c.y).lineWidth(0.3).strokeColor(GRID_COLOUR).stroke()
  }
}

/** "page N of M" and the report's title at the foot of every page, once the page count is known. */
function footers(c: Ctx) {
  const { pdf } = c
  const range = pdf.bufferedPageRange()
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i)
    const keep = pdf.page.margins.bottom
    pdf.page.margins.bottom = 0 // text below the bottom margin would otherwise open a new page
    const y = pdf.page.height - MARGIN + 8
    const width = contentWidth(pdf)
    style(pdf, 'body', 8, GREY)
    pdf.text(c.doc.title, MARGIN, y, { width: width * 0.7, height: 10, lineBreak: false, ellipsis: true })
    pdf.text(c.words.page(i - range.start + 1, range.count), MARGIN, y, { width, align: 'right', lineBreak: false })
    pdf.page.margins.bottom = keep
  }
}
