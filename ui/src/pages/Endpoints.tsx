/**
 * NAC endpoints: the paginated list (GET /nac/endpoints) with search and
 * filters (group, kept in the URL as /nac/endpoints?group=<id> or `none`;
 * vendor prefix; device type), what profiling concluded and why, when and
 * where the network last saw each one; add, change and delete in a dialog;
 * a CSV import with its report; the filtered list exported as xlsx or csv
 * (the server's file).
 */
import { Badge, Button, Group, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, download } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { useUrlSearch } from '../router'
import { EndpointForm } from './EndpointForm'
import { setByHand } from './EndpointDeviceType'
import { EndpointImport } from './EndpointImport'
import { when } from './format'
import type { Endpoint } from './nac-data'
import { SearchSelect } from '../components/SearchSelect'
import { endpointGroupPicker } from './pickers'
import { ListFooter, RowActions } from '../components/crud'

const PER_PAGE = 20

export function Endpoints() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const [page, setPage] = useState(1)
  // ?search= (the quick search opens a record so): the list starts filtered to it, and follows it.
  const [search, setSearch] = useUrlSearch(() => setPage(1))
  const [vendor, setVendor] = useState('')
  const [deviceType, setDeviceType] = useState('')
  const [q] = useDebouncedValue(search, 250)
  const [v] = useDebouncedValue(vendor, 250)
  const [dt] = useDebouncedValue(deviceType, 250)
  // The group filter is in the URL: the groups screen links to it, a reload keeps it. `none`: in no group.
  const [group, setGroupState] = useState<string | null>(() => new URLSearchParams(location.search).get('group'))
  const setGroup = (g: string | null) => {
    setGroupState(g)
    setPage(1)
    history.replaceState(null, '', g ? `/nac/endpoints?group=${encodeURIComponent(g)}` : '/nac/endpoints')
  }
  const [editing, setEditing] = useState<Endpoint | 'new' | null>(null)
  const [importing, setImporting] = useState(false)
  const filters = { search: q || undefined, vendor: v || undefined, device_type: dt || undefined, ...(group === 'none' ? { grouped: false } : group ? { endpoint_group_id: group } : {}) }
  const list = useQuery({
    queryKey: ['nac', 'endpoints', page, filters],
    queryFn: () => api.get('/api/v1/nac/endpoints', { query: { page, per_page: PER_PAGE, sort_by: 'mac', sort_order: 'asc', ...filters } }),
    placeholderData: keepPreviousData,
  })
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/endpoints/{endpoint_id}', { params: { endpoint_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  const exporter = useMutation({ mutationFn: (format: 'xlsx' | 'csv') => download('/api/v1/nac/endpoints/export', { ...filters, sort_by: 'mac', format }) })
  const canWrite = auth.can('nac.write')

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
        <TextInput aria-label={t.common.search} placeholder={t.nac.searchPlaceholder} value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1) }} w={280} maw="100%" type="search" />
        <SearchSelect aria-label={t.nac.group} placeholder={t.nac.anyGroup} clearable source={endpointGroupPicker} extra={[{ value: 'none', label: t.nac.ungrouped }]} value={group} onChange={setGroup} w={220} maw="100%" />
        <TextInput aria-label={t.nac.vendorFilter} placeholder={t.nac.vendorFilter} value={vendor} onChange={(e) => { setVendor(e.currentTarget.value); setPage(1) }} w={200} maw="100%" />
        <TextInput aria-label={t.nac.deviceTypeFilter} placeholder={t.nac.deviceTypeFilter} value={deviceType} onChange={(e) => { setDeviceType(e.currentTarget.value); setPage(1) }} w={180} maw="100%" />
      </Group>
      <ErrorAlert error={list.error ?? remove.error ?? exporter.error} />
      {exporter.data && <Text size="sm" role="status">{t.nac.exported(exporter.data.name, exporter.data.rows)}</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.nac.endpoints} data-testid="endpoints-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.nac.mac}</Table.Th><Table.Th>{t.nac.vendor}</Table.Th><Table.Th>{t.nac.deviceType}</Table.Th><Table.Th>{t.nac.group}</Table.Th>
              <Table.Th>{t.nac.owner}</Table.Th><Table.Th>{t.nac.lastSeen}</Table.Th>{canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((e) => (
              <Table.Tr key={e.id} data-mac={e.mac}>
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
      {list.data && list.data.total === 0 && <Text c="dimmed">{t.nac.emptyEndpoints}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} />
      {importing && <EndpointImport onClose={() => setImporting(false)} />}
      {editing && <EndpointForm endpoint={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
