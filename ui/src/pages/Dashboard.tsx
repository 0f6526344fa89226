/**
 * The dashboard: what the node says about itself (GET /dashboard/system-info),
 * its readiness (GET /ready), each daemon's deploy state, the daemons this
 * node supervises and the cluster in one line (SupervisedDaemons), and what failed
 * lately: deploys that failed, and failures in the audit trail (refused
 * sign-ins, refused changes), the update check (UpdateFeedCard), and the activity cards (dashboard/ActivityCards:
 * authentications per minute or hour by result, top failing users and devices, live NAC sessions, certificates
 * expiring, changes not deployed). Each card needs its own permission; a card the user may not read says so
 * instead of failing the page.
 */
import { Anchor, Badge, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { api, readiness } from '../api/client'
import type { ReadinessWithDaemons } from '../api/cluster'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { when } from './format'
import { ClusterSummary, SupervisedDaemons } from './SupervisedDaemons'
import { UpdateFeedCard } from './UpdateFeedCard'
import { Panel, Row } from './dashboard/Panel'

// The activity cards (charts, top failures, sessions, certificates, pending changes) load after the first screen.
const ActivityCards = lazy(() => import('./dashboard/ActivityCards'))


export function Dashboard() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const canInfo = auth.can('system.info.read')
  const canDeploys = auth.can('deploy.read')
  const canAudit = auth.can('audit.read')
  const info = useQuery({ queryKey: ['system-info'], queryFn: () => api.get('/api/v1/dashboard/system-info'), enabled: canInfo, refetchInterval: 30_000 })
  const ready = useQuery({ queryKey: ['ready'], queryFn: readiness, refetchInterval: 30_000 })
  const deploys = useQuery({
    queryKey: ['deploys', 'failed'],
    queryFn: () => api.get('/api/v1/deploys', { query: { status: 'failed', per_page: 5, sort_by: 'created_at', sort_order: 'desc' } }),
    enabled: canDeploys,
  })
  const audit = useQuery({
    queryKey: ['audit', 'failure'],
    queryFn: () => api.get('/api/v1/audit', { query: { outcome: 'failure', per_page: 8, sort_by: 'at', sort_order: 'desc' } }),
    enabled: canAudit,
  })
  const d = info.data
  const r = ready.data as ReadinessWithDaemons | undefined
  const why = t.deployFailure.dashboardReason
  // A failed deploy links to its details (the drawer of /deploys); its audit row (deploy.failed) is the same event, listed once.
  const failures = [
    ...(deploys.data?.items ?? []).map((x) => ({ id: x.id, at: x.created_at, what: t.dashboard.failedDeploy(x.daemon), href: `/deploys?deploy=${x.id}`, who: x.actor_name, reason: x.failure_reason ? why[x.failure_reason] : x.reload_status === 'failed' ? why.reload : x.checked === false ? why.check_failed : null })),
    ...(audit.data?.items ?? []).filter((x) => x.resource_type !== 'deploy').map((x) => ({ id: x.id, at: x.at, what: x.action, href: null, who: x.actor_name, reason: x.reason })),
  ].sort((a, b) => b.at.localeCompare(a.at)).slice(0, 10)

  return (
    <Stack>
      <Title order={1} size="h2">{t.dashboard.title}</Title>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Panel title={t.dashboard.readiness} testId="readiness">
          <ErrorAlert error={ready.error} />
          {r && (
            <Table>
              <Table.Tbody>
                <Row label={t.dashboard.status}><Badge color={r.status === 'healthy' ? 'green' : 'red'}>{r.status === 'healthy' ? t.dashboard.healthy : t.dashboard.degraded}</Badge></Row>
                <Row label={t.dashboard.database}>{t.serverValues.database[r.checks.database] ?? r.checks.database}</Row>
                <Row label={t.dashboard.masterKey}>{t.serverValues.masterKey[r.checks.master_key] ?? r.checks.master_key}</Row>
                {Object.entries(r.checks.daemons ?? {}).map(([daemon, state]) => (
                  <Row key={daemon} label={daemon}><Badge color={state === 'running' ? 'green' : 'red'} variant="light">{t.daemons.ready[state]}</Badge></Row>
                ))}
                <Row label={t.dashboard.version}>{r.version}</Row>
              </Table.Tbody>
            </Table>
          )}
        </Panel>
        <Panel title={t.dashboard.system} testId="system-info">
          {!canInfo ? <Text c="dimmed">{t.dashboard.noPermission}</Text> : <ErrorAlert error={info.error} />}
          {d && (
            <Table>
              <Table.Tbody>
                <Row label={t.dashboard.version}>{d.version}</Row>
                <Row label={t.dashboard.edition}>{d.edition.name}</Row>
                {d.installation_id && <Row label={t.dashboard.installationId}>{d.installation_id}</Row>}
                <Row label={t.dashboard.node}>{d.node_id}</Row>
                <Row label={t.dashboard.role}>{t.serverValues.role[d.role] ?? d.role}</Row>
                <Row label={t.dashboard.engine}>{d.database_engine}</Row>
                <Row label={t.dashboard.uptime}>{t.dashboard.uptimeValue(d.uptime_seconds)}</Row>
                <Row label={t.dashboard.timezone}>{d.timezone}</Row>
                <Row label={t.dashboard.plugins}>{d.plugins.map((p) => `${p.id} ${p.version}`).join(', ')}</Row>
                {auth.can('cluster.read') && <Row label={t.cluster.cluster}><ClusterSummary /></Row>}
              </Table.Tbody>
            </Table>
          )}
        </Panel>
      </SimpleGrid>
      <Suspense fallback={null}><ActivityCards /></Suspense>
      {/* The update check is the update-feed plugin's: shown when it runs (system info lists it). */}
      {d?.plugins.some((p) => p.id === 'update-feed') && <UpdateFeedCard />}
      <Panel title={t.dashboard.deploy} testId="deploy-status">
        {!canInfo && <Text c="dimmed">{t.dashboard.noPermission}</Text>}
        {d && d.deploy.daemons.length === 0 && <Text c="dimmed">{t.dashboard.noDaemons}</Text>}
        {d?.deploy.render_error && <Text c="red">{t.dashboard.renderError(d.deploy.render_error)}</Text>}
        {d && d.deploy.daemons.length > 0 && (
          <Table.ScrollContainer minWidth={500}>
            <Table>
              <Table.Thead>
                <Table.Tr><Table.Th>{t.dashboard.daemon}</Table.Th><Table.Th>{t.dashboard.status}</Table.Th><Table.Th>{t.dashboard.release}</Table.Th><Table.Th>{t.dashboard.deployedAt}</Table.Th></Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {d.deploy.daemons.map((x) => (
                  <Table.Tr key={x.daemon}>
                    <Table.Td>{x.daemon}</Table.Td>
                    <Table.Td><Badge color={x.pending ? 'yellow' : 'green'}>{x.pending ? t.dashboard.pending : t.dashboard.upToDate}</Badge></Table.Td>
                    <Table.Td>{x.active_release ?? t.dashboard.neverDeployed}</Table.Td>
                    <Table.Td>{when(x.deployed_at, language)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Panel>
      <Panel title={t.daemons.title} testId="supervised-daemons">
        {!canInfo && <Text c="dimmed">{t.dashboard.noPermission}</Text>}
        {d && <SupervisedDaemons daemons={d.daemons} />}
      </Panel>
      <Panel title={t.dashboard.failures} testId="failures">
        {!canDeploys && !canAudit && <Text c="dimmed">{t.dashboard.noPermission}</Text>}
        <ErrorAlert error={deploys.error ?? audit.error} />
        {(canDeploys || canAudit) && failures.length === 0 && !deploys.isLoading && !audit.isLoading && <Text c="dimmed">{t.dashboard.noFailures}</Text>}
        {failures.length > 0 && (
          <Table.ScrollContainer minWidth={500}>
            <Table>
              <Table.Thead>
                <Table.Tr><Table.Th>{t.dashboard.at}</Table.Th><Table.Th>{t.dashboard.what}</Table.Th><Table.Th>{t.dashboard.who}</Table.Th><Table.Th>{t.dashboard.reason}</Table.Th></Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {failures.map((f) => (
                  <Table.Tr key={f.id}>
                    <Table.Td>{when(f.at, language)}</Table.Td>
                    <Table.Td>{f.href ? <Anchor component={Link} href={f.href} data-testid="failed-deploy-link">{f.what}</Anchor> : f.what}</Table.Td>
                    <Table.Td>{f.who ?? '—'}</Table.Td>
                    <Table.Td>{f.reason ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Panel>
    </Stack>
  )
}
