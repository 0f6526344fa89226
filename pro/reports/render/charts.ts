/**
 * A chart's geometry, computed once and drawn twice: as PDF vector paths
 * (pdf.ts) and as inline SVG (html.ts). Coordinates are in points with the
 * origin top left, y growing downwards, as both PDF (pdfkit) and SVG use them.
 */
import type { ReportChart } from '@portcullis/sdk'
import type { ReportLocale } from './document.js'
import { cleanText, formatNumber } from './format.js'

/** The bars' and the line's colour: the PDF test looks for it on the rendered summary page. */
export const BAR_COLOUR = '#2f6fb0'
export const LINE_COLOUR = '#c0392b'
export const AXIS_COLOUR = '#777777'
export const GRID_COLOUR = '#dddddd'
export const CHART_FONT_SIZE = 7

export interface ChartLayout {
  width: number
  height: number
  plot: { x: number; y: number; w: number; h: number }
  /** Horizontal grid lines with their value, left of the plot. */
  ticks: { y: number; label: string }[]
  bars: { x: number; y: number; w: number; h: number }[]
  /** The line's points, in order (kind `line`). */
  points: { x: number; y: number }[]
  /** Category labels under the plot, centred on x; thinned when they would overlap. */
  xLabels: { x: number; text: string }[]
  /** Values written at their bar or point (all of them when few, else the highest). */
  values: { x: number; y: number; text: string }[]
  empty: boolean
}

/** A round step so that about five grid lines cover [0, max]. */
function niceStep(span: number): number {
  const raw = span / 5
  const mag = 10 ** Math.floor(Math.log10(raw))
  const f = raw / mag
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag
}

/** Cut a label to about `chars` characters. */
function cut(text: string, chars: number): string {
  const t = cleanText(text)
  return t.length <= chars ? t : `${t.slice(0, Math.max(1, chars - 1))}…`
}

export function layoutChart(chart: ReportChart, width: number, height: number, locale: ReportLocale): ChartLayout {
  const pts = chart.points.filter((p) => Number.isFinite(p.value))
  const values = pts.map((p) => p.value)
  let min = Math.min(0, ...values)
  let max = Math.max(0, ...values)
  if (min === max) max = min + 1
  const step = niceStep(max - min)
  min = Math.floor(min / step) * step
  max = Math.ceil(max / step) * step

  const ticks: ChartLayout['ticks'] = []
  const tickLabels: string[] = []
  for (let v = min; v <= max + step / 2; v += step) tickLabels.push(formatNumber(Math.round(v / step) * step, locale))
  const left = 8 + Math.max(...tickLabels.map((t) => t.length)) * CHART_FONT_SIZE * 0.55
  const plot = { x: left, y: 12, w: width - left - 8, h: height - 12 - 16 }
  const yOf = (v: number) => plot.y + plot.h - ((v - min) / (max - min)) * plot.h
  tickLabels.forEach((label, i) => ticks.push({ y: yOf(min + i * step), label }))

  const n = pts.length
  const slot = n > 0 ? plot.w / n : plot.w
  const every = Math.max(1, Math.ceil((n * 40) / plot.w))
  const xOf = (i: number) => plot.x + slot * i + slot / 2
  const labelChars = Math.max(3, Math.floor((slot * every) / (CHART_FONT_SIZE * 0.55)) - 1)
  const xLabels = pts.flatMap((p, i) => (i % every === 0 ? [{ x: xOf(i), text: cut(p.label, labelChars) }] : []))

  const bars: ChartLayout['bars'] = []
  const points: ChartLayout['points'] = []
  if (chart.kind === 'bar') {
    const w = Math.max(1, slot * 0.7)
    pts.forEach((p, i) => {
      const top = yOf(Math.max(0, p.value))
      const bottom = yOf(Math.min(0, p.value))
      bars.push({ x: xOf(i) - w / 2, y: top, w, h: Math.max(0.5, bottom - top) })
    })
  } else {
    pts.forEach((p, i) => points.push({ x: xOf(i), y: yOf(p.value) }))
  }

  // Every value when they fit above their bar, else only the highest (the number a reader looks for).
  const valueChars = Math.max(...pts.map((p) => formatNumber(p.value, locale).length), 1)
  const allFit = valueChars * CHART_FONT_SIZE * 0.55 <= slot
  const highest = values.indexOf(Math.max(...values))
  const shown = pts.map((p, i) => ({ p, i })).filter(({ i }) => allFit || i === highest)
  const valueLabels = shown.map(({ p, i }) => ({ x: xOf(i), y: yOf(Math.max(0, p.value)) - 2, text: formatNumber(p.value, locale) }))

  return { width, height, plot, ticks, bars, points, xLabels, values: valueLabels, empty: n === 0 }
}
