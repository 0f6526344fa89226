/** The users and devices with the most failed authentications of the last 24 hours (GET /aaa/logs/stats/top-failures, aaa-logs.read); a user links to their log entries. */
import { Anchor, SimpleGrid, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { api } from '../../api/client'
import { useAuth } from '../../auth'
import { ErrorAlert } from '../../components/errors'
import { useI18n } from '../../i18n'
import { Link } from '../../router'
import { NoPermission, Panel } from './Panel'

export function TopFailuresCard() {
  const { t } = useI18n()
  const can = useAuth().can('aaa-logs.read')
  const top = useQuery({ queryKey: ['aaa-logs', 'top-failures'], queryFn: () => api.get('/api/v1/aaa/logs/stats/top-failures', { query: { hours: 24, limit: 5 } }), enabled: can, refetchInterval: 60_000 })
  const d = top.data
  const list = (head: string, rows: { key: string; name: ReactNode; n: number }[], testId: string) => (
    <Table data-testid={testId} aria-label={head}>
      <Table.Thead><Table.Tr><Table.Th>{head}</Table.Th><Table.Th ta="right">{t.dash.failures}</Table.Th></Table.Tr></Table.Thead>
      <Table.Tbody>
        {rows.map((r) => <Table.Tr key={r.key}><Table.Td>{r.name}</Table.Td><Table.Td ta="right">{r.n}</Table.Td></Table.Tr>)}
      </Table.Tbody>
    </Table>
  )
  return (
    <Panel title={t.dash.topFailures} testId="top-failures">
      {!can ? <NoPermission /> : <ErrorAlert error={top.error} />}
      {d && d.users.length === 0 && d.devices.length === 0 && <Text c="dimmed">{t.dash.noTopFailures}</Text>}
      {d && (d.users.length > 0 || d.devices.length > 0) && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {list(t.dash.users, d.users.map((u) => ({ key: u.username, name: <Anchor component={Link} href={`/logs?username=${encodeURIComponent(u.username)}`}>{u.username}</Anchor>, n: u.failures })), 'top-users')}
          {list(t.dash.devices, d.devices.map((x) => ({ key: x.nas_ip, name: x.device_name ? `${x.device_name} (${x.nas_ip})` : x.nas_ip, n: x.failures })), 'top-devices')}
        </SimpleGrid>
      )}
    </Panel>
  )
}
