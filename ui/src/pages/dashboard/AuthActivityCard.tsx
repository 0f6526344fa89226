/**
 * Authentications by result for TACACS+, RADIUS (device administration) and NAC, a chart each, from
 * GET /aaa/logs/stats/authentications (aaa-logs.read): per minute over the last 15 minutes or hour,
 * per hour over the last 24 hours or 7 days.
 */
import { SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { useAuth } from '../../auth'
import { ErrorAlert } from '../../components/errors'
import { useI18n } from '../../i18n'
import { clock, dayHour } from '../format'
import { BarChart } from './BarChart'
import { NoPermission, Panel } from './Panel'

const RANGES = ['15m', '1h', '24h', '7d'] as const
type Range = (typeof RANGES)[number]
const PROTOCOLS = ['tacacs', 'radius', 'nac'] as const

export function AuthActivityCard() {
  const { t, language } = useI18n()
  const can = useAuth().can('aaa-logs.read')
  const [range, setRange] = useState<Range>('24h')
  const stats = useQuery({
    queryKey: ['aaa-logs', 'stats', range],
    queryFn: () => api.get('/api/v1/aaa/logs/stats/authentications', { query: { range } }),
    enabled: can,
    refetchInterval: 30_000,
  })
  const s = stats.data
  const axis = (iso: string) => (range === '7d' ? dayHour(iso, language) : clock(iso, language))
  const series = (protocol: string, result: string) => s?.series.find((x) => x.protocol === protocol && x.result === result)
  return (
    <Panel title={t.dash.activity} testId="auth-activity">
      {!can ? <NoPermission /> : (
        <Stack gap="sm">
          <SegmentedControl aria-label={t.dash.range} size="xs" value={range} onChange={(v) => setRange(v as Range)} data={RANGES.map((r) => ({ value: r, label: t.dash.ranges[r] }))} />
          <Text size="sm" c="dimmed">{t.dash.activityHint(range === '15m' || range === '1h')}</Text>
          <ErrorAlert error={stats.error} />
          {s && (
            <SimpleGrid cols={{ base: 1, lg: 3 }}>
              {PROTOCOLS.map((p) => {
                const ok = series(p, 'success')
                const failed = series(p, 'failure')
                const name = t.dash.protocols[p]
                return (
                  <Stack key={p} gap={4} data-testid={`chart-${p}`}>
                    <Title order={3} size="h6">{name}</Title>
                    <BarChart
                      label={t.dash.chart(name, ok?.total ?? 0, failed?.total ?? 0, t.dash.ranges[range])}
                      data={{ buckets: s.buckets, ok: ok?.counts ?? [], failed: failed?.counts ?? [] }}
                      axis={axis}
                    />
                  </Stack>
                )
              })}
            </SimpleGrid>
          )}
        </Stack>
      )}
    </Panel>
  )
}
