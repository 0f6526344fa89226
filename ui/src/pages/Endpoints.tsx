/**
 * NAC endpoints: the paginated list (GET /nac/endpoints) with search and
 * filters (group, kept in the URL as /nac/endpoints?group=<id> or `none`;
 * vendor prefix; device type), what profiling concluded and why, when and
 * where the network last saw each one; add, change and delete in a dialog;
 * a CSV import with its report; the filtered list exported as xlsx or csv
 * (the server's file); sortable, its state in the address; the selected
 * endpoints moved to a group or deleted at once (BulkBar).
 */
import { Badge, Button, Group, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, download } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { EndpointForm } from './EndpointForm'
import { setByHand } from './EndpointDeviceType'
import { EndpointImport } from './EndpointImport'
import { when } from './format'
import type { Endpoint } from './nac-data'
import { SearchSelect } from '../components/SearchSelect'
import { endpointGroupPicker } from './pickers'
import { RowActions } from '../components/crud'
import { BulkBar, bulkActions, type ChooseField } from '../components/BulkBar'
import { useListState } from '../components/list-state'
import { SelectAllTh, SelectTd, SortTh, TableFooter, useSelection } from '../components/ListTable'

/** The columns GET /nac/endpoints sorts by (its `sort_by` allow-list). */
const SORTS = ['mac', 'vendor', 'device_type', 'last_seen_at'] as const

