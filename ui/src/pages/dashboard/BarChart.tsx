/**
 * A small stacked bar chart in inline SVG (no chart library: the console's first screen stays
 * light): one bar a time bucket, successes below failures, the largest bucket's count and the
 * first, middle and last times on the axes. Each bar is an image with its own label (the time and
 * both counts), and a <title> a pointer shows; the chart's label sums the range.
 */
import { useI18n } from '../../i18n'

export interface BarSeries {
  buckets: string[]
  ok: number[]
  failed: number[]
}

const W = 600
const H = 140
const LEFT = 34
const BOTTOM = 18
const TOP = 6

export function BarChart({ label, data, axis, testId }: { label: string; data: BarSeries; axis: (iso: string) => string; testId?: string }) {
  const { t } = useI18n()
  const n = data.buckets.length
  const max = Math.max(1, ...data.ok.map((x, i) => x + data.failed[i]))
  const plotW = W - LEFT - 4
  const plotH = H - BOTTOM - TOP
  const step = plotW / Math.max(1, n)
  const barW = Math.max(1, step * 0.8)
  const y = (v: number) => TOP + plotH - (v / max) * plotH
  const ticks = n > 0 ? [0, Math.floor((n - 1) / 2), n - 1] : []
  return (
    <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="group" aria-label={label} data-testid={testId} style={{ maxHeight: 180, display: 'block' }}>
      <title>{label}</title>
      <line x1={LEFT} x2={W - 4} y1={TOP + plotH} y2={TOP + plotH} stroke="var(--mantine-color-gray-5)" />
      <text x={LEFT - 4} y={TOP + 8} textAnchor="end" fontSize="10" fill="currentColor">{max}</text>
      <text x={LEFT - 4} y={TOP + plotH} textAnchor="end" fontSize="10" fill="currentColor">0</text>
      {ticks.map((i) => (
        <text key={i} x={LEFT + i * step + step / 2} y={H - 4} textAnchor={i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle'} fontSize="10" fill="currentColor">
          {axis(data.buckets[i])}
        </text>
      ))}
      {data.buckets.map((b, i) => {
        const ok = data.ok[i]
        const failed = data.failed[i]
        if (ok + failed === 0) return null
        const text = t.dash.bar(axis(b), ok, failed)
        const x = LEFT + i * step + (step - barW) / 2
        return (
          <g key={b} role="img" aria-label={text} data-testid="bar" data-ok={ok} data-failed={failed}>
            <title>{text}</title>
            {ok > 0 && <rect x={x} width={barW} y={y(ok)} height={TOP + plotH - y(ok)} fill="var(--mantine-color-green-6)" />}
            {failed > 0 && <rect x={x} width={barW} y={y(ok + failed)} height={y(ok) - y(ok + failed)} fill="var(--mantine-color-red-6)" />}
          </g>
        )
      })}
    </svg>
  )
}
