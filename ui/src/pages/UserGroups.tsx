/**
 * User groups: every group with its roles and member count; add and change in
 * a dialog (name, description, roles, the directory group it maps), delete
 * after a confirmation, and the members of a group in a drawer (membership is
 * set on the user: the user's dialog lists its groups). Groups do not nest.
 */
import { Anchor, Badge, Drawer, Group, MultiSelect, Stack, Table, Text, TextInput, Textarea } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { useOpenRecord } from '../components/open-record'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { atListField, options, useAllRoles, useAllUserGroups, type UserGroup } from './identity-data'
import { FormDialog, PageTitle, Pager, RowActions, useAllowed } from '../components/crud'

const FIELDS = ['name', 'description', 'role_ids', 'directory_group_dn']

export function UserGroups() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const groups = useAllUserGroups()
  const roles = useAllRoles(auth.can('roles.read'))
  const [editing, setEditing] = useState<UserGroup | 'new' | null>(null)
  const [members, setMembers] = useState<UserGroup | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/user-groups/{group_id}', { params: { group_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['user-groups'] }),
  })
  const canWrite = auth.can('groups.write')
  // The quick search's `?open=<id>`: the group's dialog for a writer, its members for a reader.
  const opened = useOpenRecord((id) => groups.data?.find((g) => g.id === id), (g) => (canWrite ? setEditing(g) : setMembers(g)))
  const roleName = (id: string) => roles.data?.find((r) => r.id === id)?.name ?? '…'
  return (
    <Stack>
      <PageTitle title={t.admin.userGroups.title} add={canWrite && { label: t.admin.userGroups.add, onClick: () => setEditing('new') }} />
      <ErrorAlert error={groups.error ?? remove.error} />
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label={t.admin.userGroups.title} data-testid="user-groups-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.admin.userGroups.name}</Table.Th><Table.Th>{t.admin.userGroups.description}</Table.Th><Table.Th>{t.admin.userGroups.roles}</Table.Th>
              <Table.Th>{t.admin.userGroups.members}</Table.Th>{canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {groups.data?.map((g) => (
              <Table.Tr key={g.id} data-group={g.name} data-record-id={g.id} data-opened={opened === g.id || undefined}>
                <Table.Td fw={500}>{g.name}{g.directory_group_dn && <Badge ml="xs" size="xs" variant="light" color="grape" title={g.directory_group_dn}>LDAP</Badge>}</Table.Td>
                <Table.Td>{g.description ?? t.common.none}</Table.Td>
                <Table.Td>
                  <Group gap={4}>{g.role_ids.length ? g.role_ids.map((r) => <Badge key={r} size="sm" variant="light">{roleName(r)}</Badge>) : t.common.none}</Group>
                </Table.Td>
                <Table.Td>
                  <Anchor component="button" type="button" onClick={() => setMembers(g)} aria-label={t.a11y.countLink(g.member_count, t.admin.userGroups.membersOf(g.name))}>{g.member_count}</Anchor>
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={g.name} confirm={t.admin.userGroups.deleteConfirm(g.name)} touches={[`${t.admin.userGroups.members}: ${g.member_count}`]} references={() => api.get('/api/v1/user-groups/{group_id}/references', { params: { group_id: g.id } })} onEdit={() => setEditing(g)} onDelete={() => remove.mutate(g.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {groups.data?.length === 0 && <Text c="dimmed">{t.admin.userGroups.empty}</Text>}
      {editing && <UserGroupForm group={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      <Drawer opened={!!members} onClose={() => setMembers(null)} position="right" title={members ? t.admin.userGroups.membersOf(members.name) : ''}>
        {members && <Members group={members} />}
      </Drawer>
    </Stack>
  )
}

function Members({ group }: { group: UserGroup }) {
  const { t } = useI18n()
  const [page, setPage] = useState(1)
  const list = useQuery({
    queryKey: ['user-groups', group.id, 'members', page],
    queryFn: () => api.get('/api/v1/user-groups/{group_id}/members', { params: { group_id: group.id }, query: { page, per_page: 50, sort_by: 'username', sort_order: 'asc' } }),
    placeholderData: keepPreviousData,
  })
  return (
    <Stack data-testid="group-members">
      <ErrorAlert error={list.error} />
      {list.data?.items.map((m) => (
        <Group key={m.id} justify="space-between">
          <Text fw={500} c={m.enabled ? undefined : 'dimmed'}>{m.username}</Text>
          <Text size="sm" c="dimmed">{m.display_name ?? ''}</Text>
        </Group>
      ))}
      {list.data?.total === 0 && <Text c="dimmed">{t.admin.userGroups.noMembers}</Text>}
      {list.data && <Pager pages={list.data.pages} page={page} onPage={setPage} />}
      <Anchor component={Link} href={`/users?group=${group.id}`}>{t.admin.userGroups.showUsers}</Anchor>
    </Stack>
  )
}

function UserGroupForm({ group, onClose }: { group: UserGroup | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/user-groups')
  const auth = useAuth()
  const qc = useQueryClient()
  const roles = useAllRoles(auth.can('roles.read'))
  const [v, setV] = useState({ name: group?.name ?? '', description: group?.description ?? '', role_ids: group?.role_ids ?? [], directory_group_dn: group?.directory_group_dn ?? '' })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: v.name, description: v.description || null, directory_group_dn: v.directory_group_dn || null, ...(auth.can('roles.read') ? { role_ids: v.role_ids } : {}) }
      if (group) await api.put('/api/v1/user-groups/{group_id}', { params: { group_id: group.id }, body })
      else await api.post('/api/v1/user-groups', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['user-groups'] })
      await qc.invalidateQueries({ queryKey: ['roles'] })
      onClose()
    },
  })
  const error = atListField(save.error)
  const err = (f: string) => fieldError(error, f)
  return (
    <FormDialog title={group ? t.admin.userGroups.editTitle(group.name) : t.admin.userGroups.add} size="lg" testId="user-group-form" error={error} fields={FIELDS} pending={save.isPending} editing={!!group} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.admin.userGroups.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      <Textarea label={t.admin.userGroups.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
      {auth.can('roles.read') && <MultiSelect label={t.admin.userGroups.roles} name="role_ids" searchable clearable data={options(roles.data)} value={v.role_ids} onChange={(x) => set('role_ids', x)} error={err('role_ids')} />}
      <TextInput label={t.admin.userGroups.directoryDn} name="directory_group_dn" description={t.admin.userGroups.directoryDnHint} value={v.directory_group_dn} onChange={(e) => set('directory_group_dn', e.currentTarget.value)} error={err('directory_group_dn')} />
    </FormDialog>
  )
}
