/**
 * The dashboard's update-check card (GET /api/v1/update-feed): the last check's status, a newer
 * release with its notes, the security advisories that affect the running version, and
 * `min_supported` as advice. Everything the manifest says is shown as text: it comes from outside,
 * and only an http(s) address becomes a link. Administrators can check at once.
 */
import { Alert, Anchor, Badge, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'

/** A manifest's address as a link only when it is http(s); anything else (javascript:, data:) stays text. */
export function WebLink({ href, children }: { href: string; children: string }) {
  let safe = false
  try {
    const u = new URL(href)
    safe = u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    safe = false
  }
  return safe ? <Anchor href={href} target="_blank" rel="noopener noreferrer nofollow">{children}</Anchor> : <Text span>{children}</Text>
}

const statusColor: Record<string, string> = { ok: 'green', never: 'gray', unreachable: 'yellow', rejected: 'red' }
const severityColor: Record<string, string> = { critical: 'red', high: 'orange', medium: 'yellow', low: 'gray' }

export function UpdateFeedCard() {
  const { t, language } = useI18n()
  const u = t.updateFeed
  const auth = useAuth()
  const qc = useQueryClient()
  const feed = useQuery({ queryKey: ['update-feed'], queryFn: () => api.get('/api/v1/update-feed'), refetchInterval: 300_000 })
  const check = useMutation({
    mutationFn: () => api.post('/api/v1/update-feed/check'),
    onSuccess: (data) => qc.setQueryData(['update-feed'], data),
  })
  const f = feed.data
  const m = f?.manifest ?? null
  return (
    <Card withBorder radius="md" component="section" aria-label={u.title} data-testid="update-feed">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">{u.title}</Title>
        {auth.me?.is_admin && f?.enabled && (
          <Button size="xs" variant="light" loading={check.isPending} onClick={() => check.mutate()} data-testid="update-feed-check">{u.checkNow}</Button>
        )}
      </Group>
      <ErrorAlert error={feed.error ?? check.error} />
      {f && (
        <Stack gap="sm">
          {!f.enabled && <Text c="dimmed" size="sm">{u.off}</Text>}
          <Table>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w="40%" fw={500}>{u.status}</Table.Th>
                <Table.Td>
                  <Badge color={statusColor[f.status] ?? 'gray'} variant="light">{u.statuses[f.status] ?? f.status}</Badge>
                  {f.reason && <Text span size="sm" ml="xs">{u.reasons[f.reason] ?? f.reason}{f.http_status ? ` (${u.httpStatus(f.http_status)})` : ''}</Text>}
                </Table.Td>
              </Table.Tr>
              <Table.Tr><Table.Th fw={500}>{u.checkedAt}</Table.Th><Table.Td>{when(f.checked_at, language)}</Table.Td></Table.Tr>
              {f.status !== 'ok' && m && <Table.Tr><Table.Th fw={500}>{u.lastOk}</Table.Th><Table.Td>{when(f.last_ok_at, language)}</Table.Td></Table.Tr>}
              <Table.Tr><Table.Th fw={500}>{u.running}</Table.Th><Table.Td>{f.running_version}</Table.Td></Table.Tr>
              {m && <Table.Tr><Table.Th fw={500}>{u.latest}</Table.Th><Table.Td>{m.latest} · <WebLink href={m.release_notes_url}>{u.releaseNotes}</WebLink></Table.Td></Table.Tr>}
            </Table.Tbody>
          </Table>
          {(f.status === 'rejected' || f.status === 'unreachable') && m && <Text size="sm" c="dimmed">{u.kept}</Text>}
          {m && (f.update_available ? <Alert color="blue" data-testid="update-available">{u.newer(m.latest)}</Alert> : <Text size="sm">{u.upToDate}</Text>)}
          {m && f.below_min_supported && <Alert color="yellow" data-testid="below-min-supported">{u.minSupported(m.min_supported)}</Alert>}
          {m && (f.advisories_affecting.length === 0 ? <Text size="sm" c="dimmed">{u.noAdvisories}</Text> : (
            <Table aria-label={u.advisories} data-testid="update-feed-advisories">
              <Table.Thead><Table.Tr><Table.Th>{u.severity}</Table.Th><Table.Th>{u.advisory}</Table.Th></Table.Tr></Table.Thead>
              <Table.Tbody>
                {f.advisories_affecting.map((a) => (
                  <Table.Tr key={a.id}>
                    <Table.Td><Badge color={severityColor[a.severity] ?? 'gray'}>{a.severity}</Badge></Table.Td>
                    <Table.Td><WebLink href={a.url}>{a.id}</WebLink> <Text span>{a.title}</Text></Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          ))}
          {check.isSuccess && <Text size="sm" role="status">{u.checked}</Text>}
        </Stack>
      )}
    </Card>
  )
}
