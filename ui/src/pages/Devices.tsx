/**
 * Devices: a paginated, searchable list (GET /devices), a form in a dialog to
 * add or change one (POST, PUT: only what changed is sent, a key left empty is
 * kept), and delete with a confirmation. A refusal shows under its input.
 */
import { Badge, Group, PasswordInput, Select, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import type { Device, DeviceCreate } from '../api/types'
import { useAuth } from '../auth'
import { FormDialog, ListFooter, PageTitle, RowActions, useAllowed } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { useUrlSearch } from '../router'
import { groupOptions, useAllGroups } from './groups-data'

const FIELDS = ['name', 'address', 'vendor', 'model', 'description', 'device_group_id', 'tacacs_key', 'radius_secret', 'enabled']
const PER_PAGE = 20

export function Devices() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const [page, setPage] = useState(1)
  // ?search= (the quick search opens a record so): the list starts filtered to it, and follows it.
  const [search, setSearch] = useUrlSearch(() => setPage(1))
  const [q] = useDebouncedValue(search, 250)
  // The group filter is in the URL (/devices?group=<id>): the groups page links to it, a reload keeps it.
  const [group, setGroupState] = useState<string | null>(() => new URLSearchParams(location.search).get('group'))
  const setGroup = (g: string | null) => {
    setGroupState(g)
    setPage(1)
    history.replaceState(null, '', g ? `/devices?group=${encodeURIComponent(g)}` : '/devices')
  }
  const [editing, setEditing] = useState<Device | 'new' | null>(null)
  const list = useQuery({
    queryKey: ['devices', page, q, group],
    queryFn: () =>
      api.get('/api/v1/devices', {
        // A group means its whole subtree: a device in a site belongs to its region too.
        query: { page, per_page: PER_PAGE, search: q || undefined, sort_by: 'name', sort_order: 'asc', ...(group ? { device_group_id: group, include_subgroups: true } : {}) },
      }),
    placeholderData: keepPreviousData,
  })
  const groups = useAllGroups()
  const groupName = (id: string | null) => groups.data?.find((g) => g.id === id)?.name ?? t.common.none
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/devices/{device_id}', { params: { device_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['devices'] }),
  })
  const canWrite = auth.can('inventory.write')

  return (
    <Stack>
      <PageTitle title={t.devices.title} add={canWrite && { label: t.devices.add, onClick: () => setEditing('new') }} />
      <Group align="flex-end">
        <TextInput aria-label={t.common.search} placeholder={t.devices.searchPlaceholder} value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1) }} w={320} maw="100%" type="search" />
        <Select aria-label={t.devices.groupFilter} placeholder={t.devices.allGroups} clearable searchable data={groupOptions(groups.data ?? [])} value={group} onChange={setGroup} w={260} maw="100%" />
      </Group>
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={700}>
        <Table striped highlightOnHover aria-label={t.devices.title} data-testid="devices-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.devices.name}</Table.Th><Table.Th>{t.devices.address}</Table.Th><Table.Th>{t.devices.vendor}</Table.Th>
              <Table.Th>{t.devices.group}</Table.Th><Table.Th>{t.devices.enabled}</Table.Th><Table.Th>TACACS+ / RADIUS</Table.Th>
              {canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((d) => (
              <Table.Tr key={d.id}>
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
                    <RowActions name={d.name} confirm={t.devices.deleteConfirm(d.name)} onEdit={() => setEditing(d)} onDelete={() => remove.mutate(d.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.total === 0 && !q && !group && <Text c="dimmed">{t.devices.empty}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} />
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
