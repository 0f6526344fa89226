/**
 * Deploys: what each daemon has not yet deployed (system info's `deploy`),
 * the dry run's per-file diff, the deploy itself (a progress bar while the
 * daemons' checks and reloads run: it takes seconds), the history and the
 * rollback of an earlier release, a deploy's details (DeployDetails), and what
 * each node of the cluster serves (NodesPanel). Refusals (a failed check, another deploy
 * running, a release that cannot be rolled back) show in the alert. Beside the diff, whose
 * access changes (ImpactPanel: the policy plugins' impact reports, asked with the dry run or,
 * without one, when Deploy is pressed). Every deploy and rollback asks first in the console's one
 * confirmation (Confirm.tsx), naming the releases it replaces and, for a deploy, the reports'
 * sentences; one that denies what is permitted today says how much and is confirmed with
 * "Deploy anyway" (recorded as such). Every deploy carries what was shown into its audit entry.
 */
import { Badge, Button, Code, Group, Paper, Progress, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import type { Deploy } from '../api/types'
import { useAuth, usePluginRuns } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { DeployDetails } from './DeployDetails'
import { DEPLOY_FILTERS, DEPLOY_SORTS, DeployHistory } from './DeployHistory'
import { useListState } from '../components/list-state'
import { NodesPanel } from './ClusterNodes'
import { RadiusConfigPreview } from './RadiusConfigPreview'
import { ImpactPanel, impactText, resultText } from './DeployImpact'
import { useConfirm } from '../components/Confirm'
import { askImpact, impactRecord, permitToDeny, type ImpactResult } from './impact-data'
import { DeployAlone } from './DeployFailure'

type DryRun = { daemon: string; current_release: string | null; changes: { path: string; change: string; diff: string }[] }

export function Deploys() {
  const { t } = useI18n()
  const ask = useConfirm()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('deploy.write')
  const info = useQuery({ queryKey: ['system-info'], queryFn: () => api.get('/api/v1/dashboard/system-info'), enabled: auth.can('system.info.read') })
  // The history's page, size, sort and filters, and the release whose details are open, in the address.
  const list = useListState({ sorts: DEPLOY_SORTS, sort: 'created_at', order: 'desc', filters: DEPLOY_FILTERS })
  const [comment, setComment] = useState('')
  const runs = usePluginRuns()
  // The deploy whose details are open, kept in the URL (a link to it can be sent); the history stays on its page.
  const open = list.filters.deploy
  const show = (id: string | null) => list.setParams({ deploy: id, page: list.page > 1 ? String(list.page) : null })
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ['deploys'] })
    await qc.invalidateQueries({ queryKey: ['system-info'] })
    await qc.invalidateQueries({ queryKey: ['aaa-policy'] })
    await qc.invalidateQueries({ queryKey: ['cluster-nodes'] })
  }
  const dry = useMutation({
    mutationFn: async (d?: string): Promise<DryRun[]> => (await api.post('/api/v1/deploys', { body: { dry_run: true, daemon: d } })).daemons,
  })
  // The impact reports of a daemon's deploy (undefined: of every daemon's).
  const impact = useMutation({ mutationFn: (d?: string) => askImpact({ daemon: d, runs, can: auth.can }) })
  const deploy = useMutation({
    // The client types the lowest 2xx (the dry run's 200); a deploy answers 201 { deploys }.
    mutationFn: async (o: { daemon?: string; results: ImpactResult[]; confirmed: boolean }) => {
      const shown = o.results.length ? impactRecord(o.results, impactText(t, o.results), o.confirmed) : undefined
      return ((await api.post('/api/v1/deploys', { body: { daemon: o.daemon, comment: comment || undefined, impact: shown } })) as unknown as { deploys: Deploy[] }).deploys
    },
    onSuccess: async () => {
      setComment('')
      dry.reset()
      impact.reset()
      rollback.reset()
      await refresh()
    },
    // A refused deploy leaves its releases in the history, marked failed.
    onError: refresh,
  })
  const rollback = useMutation({
    mutationFn: (id: string) => api.post('/api/v1/deploys/{deploy_id}/rollback', { params: { deploy_id: id } }),
    onSuccess: () => {
      deploy.reset()
      return refresh()
    },
  })
  const daemons = info.data?.deploy.daemons ?? []
  const busy = deploy.isPending || rollback.isPending || (impact.isPending && !dry.isPending)
  const showChanges = (d?: string) => {
    dry.mutate(d)
    impact.mutate(d)
  }
  // Deploy with the impact shown for the same daemons, or asked now, once confirmed: the dialog names the
  // releases replaced and each report's sentence; a denial of what is permitted today is said first.
  const startDeploy = async (d?: string) => {
    const results = impact.data && impact.variables === d ? impact.data : await impact.mutateAsync(d)
    const denied = permitToDeny(results)
    const days = results.flatMap((r) => ('impact' in r ? [r.impact.window.days] : []))[0] ?? 7
    const ok = await ask({
      title: d ? t.confirm.deployTitle(d) : t.confirm.deployAllTitle,
      message: denied.requests > 0 ? t.impact.confirmQuestion(denied.requests, denied.events, days) : t.confirm.deployQuestion,
      touches: [
        ...daemons.filter((x) => d === undefined || x.daemon === d).map((x) => t.confirm.replaces(x.daemon, x.active_release)),
        ...results.map((r) => `${t.impact.sources[r.source.name]}: ${resultText(t, r)}`),
      ],
      confirmLabel: denied.requests > 0 ? t.impact.deployAnyway : t.deploys.deploy,
      danger: denied.requests > 0,
    })
    if (ok) deploy.mutate({ daemon: d, results, confirmed: denied.requests > 0 })
  }
  // A rollback names the release it makes active again and the one it replaces.
  const askRollback = async (d: Deploy) => {
    const active = daemons.find((x) => x.daemon === d.daemon)?.active_release ?? null
    const ok = await ask({
      title: t.confirm.rollbackTitle(d.daemon, d.release),
      message: t.deploys.rollbackConfirm(d.daemon, d.release),
      touches: [t.confirm.rollbackBecomes(d.release), t.confirm.rollbackReplaces(d.daemon, active)],
      confirmLabel: t.deploys.rollback,
    })
    if (ok) rollback.mutate(d.id)
  }

  return (
    <Stack>
      <Title order={1} size="h2">{t.deploys.title}</Title>
      <Paper withBorder p="md" data-testid="pending">
        <Stack>
          <Title order={2} size="h4">{t.deploys.pending}</Title>
          {info.data?.deploy.render_error && <Text c="red">{t.dashboard.renderError(info.data.deploy.render_error)}</Text>}
          <Table>
            <Table.Thead>
              <Table.Tr><Table.Th>{t.dashboard.daemon}</Table.Th><Table.Th>{t.dashboard.status}</Table.Th><Table.Th>{t.dashboard.release}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {daemons.map((x) => (
                <Table.Tr key={x.daemon}>
                  <Table.Td>{x.daemon}</Table.Td>
                  <Table.Td><Badge color={x.pending ? 'yellow' : 'green'}>{x.pending ? t.dashboard.pending : t.dashboard.upToDate}</Badge></Table.Td>
                  <Table.Td>{x.active_release ?? t.dashboard.neverDeployed}</Table.Td>
                  {canWrite && (
                    <Table.Td>
                      <Group gap={4} justify="flex-end" wrap="nowrap">
                        <Button size="compact-sm" variant="subtle" onClick={() => showChanges(x.daemon)} loading={dry.isPending && dry.variables === x.daemon} aria-label={`${t.deploys.dryRun} ${x.daemon}`}>{t.deploys.dryRun}</Button>
                        <Button size="compact-sm" variant="light" onClick={() => void startDeploy(x.daemon)} disabled={busy} aria-label={`${t.deploys.deploy} ${x.daemon}`}>{t.deploys.deploy}</Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {canWrite && (
            <Group align="flex-end">
              <TextInput label={t.deploys.comment} name="comment" value={comment} onChange={(e) => setComment(e.currentTarget.value)} w={360} maw="100%" error={fieldError(deploy.error, 'comment')} />
              <Button variant="default" onClick={() => showChanges(undefined)} loading={dry.isPending && dry.variables === undefined}>{t.deploys.dryRunAll}</Button>
              <Button onClick={() => void startDeploy(undefined)} loading={deploy.isPending || (impact.isPending && !dry.isPending)} disabled={busy}>{t.deploys.deployAll}</Button>
            </Group>
          )}
          {(deploy.isPending || rollback.isPending) && (
            <Stack gap={4} data-testid="deploy-progress" role="status">
              <Text size="sm">{deploy.isPending ? t.deploys.deploying : t.deploys.rollingBack}</Text>
              <Progress value={100} animated striped aria-label={t.deploys.deploying} />
            </Stack>
          )}
          <ErrorAlert error={deploy.error ?? dry.error ?? rollback.error} fields={['comment']} />
          {canWrite && <DeployAlone error={deploy.error} all={deploy.variables?.daemon === undefined} busy={busy} onDeploy={(d) => void startDeploy(d)} />}
          {deploy.data && (
            <Text c="green" role="status" data-testid="deploy-result">{t.deploys.deployed(deploy.data.map((d) => `${d.daemon} ${d.release}`).join(', '))}</Text>
          )}
          {rollback.data && <Text c="green" role="status" data-testid="deploy-result">{t.deploys.rolledBack(`${rollback.data.daemon} ${rollback.data.release}`)}</Text>}
        </Stack>
      </Paper>
      {(impact.isPending || impact.data) && <ImpactPanel results={impact.data} pending={impact.isPending} />}
      {dry.data && <DryRunView daemons={dry.data} />}
      <NodesPanel />
      <DeployHistory list={list} daemons={daemons.map((x) => x.daemon)} canWrite={canWrite} busy={busy} onOpen={show} onRollback={(d) => void askRollback(d)} />
      {auth.can('radius.read') && runs('radius') && <RadiusConfigPreview />}
      <DeployDetails id={open} onClose={() => show(null)} />
    </Stack>
  )
}

/**
 * Files a release keeps for the server, not for the daemon (the policy test's and the change
 * impact's inputs): after the daemon's own files, folded, said so.
 */
const MACHINE_FILES = new Set(['policy-test-inputs.json', 'nac-policy-inputs.json'])
const forMachine = (path: string) => MACHINE_FILES.has(path.split('/').pop() ?? '')

/** The dry run: per daemon, each file that would change and its unified diff (secrets masked by the server). */
function DryRunView({ daemons }: { daemons: DryRun[] }) {
  const { t } = useI18n()
  return (
    <Paper withBorder p="md" data-testid="dry-run">
      <Stack>
        <Title order={2} size="h4">{t.deploys.diff}</Title>
        {daemons.map((d) => {
          const changed = d.changes.filter((c) => c.change !== 'unchanged').sort((a, b) => Number(forMachine(a.path)) - Number(forMachine(b.path)))
          const daemonFiles = changed.filter((c) => !forMachine(c.path)).length
          return (
            <Stack key={d.daemon} gap="xs">
              <Text fw={600}>{d.daemon} <Text span c="dimmed" size="sm">{d.current_release ?? t.dashboard.neverDeployed}</Text></Text>
              {changed.length === 0 && <Text c="dimmed" size="sm">{t.deploys.noChanges}</Text>}
              {changed.map((c) => (
                <details key={c.path} open={!forMachine(c.path) && daemonFiles <= 3} data-machine={forMachine(c.path) || undefined}>
                  <summary><Badge size="sm" mr="xs" color={c.change === 'added' ? 'green' : c.change === 'removed' ? 'red' : 'yellow'}>{t.deploys.change[c.change as 'added']}</Badge><Code>{c.path}</Code>{forMachine(c.path) && <Text span c="dimmed" size="sm" ml="xs">{t.deploys.machineFile}</Text>}</summary>
                  <Code block mah={360} style={{ overflow: 'auto' }}>
                    {c.diff.split('\n').map((line, i) => (
                      <span key={i} style={{ display: 'block', color: line.startsWith('+') ? 'var(--mantine-color-green-8)' : line.startsWith('-') ? 'var(--mantine-color-red-8)' : undefined }}>{line || ' '}</span>
                    ))}
                  </Code>
                </details>
              ))}
            </Stack>
          )
        })}
      </Stack>
    </Paper>
  )
}
