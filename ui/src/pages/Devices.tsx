/**
 * Devices: a paginated, searchable, sortable list (GET /devices; its state in
 * the address), a form in a dialog to add or change one (POST, PUT: only what
 * changed is sent, a key left empty is kept), delete with a confirmation, and
 * the selected devices enabled, disabled, moved to a group or deleted at once
 * (BulkBar). A refusal shows under its input.
 */
import { Badge, Button, Group, PasswordInput, Select, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import type { Device, DeviceCreate, DeviceUpdate } from '../api/types'
import { useAuth } from '../auth'
import { BulkBar, bulkActions, type ChooseField } from '../components/BulkBar'
import { FormDialog, PageTitle, RowActions, useAllowed } from '../components/crud'
import { useListState } from '../components/list-state'
import { SelectAllTh, SelectTd, SortTh, TableFooter, useSelection } from '../components/ListTable'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { groupOptions, useAllGroups } from './groups-data'
import { CsvImport } from './CsvImport'
import { DeviceCovering } from './DeviceCovering'

const FIELDS = ['name', 'address', 'vendor', 'model', 'description', 'device_group_id', 'tacacs_key', 'radius_secret', 'enabled']
/** The columns GET /devices sorts by (its `sort_by` allow-list). */
const SORTS = ['name', 'address', 'vendor'] as const

export function Devices() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  // Page, size, sort, ?search= (the quick search opens a record so) and ?group= (the groups page links to it) in the address.
  const list = useListState({ sorts: SORTS, sort: 'name', filters: ['group'] })
  const group = list.filters.group
  const [editing, setEditing] = useState<Device | 'new' | null>(null)
  const [importing, setImporting] = useState(false)
  const devices = useQuery({
    queryKey: ['devices', list.key],
    queryFn: () =>
      api.get('/api/v1/devices', {
        // A group means its whole subtree: a device in a site belongs to its region too.
        query: { ...list.query, ...(group ? { device_group_id: group, include_subgroups: true } : {}) },
      }),
    placeholderData: keepPreviousData,
  })
  const sel = useSelection(devices.data?.items, list.key)
  const groups = useAllGroups()
  const groupName = (id: string | null) => groups.data?.find((g) => g.id === id)?.name ?? t.common.none
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/devices/{device_id}', { params: { device_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['devices'] }),
  })
  const canWrite = auth.can('inventory.write')
  const change = (d: Device, body: DeviceUpdate) => api.put('/api/v1/devices/{device_id}', { params: { device_id: d.id }, body })
  const groupPicker: ChooseField = (value, onChange) => (
    <Select label={t.table.group} required searchable data={groupOptions(groups.data ?? [])} value={value} onChange={onChange} data-autofocus comboboxProps={{ withinPortal: true, zIndex: 500 }} />
  )

  return (
    <Stack>
      <PageTitle title={t.devices.title} add={canWrite && { label: t.devices.add, onClick: () => setEditing('new') }} />
      <Group align="flex-end">
        <TextInput aria-label={t.common.search} placeholder={t.devices.searchPlaceholder} value={list.search} onChange={(e) => list.setSearch(e.currentTarget.value)} w={320} maw="100%" type="search" />
        <Select aria-label={t.devices.groupFilter} placeholder={t.devices.allGroups} clearable searchable data={groupOptions(groups.data ?? [])} value={group} onChange={(g) => list.setFilter('group', g)} w={260} maw="100%" />
        {canWrite && <Button variant="default" onClick={() => setImporting(true)}>{t.imports.importCsv}</Button>}
      </Group>
      <DeviceCovering />
      <ErrorAlert error={devices.error ?? remove.error} />
      <BulkBar sel={sel} name={(d) => d.name} onDone={() => Promise.all([qc.invalidateQueries({ queryKey: ['devices'] }), qc.invalidateQueries({ queryKey: ['device-groups'] })])} actions={canWrite ? [
        bulkActions.enabled<Device>(t, true, (d, enabled) => change(d, { enabled })),
        bulkActions.enabled<Device>(t, false, (d, enabled) => change(d, { enabled })),
        bulkActions.move<Device>(t, groupPicker, (d, g) => change(d, { device_group_id: g })),
        bulkActions.remove<Device>(t, (d) => api.delete('/api/v1/devices/{device_id}', { params: { device_id: d.id } }), (d) => api.get('/api/v1/devices/{device_id}/references', { params: { device_id: d.id } })),
      ] : []} />
      <Table.ScrollContainer minWidth={700}>
        <Table striped highlightOnHover aria-label={t.devices.title} data-testid="devices-table">
          <Table.Thead>
            <Table.Tr>
              {canWrite && <SelectAllTh sel={sel} />}
              <SortTh list={list} sort="name">{t.devices.name}</SortTh><SortTh list={list} sort="address">{t.devices.address}</SortTh><SortTh list={list} sort="vendor">{t.devices.vendor}</SortTh>
              <Table.Th>{t.devices.group}</Table.Th><Table.Th>{t.devices.enabled}</Table.Th><Table.Th>TACACS+ / RADIUS</Table.Th>
              {canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {devices.data?.items.map((d) => (
              <Table.Tr key={d.id} data-device={d.name}>
                {canWrite && <SelectTd sel={sel} row={d} name={d.name} />}
                <Table.Td fw={500}>{d.name}</Table.Td>
                <Table.Td ff="monospace">{d.address}</Table.Td>
                <Table.Td>{d.vendor ?? t.common.none}</Table.Td>
                <Table.Td>{groupName(d.device_group_id)}</Table.Td>
                <Table.Td>{d.enabled ? t.common.yes : t.common.no}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {d.has_tacacs_key && <Badge size="sm" variant="light">TACACS+</Badge>}
                    {d.has_radius_secret && <Badge size="sm" variant="light" color="grape">RADIUS</Badge>}
                  </Group>
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={d.name} confirm={t.devices.deleteConfirm(d.name)} references={() => api.get('/api/v1/devices/{device_id}/references', { params: { device_id: d.id } })} onEdit={() => setEditing(d)} onDelete={() => remove.mutate(d.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {devices.data && devices.data.total === 0 && !list.q && !group && <Text c="dimmed">{t.devices.empty}</Text>}
      <TableFooter list={list} data={devices.data} />
      {importing && <CsvImport kind="devices" onClose={() => setImporting(false)} />}
      {editing && <DeviceForm device={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function DeviceForm({ device, onClose }: { device: Device | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/devices')
  const qc = useQueryClient()
  const groups = useAllGroups()
  const [v, setV] = useState({
    name: device?.name ?? '', address: device?.address ?? '', vendor: device?.vendor ?? '', model: device?.model ?? '', description: device?.description ?? '',
    device_group_id: device?.device_group_id ?? null, enabled: device?.enabled ?? true, tacacs_key: '', radius_secret: '',
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const body: DeviceCreate = { name: v.name, address: v.address, vendor: v.vendor || null, model: v.model || null, description: v.description || null, device_group_id: v.device_group_id, enabled: v.enabled }
      // An empty key field keeps the key the device has (the API never returns it); a typed one replaces it.
      if (v.tacacs_key) body.tacacs_key = v.tacacs_key
      if (v.radius_secret) body.radius_secret = v.radius_secret
      if (device) await api.put('/api/v1/devices/{device_id}', { params: { device_id: device.id }, body })
      else await api.post('/api/v1/devices', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['devices'] })
      await qc.invalidateQueries({ queryKey: ['device-groups'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  return (
    <FormDialog title={device ? t.devices.editTitle : t.devices.add} size="lg" testId="device-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!device} onClose={onClose} onSubmit={() => save.mutate()}>
      <Group grow align="flex-start">
        <TextInput label={t.devices.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
        <TextInput label={t.devices.address} name="address" required description={t.devices.addressHint} value={v.address} onChange={(e) => set('address', e.currentTarget.value)} error={err('address')} />
      </Group>
      <Group grow align="flex-start">
        <TextInput label={t.devices.vendor} name="vendor" value={v.vendor} onChange={(e) => set('vendor', e.currentTarget.value)} error={err('vendor')} />
        <TextInput label={t.devices.model} name="model" value={v.model} onChange={(e) => set('model', e.currentTarget.value)} error={err('model')} />
      </Group>
      <Select label={t.devices.group} placeholder={t.devices.noGroup} clearable searchable data={groupOptions(groups.data ?? [])} value={v.device_group_id} onChange={(x) => set('device_group_id', x)} error={err('device_group_id')} />
      <Textarea label={t.devices.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      <Group grow align="flex-start">
        <PasswordInput label={t.devices.tacacsKey} name="tacacs_key" autoComplete="off" description={device?.has_tacacs_key ? t.devices.keyKeep : undefined} value={v.tacacs_key} onChange={(e) => set('tacacs_key', e.currentTarget.value)} error={err('tacacs_key')} aria-invalid={!!err('tacacs_key')} />
        <PasswordInput label={t.devices.radiusSecret} name="radius_secret" autoComplete="off" description={device?.has_radius_secret ? t.devices.keyKeep : undefined} value={v.radius_secret} onChange={(e) => set('radius_secret', e.currentTarget.value)} error={err('radius_secret')} aria-invalid={!!err('radius_secret')} />
      </Group>
      <Switch label={t.devices.enabled} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
    </FormDialog>
  )
}
