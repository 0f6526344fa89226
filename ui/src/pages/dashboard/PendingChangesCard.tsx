/** Whether the policy as edited is what the daemons run (GET /aaa/policy/status, aaa-policy.read), and which daemons wait for a deploy. */
import { Anchor, Badge, Group, Stack, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { useAuth } from '../../auth'
import { ErrorAlert } from '../../components/errors'
import { useI18n } from '../../i18n'
import { Link } from '../../router'
import { NoPermission, Panel } from './Panel'

export function PendingChangesCard() {
  const { t } = useI18n()
  const can = useAuth().can('aaa-policy.read')
  const status = useQuery({ queryKey: ['aaa-policy', 'status'], queryFn: () => api.get('/api/v1/aaa/policy/status'), enabled: can, refetchInterval: 30_000 })
  const d = status.data
  const waiting = d?.daemons.filter((x) => x.pending) ?? []
  return (
    <Panel title={t.dash.pending} testId="pending-changes">
      {!can ? <NoPermission /> : <ErrorAlert error={status.error} />}
      {d && !d.pending && <Text c="dimmed">{t.dash.pendingNone}</Text>}
      {d?.pending && (
        <Stack gap="xs">
          <Text>{t.dash.pendingSome}</Text>
          <Group gap="xs">{waiting.map((x) => <Badge key={x.daemon} color="yellow">{x.daemon}</Badge>)}</Group>
          <Anchor component={Link} href="/deploys" size="sm">{t.dash.openDeploys}</Anchor>
        </Stack>
      )}
    </Panel>
  )
}