export function Endpoints() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  // Page, size, sort, ?search= (the quick search opens a record so) and the filters in the address: the
  // groups screen links to ?group=<id> (`none`: in no group), a reload keeps them.
  const list = useListState({ sorts: SORTS, sort: 'mac', filters: ['group', 'vendor', 'device_type'] })
  const [v] = useDebouncedValue(list.filters.vendor ?? '', 250)
  const [dt] = useDebouncedValue(list.filters.device_type ?? '', 250)
  const group = list.filters.group
  const [editing, setEditing] = useState<Endpoint | 'new' | null>(null)
  const [importing, setImporting] = useState(false)
  const filters = { search: list.q || undefined, vendor: v || undefined, device_type: dt || undefined, ...(group === 'none' ? { grouped: false } : group ? { endpoint_group_id: group } : {}) }
  const endpoints = useQuery({
    queryKey: ['nac', 'endpoints', list.key, filters],
    queryFn: () => api.get('/api/v1/nac/endpoints', { query: { ...list.query, ...filters } }),
    placeholderData: keepPreviousData,
  })
  const sel = useSelection(endpoints.data?.items, list.key)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/endpoints/{endpoint_id}', { params: { endpoint_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  const exporter = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download('/api/v1/nac/endpoints/export', { ...filters, sort_by: list.sortBy, sort_order: list.sortOrder, format }) })
  const canWrite = auth.can('nac.write')
  const groupPicker: ChooseField = (value, onChange) => (
    <SearchSelect label={t.table.group} required source={endpointGroupPicker} value={value} onChange={onChange} data-autofocus comboboxProps={{ withinPortal: true, zIndex: 500 }} />
  )

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.nac.endpoints}</Title>
        <Group>
          {(['xlsx', 'csv'] as const).map((f) => (
            <Button key={f} variant="default" loading={exporter.isPending && exporter.variables === f} onClick={() => exporter.mutate(f)}>{t.nac.export(f)}</Button>
          ))}
          {canWrite && <Button variant="default" onClick={() => setImporting(true)}>{t.nac.import}</Button>}
          {canWrite && <Button onClick={() => setEditing('new')}>{t.nac.addEndpoint}</Button>}
        </Group>
      </Group>
      <Group align="flex-end">
        <TextInput aria-label={t.common.search} placeholder={t.nac.searchPlaceholder} value={list.search} onChange={(e) => list.setSearch(e.currentTarget.value)} w={280} maw="100%" type="search" />
        <SearchSelect aria-label={t.nac.group} placeholder={t.nac.anyGroup} clearable source={endpointGroupPicker} extra={[{ value: 'none', label: t.nac.ungrouped }]} value={group} onChange={(g) => list.setFilter('group', g)} w={220} maw="100%" />
        <TextInput aria-label={t.nac.vendorFilter} placeholder={t.nac.vendorFilter} value={list.filters.vendor ?? ''} onChange={(e) => list.setFilter('vendor', e.currentTarget.value)} w={200} maw="100%" />
        <TextInput aria-label={t.nac.deviceTypeFilter} placeholder={t.nac.deviceTypeFilter} value={list.filters.device_type ?? ''} onChange={(e) => list.setFilter('device_type', e.currentTarget.value)} w={180} maw="100%" />
      </Group>
      <ErrorAlert error={endpoints.error ?? remove.error ?? exporter.error} />
      <BulkBar sel={sel} name={(e) => e.mac} onDone={() => qc.invalidateQueries({ queryKey: ['nac'] })} actions={canWrite ? [
        bulkActions.move<Endpoint>(t, groupPicker, (e, g) => api.put('/api/v1/nac/endpoints/{endpoint_id}', { params: { endpoint_id: e.id }, body: { endpoint_group_id: g } })),
        bulkActions.remove<Endpoint>(t, (e) => api.delete('/api/v1/nac/endpoints/{endpoint_id}', { params: { endpoint_id: e.id } })),
      ] : []} />
      {exporter.data && <Text size="sm" role="status">{t.nac.exported(exporter.data.name, exporter.data.rows)}</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.nac.endpoints} data-testid="endpoints-table">
          <Table.Thead>
            <Table.Tr>
              {canWrite && <SelectAllTh sel={sel} />}
              <SortTh list={list} sort="mac">{t.nac.mac}</SortTh><SortTh list={list} sort="vendor">{t.nac.vendor}</SortTh><SortTh list={list} sort="device_type">{t.nac.deviceType}</SortTh><Table.Th>{t.nac.group}</Table.Th>
              <Table.Th>{t.nac.owner}</Table.Th><SortTh list={list} sort="last_seen_at">{t.nac.lastSeen}</SortTh>{canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {endpoints.data?.items.map((e) => (
              <Table.Tr key={e.id} data-mac={e.mac}>
                {canWrite && <SelectTd sel={sel} row={e} name={e.mac} />}
                <Table.Td ff="monospace">{e.mac} {e.locally_administered && <Badge size="xs" tt="none" color="gray">{t.nac.local}</Badge>}</Table.Td>
                <Table.Td>{e.vendor ?? t.common.none}</Table.Td>
                <Table.Td>
                  <Text size="sm">{e.device_type ?? t.common.none} {setByHand(e) && <Badge size="xs" tt="none" color="violet">{t.nac.manualBadge}</Badge>}</Text>
                  {e.device_type_confidence !== null && <Text size="xs" c="dimmed">{t.nac.confidence(e.device_type_confidence)}{e.device_type_reason ? `: ${e.device_type_reason}` : ''}</Text>}
                </Table.Td>
                <Table.Td>{e.endpoint_group_name ?? t.common.none}</Table.Td>
                <Table.Td>{e.owner_username ?? t.common.none}</Table.Td>
                <Table.Td>
                  {when(e.last_seen_at, language)}
                  {e.last_auth_result && (
                    <Tooltip label={[e.last_nas_ip, e.last_nas_port].filter(Boolean).join(' ')} disabled={!e.last_nas_ip}>
                      <Badge size="xs" ml={4} tt="none" color={e.last_auth_result === 'accept' ? 'green' : 'red'}>{t.nac.lastAuth[e.last_auth_result]}</Badge>
                    </Tooltip>
                  )}
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={e.mac} confirm={t.nac.deleteEndpoint(e.mac)} onEdit={() => setEditing(e)} onDelete={() => remove.mutate(e.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {endpoints.data && endpoints.data.total === 0 && <Text c="dimmed">{t.nac.emptyEndpoints}</Text>}
      <TableFooter list={list} data={endpoints.data} />
      {importing && <EndpointImport onClose={() => setImporting(false)} />}
      {editing && <EndpointForm endpoint={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
