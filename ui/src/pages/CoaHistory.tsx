/**
 * The CoA history (GET /nac/coa-requests), newest first: every Change of
 * Authorization sent, by hand or automatically, with its outcome; filters by
 * result, action and reason, and by one endpoint or one NAS (the endpoint's
 * dialog links here); the time header reverses the order (the route's one
 * sort); 20 a page (or 50, 100); page, size, order and filters in the address
 * (list-state.ts). A NAS's name opens its CoA settings. No bulk action: a CoA
 * is sent again from the sessions, where it is asked for what it cuts.
 */
import { Anchor, Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { CoaNasDialog } from './CoaNasDialog'
import { when } from './format'

const RESULTS = ['pending', 'ack', 'nak', 'timeout', 'bad_response', 'error'] as const
const ACTIONS = ['reauthenticate', 'disconnect', 'bounce-port'] as const
const REASONS = ['admin', 'group_change', 'device_type_change', 'profile_change', 'policy_change', 'user_access_ended'] as const
const COLOR = { pending: 'blue', ack: 'green', nak: 'red', timeout: 'orange', bad_response: 'red', error: 'gray' } as const
/** GET /nac/coa-requests sorts by its time alone. */
const SORTS = ['created_at'] as const
/** The route's filters, and the names shown for the endpoint and the NAS scoped to (`mac`, `device`), in the address. */
const FILTERS = ['tab', 'result', 'action', 'reason', 'endpoint_id', 'mac', 'device_id', 'device'] as const
const oneOf = <T extends string>(all: readonly T[], v: string | null): T | undefined => all.find((x) => x === v)

export function CoaHistory() {
  const { t, language } = useI18n()
  // Newest first, 20 a page (or 50, 100); page, size, order and filters in the address beside `tab=coa`.
  const list = useListState({ sorts: SORTS, sort: 'created_at', order: 'desc', filters: FILTERS })
  const f = { result: oneOf(RESULTS, list.filters.result), action: oneOf(ACTIONS, list.filters.action), reason: oneOf(REASONS, list.filters.reason) }
  const scope = { endpoint_id: list.filters.endpoint_id, mac: list.filters.mac, device_id: list.filters.device_id, device: list.filters.device }
  const [nas, setNas] = useState<{ id: string; name: string } | null>(null)
  const scopeEndpoint = (id: string | null, mac: string | null) => list.setParams({ endpoint_id: id, mac })
  const scopeDevice = (id: string | null, name: string | null) => list.setParams({ device_id: id, device: name })
  const query = { ...list.query, result: f.result, action: f.action, reason: f.reason, endpoint_id: scope.endpoint_id ?? undefined, device_id: scope.device_id ?? undefined }
  const coa = useQuery({
    queryKey: ['nac', 'coa-requests', query],
    queryFn: () => api.get('/api/v1/nac/coa-requests', { query }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  })
  return (
    <Stack data-testid="coa-history">
      <Group align="flex-end">
        <Select aria-label={t.nac.coaResultLabel} placeholder={t.nac.anyResult} clearable w={200} value={f.result ?? null} onChange={(v) => list.setFilter('result', v)} data={RESULTS.map((r) => ({ value: r, label: t.nac.coaResults[r] }))} />
        <Select aria-label={t.nac.coaActionLabel} placeholder={t.nac.anyAction} clearable w={200} value={f.action ?? null} onChange={(v) => list.setFilter('action', v)} data={ACTIONS.map((a) => ({ value: a, label: t.nac.coaActions[a] }))} />
        <Select aria-label={t.nac.coaReasonLabel} placeholder={t.nac.anyReason} clearable w={220} value={f.reason ?? null} onChange={(v) => list.setFilter('reason', v)} data={REASONS.map((r) => ({ value: r, label: t.nac.coaReasons[r] }))} />
        {scope.endpoint_id && <Button variant="light" size="sm" onClick={() => scopeEndpoint(null, null)} aria-label={t.nac.clearScope(scope.mac ?? scope.endpoint_id)}>{t.nac.scopeEndpoint(scope.mac ?? scope.endpoint_id)} ✕</Button>}
        {scope.device_id && <Button variant="light" size="sm" onClick={() => scopeDevice(null, null)} aria-label={t.nac.clearScope(scope.device ?? scope.device_id)}>{t.nac.scopeDevice(scope.device ?? scope.device_id)} ✕</Button>}
      </Group>
      <ErrorAlert error={coa.error} />
      <Table.ScrollContainer minWidth={1000}>
        <Table striped aria-label={t.nac.coaHistory} data-testid="coa-table">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={list} sort="created_at">{t.nac.coaTime}</SortTh><Table.Th>{t.nac.mac}</Table.Th><Table.Th>{t.nac.coaActionLabel}</Table.Th><Table.Th>{t.nac.coaReasonLabel}</Table.Th>
              <Table.Th>{t.nac.coaDevice}</Table.Th><Table.Th>{t.nac.coaResultLabel}</Table.Th><Table.Th>{t.nac.coaBy}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {coa.data?.items.map((r) => (
              <Table.Tr key={r.id} data-coa={r.id} data-result={r.result}>
                <Table.Td>{when(r.created_at, language)}</Table.Td>
                <Table.Td ff="monospace">
                  {r.endpoint_id ? <Anchor component="button" type="button" ff="monospace" size="sm" onClick={() => scopeEndpoint(r.endpoint_id, r.mac)}>{r.mac}</Anchor> : r.mac}
                </Table.Td>
                <Table.Td>{t.nac.coaActions[r.action]}</Table.Td>
                <Table.Td>{t.nac.coaReasons[r.reason]}</Table.Td>
                <Table.Td>
                  {r.device_id ? (
                    <Group gap={4} wrap="nowrap">
                      <Anchor component="button" type="button" size="sm" onClick={() => scopeDevice(r.device_id, r.device_name ?? r.nas_ip)}>{r.device_name ?? r.nas_ip}</Anchor>
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
      {coa.data?.total === 0 && <Text c="dimmed">{t.nac.noCoa}</Text>}
      <TableFooter list={list} data={coa.data} testId="coa-total" />
      {nas && <CoaNasDialog device={nas} onClose={() => setNas(null)} />}
    </Stack>
  )
}
