/**
 * Device groups as the tree they are (region → site → closet): each row
 * indented under its parent, with its devices and subgroups counted. A group
 * is added under a parent, moved by changing the parent, deleted when empty
 * (the API refuses otherwise and the refusal is shown).
 */
import { Anchor, Select, Stack, Table, Text, TextInput, Textarea, VisuallyHidden } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import type { DeviceGroup } from '../api/types'
import { useAuth } from '../auth'
import { FormDialog, PageTitle, RowActions, useAllowed } from '../components/crud'
import { useOpenRecord } from '../components/open-record'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { groupOptions, treeOrder, useAllGroups } from './groups-data'

export function DeviceGroups() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const groups = useAllGroups()
  const [editing, setEditing] = useState<DeviceGroup | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/device-groups/{device_group_id}', { params: { device_group_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['device-groups'] }),
  })
  const canWrite = auth.can('inventory.write')
  const rows = treeOrder(groups.data ?? [])
  // The quick search's `?open=<id>`: the group's dialog for a writer, the row marked for a reader.
  const opened = useOpenRecord((id) => groups.data?.find((g) => g.id === id), (g) => canWrite && setEditing(g))
  return (
    <Stack>
      <PageTitle title={t.groups.title} add={canWrite && { label: t.groups.add, onClick: () => setEditing('new') }} />
      <ErrorAlert error={groups.error ?? remove.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table highlightOnHover aria-label={t.groups.title} data-testid="groups-table">
          <Table.Thead>
            <Table.Tr><Table.Th>{t.groups.name}</Table.Th><Table.Th>{t.groups.description}</Table.Th><Table.Th>{t.groups.devices}</Table.Th><Table.Th>{t.groups.subgroups}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(({ group: g, depth }) => (
              <Table.Tr key={g.id} data-level={depth + 1} data-record-id={g.id} data-opened={opened === g.id || undefined}>
                <Table.Td fw={500} style={{ paddingInlineStart: `calc(var(--mantine-spacing-xs) + ${depth * 1.5}rem)` }}>{depth > 0 && <span aria-hidden="true">└ </span>}{g.name}{depth > 0 && <VisuallyHidden>{t.a11y.groupLevel(depth + 1)}</VisuallyHidden>}</Table.Td>
                <Table.Td>{g.description ?? t.common.none}</Table.Td>
                <Table.Td>
                  <Anchor component={Link} href={`/devices?group=${g.id}`} aria-label={t.a11y.countLink(g.device_count, t.groups.devicesOf(g.name))}>{g.device_count}</Anchor>
                </Table.Td>
                <Table.Td>{g.child_count}</Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={g.name} confirm={t.groups.deleteConfirm(g.name)} touches={[`${t.groups.devices}: ${g.device_count}`, `${t.groups.subgroups}: ${g.child_count}`]} references={() => api.get('/api/v1/device-groups/{device_group_id}/references', { params: { device_group_id: g.id } })} onEdit={() => setEditing(g)} onDelete={() => remove.mutate(g.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {groups.data?.length === 0 && <Text c="dimmed">{t.groups.empty}</Text>}
      {editing && <GroupForm group={editing === 'new' ? null : editing} all={groups.data ?? []} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function GroupForm({ group, all, onClose }: { group: DeviceGroup | null; all: DeviceGroup[]; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/device-groups')
  const qc = useQueryClient()
  const [name, setName] = useState(group?.name ?? '')
  const [description, setDescription] = useState(group?.description ?? '')
  const [parent, setParent] = useState<string | null>(group?.parent_id ?? null)
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || null, parent_id: parent }
      if (group) await api.put('/api/v1/device-groups/{device_group_id}', { params: { device_group_id: group.id }, body })
      else await api.post('/api/v1/device-groups', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['device-groups'] })
      onClose()
    },
  })
  return (
    <FormDialog title={group ? t.groups.editTitle : t.groups.add} testId="group-form" error={save.error} fields={['name', 'description', 'parent_id']} pending={save.isPending} editing={!!group} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.groups.name} name="name" description={allowed('name')} required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(save.error, 'name')} />
      <Select label={t.groups.parent} placeholder={t.groups.top} clearable searchable data={groupOptions(all, group?.id)} value={parent} onChange={setParent} error={fieldError(save.error, 'parent_id')} />
      <Textarea label={t.groups.description} name="description" autosize minRows={2} value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fieldError(save.error, 'description')} />
    </FormDialog>
  )
}
