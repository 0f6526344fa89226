/**
 * Endpoint groups (flat; an endpoint is in at most one): the list with the
 * endpoints each holds (the count links to them), the device types that place
 * profiled endpoints in it; add, change and delete (refused, in the alert,
 * while it holds endpoints or a rule names it: 409 GROUP_IN_USE).
 */
import { Anchor, Stack, Table, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import type { EndpointGroup } from './nac-data'
import { FormDialog, PageTitle, RowActions, useAllowed } from '../components/crud'

const FIELDS = ['name', 'description', 'placement_device_types', ...Array.from({ length: 50 }, (_, i) => `placement_device_types[${i}]`)]

export function EndpointGroups() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('nac.write')
  // Groups are few (a MAB allow-list each): the first 100 by name, on one page.
  const list = useQuery({ queryKey: ['nac', 'endpoint-groups', 'list'], queryFn: () => api.get('/api/v1/nac/endpoint-groups', { query: { page: 1, per_page: 100, sort_by: 'name', sort_order: 'asc' } }) })
  const [editing, setEditing] = useState<EndpointGroup | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/endpoint-groups/{endpoint_group_id}', { params: { endpoint_group_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  return (
    <Stack>
      <PageTitle title={t.nac.groups} add={canWrite && { label: t.nac.addGroup, onClick: () => setEditing('new') }} />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped aria-label={t.nac.groups} data-testid="endpoint-groups-table">
          <Table.Thead>
            <Table.Tr><Table.Th>{t.nac.name}</Table.Th><Table.Th>{t.nac.description}</Table.Th><Table.Th>{t.nac.placement}</Table.Th><Table.Th>{t.nac.count}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((g) => (
              <Table.Tr key={g.id} data-group={g.name}>
                <Table.Td fw={500}>{g.name}</Table.Td>
                <Table.Td>{g.description ?? t.common.none}</Table.Td>
                <Table.Td>{g.placement_device_types.join(', ') || t.common.none}</Table.Td>
                <Table.Td><Anchor component={Link} href={`/nac/endpoints?group=${g.id}`} aria-label={t.a11y.countLink(g.endpoint_count, t.nac.groupEndpoints(g.name))}>{g.endpoint_count}</Anchor></Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={g.name} confirm={t.nac.deleteGroup(g.name)} touches={[`${t.nac.count}: ${g.endpoint_count}`]} references={() => api.get('/api/v1/nac/endpoint-groups/{endpoint_group_id}/references', { params: { endpoint_group_id: g.id } })} onEdit={() => setEditing(g)} onDelete={() => remove.mutate(g.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total === 0 && <Text c="dimmed">{t.nac.emptyGroups}</Text>}
      {editing && <GroupForm group={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function GroupForm({ group, onClose }: { group: EndpointGroup | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/nac/endpoint-groups')
  const qc = useQueryClient()
  const [v, setV] = useState({ name: group?.name ?? '', description: group?.description ?? '', types: (group?.placement_device_types ?? []).join('\n') })
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: v.name, description: v.description || null, placement_device_types: v.types.split('\n').map((x) => x.trim()).filter(Boolean) }
      if (group) await api.put('/api/v1/nac/endpoint-groups/{endpoint_group_id}', { params: { endpoint_group_id: group.id }, body })
      else await api.post('/api/v1/nac/endpoint-groups', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nac'] })
      onClose()
    },
  })
  return (
    <FormDialog title={group ? t.nac.editGroup : t.nac.addGroup} testId="endpoint-group-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!group} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.nac.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => setV({ ...v, name: e.currentTarget.value })} error={fieldError(save.error, 'name')} />
      <Textarea label={t.nac.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => setV({ ...v, description: e.currentTarget.value })} error={fieldError(save.error, 'description')} />
      <Textarea label={t.nac.placement} name="placement_device_types" description={t.nac.placementHint} autosize minRows={2} value={v.types} onChange={(e) => setV({ ...v, types: e.currentTarget.value })}
        error={save.error instanceof ApiError && save.error.field?.startsWith('placement_device_types') ? save.error.message : undefined} />
    </FormDialog>
  )
}
