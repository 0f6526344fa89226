/**
 * The CoA history (GET /nac/coa-requests), newest first: every Change of
 * Authorization sent, by hand or automatically, with its outcome; filters by
 * result, action and reason, and by one endpoint or one NAS (kept in the URL:
 * the endpoint's dialog links here). A NAS's name opens its CoA settings.
 */
import { Anchor, Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { ListFooter } from '../components/crud'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { CoaNasDialog } from './CoaNasDialog'
import { when } from './format'

const PER_PAGE = 20
const RESULTS = ['pending', 'ack', 'nak', 'timeout', 'bad_response', 'error'] as const
const ACTIONS = ['reauthenticate', 'disconnect', 'bounce-port'] as const
const REASONS = ['admin', 'group_change', 'device_type_change', 'profile_change', 'policy_change', 'user_access_ended'] as const
const COLOR = { pending: 'blue', ack: 'green', nak: 'red', timeout: 'orange', bad_response: 'red', error: 'gray' } as const
type Scope = { endpoint_id?: string; mac?: string; device_id?: string; device?: string }

const fromUrl = (): Scope => {
  const u = new URLSearchParams(location.search)
  const o: Scope = {}
  for (const k of ['endpoint_id', 'mac', 'device_id', 'device'] as const) if (u.get(k)) o[k] = u.get(k)!
  return o
}

export function CoaHistory() {
  const { t, language } = useI18n()
  const [page, setPage] = useState(1)
  const [f, setF] = useState<{ result: (typeof RESULTS)[number] | null; action: (typeof ACTIONS)[number] | null; reason: (typeof REASONS)[number] | null }>({ result: null, action: null, reason: null })
  const [scope, setScopeState] = useState<Scope>(fromUrl)
  const [nas, setNas] = useState<{ id: string; name: string } | null>(null)
  const setScope = (s: Scope) => {
    setScopeState(s)
    setPage(1)
    const q = new URLSearchParams({ tab: 'coa', ...s })
    history.replaceState(null, '', `/nac/sessions?${q}`)
  }
  const set = <K extends keyof typeof f>(k: K, v: (typeof f)[K]) => {
    setF((o) => ({ ...o, [k]: v }))
    setPage(1)
  }
  const query = { result: f.result ?? undefined, action: f.action ?? undefined, reason: f.reason ?? undefined, endpoint_id: scope.endpoint_id, device_id: scope.device_id }
  const list = useQuery({
    queryKey: ['nac', 'coa-requests', page, query],
    queryFn: () => api.get('/api/v1/nac/coa-requests', { query: { page, per_page: PER_PAGE, sort_by: 'created_at', sort_order: 'desc', ...query } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  })
  return (
    <Stack data-testid="coa-history">
      <Group align="flex-end">
        <Select aria-label={t.nac.coaResultLabel} placeholder={t.nac.anyResult} clearable w={200} value={f.result} onChange={(v) => set('result', v as typeof f.result)} data={RESULTS.map((r) => ({ value: r, label: t.nac.coaResults[r] }))} />
        <Select aria-label={t.nac.coaActionLabel} placeholder={t.nac.anyAction} clearable w={200} value={f.action} onChange={(v) => set('action', v as typeof f.action)} data={ACTIONS.map((a) => ({ value: a, label: t.nac.coaActions[a] }))} />
        <Select aria-label={t.nac.coaReasonLabel} placeholder={t.nac.anyReason} clearable w={220} value={f.reason} onChange={(v) => set('reason', v as typeof f.reason)} data={REASONS.map((r) => ({ value: r, label: t.nac.coaReasons[r] }))} />
        {scope.endpoint_id && <Button variant="light" size="sm" onClick={() => setScope({ device_id: scope.device_id, device: scope.device })} aria-label={t.nac.clearScope(scope.mac ?? scope.endpoint_id)}>{t.nac.scopeEndpoint(scope.mac ?? scope.endpoint_id)} ✕</Button>}
        {scope.device_id && <Button variant="light" size="sm" onClick={() => setScope({ endpoint_id: scope.endpoint_id, mac: scope.mac })} aria-label={t.nac.clearScope(scope.device ?? scope.device_id)}>{t.nac.scopeDevice(scope.device ?? scope.device_id)} ✕</Button>}
      </Group>
      <ErrorAlert error={list.error} />
      <Table.ScrollContainer minWidth={1000}>
        <Table striped aria-label={t.nac.coaHistory} data-testid="coa-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.nac.coaTime}</Table.Th><Table.Th>{t.nac.mac}</Table.Th><Table.Th>{t.nac.coaActionLabel}</Table.Th><Table.Th>{t.nac.coaReasonLabel}</Table.Th>
              <Table.Th>{t.nac.coaDevice}</Table.Th><Table.Th>{t.nac.coaResultLabel}</Table.Th><Table.Th>{t.nac.coaBy}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((r) => (
              <Table.Tr key={r.id} data-coa={r.id} data-result={r.result}>
                <Table.Td>{when(r.created_at, language)}</Table.Td>
                <Table.Td ff="monospace">
                  {r.endpoint_id ? <Anchor component="button" type="button" ff="monospace" size="sm" onClick={() => setScope({ ...scope, endpoint_id: r.endpoint_id!, mac: r.mac })}>{r.mac}</Anchor> : r.mac}
                </Table.Td>
                <Table.Td>{t.nac.coaActions[r.action]}</Table.Td>
                <Table.Td>{t.nac.coaReasons[r.reason]}</Table.Td>
                <Table.Td>
                  {r.device_id ? (
                    <Group gap={4} wrap="nowrap">
                      <Anchor component="button" type="button" size="sm" onClick={() => setScope({ ...scope, device_id: r.device_id!, device: r.device_name ?? r.nas_ip ?? undefined })}>{r.device_name ?? r.nas_ip}</Anchor>
                      <Button size="compact-xs" variant="subtle" onClick={() => setNas({ id: r.device_id!, name: r.device_name ?? r.nas_ip ?? '' })} aria-label={t.nac.coaSettingsOf(r.device_name ?? r.nas_ip ?? '')}>⚙</Button>
                    </Group>
                  ) : (r.nas_ip ?? t.common.none)}
                  {r.nas_ip && <Text size="xs" c="dimmed" ff="monospace">{r.nas_ip}{r.nas_port ? `:${r.nas_port}` : ''}{r.dialect ? ` ${r.dialect}` : ''}</Text>}
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" tt="none" color={COLOR[r.result]}>{t.nac.coaResults[r.result]}</Badge>
                  {(r.error_cause !== null || r.error_detail) && <Text size="xs" c="dimmed">{r.error_cause !== null ? `${r.error_cause}${r.error_cause_name ? ` ${r.error_cause_name}` : ''} ` : ''}{r.error_detail ?? ''}</Text>}
                </Table.Td>
                <Table.Td>{r.requested_by_username ?? t.nac.automatic}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total === 0 && <Text c="dimmed">{t.nac.noCoa}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} />
      {nas && <CoaNasDialog device={nas} onClose={() => setNas(null)} />}
    </Stack>
  )
}
