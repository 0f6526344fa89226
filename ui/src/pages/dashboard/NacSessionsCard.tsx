/** How many NAC sessions are live now (GET /nac/sessions?state=live, nac.sessions.read), with a link to the sessions screen. */
import { Anchor, Group, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { useAuth } from '../../auth'
import { ErrorAlert } from '../../components/errors'
import { useI18n } from '../../i18n'
import { Link } from '../../router'
import { NoPermission, Panel } from './Panel'

export function NacSessionsCard() {
  const { t } = useI18n()
  const can = useAuth().can('nac.sessions.read')
  const live = useQuery({ queryKey: ['nac', 'sessions', 'live-count'], queryFn: () => api.get('/api/v1/nac/sessions', { query: { state: 'live', page: 1, per_page: 1 } }), enabled: can, refetchInterval: 30_000 })
  return (
    <Panel title={t.dash.sessions} testId="nac-sessions">
      {!can ? <NoPermission /> : <ErrorAlert error={live.error} />}
      {live.data && (
        <Group justify="space-between" align="baseline">
          <Text>{t.dash.liveSessions}: <Text span fw={700} fz="xl" data-testid="live-sessions">{live.data.total_by_filter}</Text></Text>
          <Anchor component={Link} href="/nac/sessions">{t.dash.openSessions}</Anchor>
        </Group>
      )}
    </Panel>
  )
}
