/**
 * One device's configuration history: its versions (newest first, each with what it added and
 * removed), the unified diff between any two (by default the newest and the one before), and beside
 * it "who changed it": the TACACS+ commands logged on this device between the fetch before the change
 * and the fetch that found it, the ones that match a changed line marked. Text is masked unless the
 * reader holds ncm.reveal and asks; any version's whole configuration opens below.
 */
import { Alert, Badge, Button, Code, Grid, Group, Radio, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { when } from './format'
import { ADDED, fetchNow, OTHER_COLOR, REMOVED, type Changes, useChanges, useDiff, useTrackedDevice, useVersions, versionText } from './ncm-data'

export function NcmDevice({ id }: { id: string }) {
  const { t, language } = useI18n()
  const n = t.ncm
  const auth = useAuth()
  const device = useTrackedDevice(id)
  const versions = useVersions(id)
  const items = versions.data?.items ?? []
  const [pair, setPair] = useState<{ from: string | null; to: string | null }>({ from: null, to: null })
  // Until the reader picks, the newest version against the one before it.
  useEffect(() => {
    if (pair.to || items.length === 0) return
    setPair({ to: items[0].id, from: items[1]?.id ?? null })
  }, [items, pair.to])
  const diff = useDiff(id, pair.from, pair.to)
  const canLogs = auth.can('aaa-logs.read')
  const changes = useChanges(id, pair.to, canLogs)
  const [shown, setShown] = useState<string | null>(null)
  const text = useQuery({ queryKey: ['ncm', 'config', id, shown], queryFn: () => versionText(id, shown!), enabled: !!shown })
  const [notice, setNotice] = useState<string | null>(null)
  const fetch = useMutation({ mutationFn: () => fetchNow(id), onSuccess: () => setNotice(n.fetchAsked) })
  const name = device.data?.name ?? id
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{n.history(name)}</Title>
        {auth.can('ncm.manage') && <Button variant="default" onClick={() => fetch.mutate()} loading={fetch.isPending}>{n.fetchNow}</Button>}
      </Group>
      <Text size="sm"><Link href="/ncm/devices">{n.devices}</Link></Text>
      <ErrorAlert error={device.error ?? versions.error ?? fetch.error} />
      {notice && <Text size="sm" role="status">{notice}</Text>}
      <Title order={2} size="h3">{n.versions}</Title>
      <Table.ScrollContainer minWidth={720}>
        <Table striped aria-label={n.versions} data-testid="ncm-versions">
          <Table.Thead>
            <Table.Tr><Table.Th>{n.from}</Table.Th><Table.Th>{n.to}</Table.Th><Table.Th>{n.fetched}</Table.Th><Table.Th>{n.changes}</Table.Th><Table.Th>{n.seen}</Table.Th><Table.Th /></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((v, i) => (
              <Table.Tr key={v.id} data-version={i}>
                <Table.Td><Radio name="from" aria-label={`${n.from} ${when(v.first_finished_at, language)}`} checked={pair.from === v.id} onChange={() => setPair({ ...pair, from: v.id })} /></Table.Td>
                <Table.Td><Radio name="to" aria-label={`${n.to} ${when(v.first_finished_at, language)}`} checked={pair.to === v.id} onChange={() => setPair({ ...pair, to: v.id })} /></Table.Td>
                <Table.Td>{when(v.first_finished_at, language)}</Table.Td>
                <Table.Td>
                  <Text span c={ADDED} ff="monospace">{n.added(v.added)}</Text> <Text span c={REMOVED} ff="monospace">{n.removed(v.removed)}</Text>
                  {v.secrets_only && <Badge ml="xs" variant="filled" color={OTHER_COLOR}>{n.secretsOnly}</Badge>}
                </Table.Td>
                <Table.Td>{when(v.last_seen_at, language)} ({v.seen_count}×)</Table.Td>
                <Table.Td>
                  <Button size="compact-sm" variant="subtle" onClick={() => setShown(shown === v.id ? null : v.id)}>{shown === v.id ? n.hideConfig : n.showConfig}</Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {versions.data && items.length === 0 && <Text c="dimmed">{n.noVersion}</Text>}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Title order={2} size="h3">{n.diff}</Title>
          <ErrorAlert error={diff.error} />
          {!diff.data && <Text c="dimmed" size="sm">{n.noDiff}</Text>}
          {diff.data && <DiffView diff={diff.data} />}
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <WhoChanged changes={changes.data} error={changes.error} canLogs={canLogs} />
        </Grid.Col>
      </Grid>
      {shown && (
        <Stack gap="xs">
          <Title order={2} size="h3">{n.configOf(when(items.find((v) => v.id === shown)?.first_finished_at, language))}</Title>
          <ErrorAlert error={text.error} />
          {text.data !== undefined && <Code block tabIndex={0} data-testid="ncm-config" style={{ maxHeight: 520, overflow: 'auto' }}>{text.data}</Code>}
        </Stack>
      )}
    </Stack>
  )
}

/** The unified diff, a line a row: added lines green, removed red, the hunk headers dimmed. */
function DiffView({ diff }: { diff: { unified: string; added: number; removed: number; truncated: boolean; secrets_only: boolean } }) {
  const { t } = useI18n()
  const n = t.ncm
  const lines = diff.unified.split('\n').filter((l, i, a) => !(l === '' && i === a.length - 1))
  const color = (l: string) => (l.startsWith('@@') ? 'dimmed' : l.startsWith('+') && !l.startsWith('+++') ? ADDED : l.startsWith('-') && !l.startsWith('---') ? REMOVED : undefined)
  return (
    <Stack gap="xs" data-testid="ncm-diff">
      <Text size="sm"><Text span c={ADDED} ff="monospace">{n.added(diff.added)}</Text> <Text span c={REMOVED} ff="monospace">{n.removed(diff.removed)}</Text></Text>
      {diff.secrets_only && <Alert color="orange">{n.secretsOnly}</Alert>}
      {diff.truncated && <Alert color="yellow">{n.truncated}</Alert>}
      {lines.length === 0 ? (
        <Text c="dimmed" size="sm">{n.sameText}</Text>
      ) : (
        // A scrolled region is focusable, so the keyboard scrolls it too.
        <pre tabIndex={0} role="region" aria-label={n.diff} style={{ margin: 0, maxHeight: 520, overflow: 'auto' }}>
          {lines.map((l, i) => (
            <Text key={i} component="span" display="block" ff="monospace" fz={13} c={color(l)} data-line={l}>{l || ' '}</Text>
          ))}
        </pre>
      )}
    </Stack>
  )
}

function WhoChanged({ changes, error, canLogs }: { changes: Changes | undefined; error: unknown; canLogs: boolean }) {
  const { t, language } = useI18n()
  const n = t.ncm
  const forbidden = error instanceof ApiError && error.status === 403
  return (
    <Stack gap="xs" data-testid="ncm-who-changed" component="section" aria-label={n.whoChanged}>
      <Title order={2} size="h3">{n.whoChanged}</Title>
      <Text size="xs" c="dimmed">{n.whoHint}</Text>
      {(!canLogs || forbidden) && <Text size="sm" c="dimmed">{n.noLogsPermission}</Text>}
      {!forbidden && <ErrorAlert error={error} />}
      {changes && !changes.logs_available && <Text size="sm" c="dimmed">{n.noLogs}</Text>}
      {changes && changes.logs_available && changes.items.length === 0 && <Text size="sm" c="dimmed">{n.noCommands}</Text>}
      {changes && changes.items.length > 0 && (
        <Table.ScrollContainer minWidth={420}>
          <Table striped aria-label={n.whoChanged}>
            <Table.Thead>
              <Table.Tr><Table.Th>{n.when}</Table.Th><Table.Th>{n.user}</Table.Th><Table.Th>{n.command}</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {changes.items.map((c, i) => (
                <Table.Tr key={i} data-user={c.username ?? ''} data-matches={c.matches_diff ? 'yes' : 'no'} fw={c.matches_diff ? 600 : undefined}>
                  <Table.Td fz="sm">{when(c.timestamp, language)}</Table.Td>
                  <Table.Td>{c.username ?? t.common.none}</Table.Td>
                  <Table.Td ff="monospace" fz="sm">
                    {c.command}
                    {c.matches_diff && <Badge ml="xs" size="sm" variant="filled" color="#862e9c">{n.matchesDiff}</Badge>}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {changes?.truncated && <Text size="xs" c="dimmed">{n.logsTruncated}</Text>}
    </Stack>
  )
}
