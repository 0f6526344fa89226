/**
 * Users: a paginated list (GET /users) with search and the API's filters
 * (enabled, administrator, source, group, role), sortable, its state in the
 * address; the form in a dialog to add or change one (UserForm), delete with
 * a confirmation, and the selected users enabled, disabled, added to or
 * removed from a group (their other groups kept) or deleted at once (BulkBar).
 */
import { Anchor, Badge, Button, Group, Select, Stack, Table, TextInput } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth, usePluginRuns } from '../auth'
import { Link } from '../router'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { options, useAllRoles, useAllUserGroups, type User, type UserUpdate } from './identity-data'
import { UserForm } from './UserForm'
import { PageTitle, RowActions } from '../components/crud'
import { BulkBar, bulkActions, type BulkAction, type ChooseField } from '../components/BulkBar'
import { useListState } from '../components/list-state'
import { SelectAllTh, SelectTd, SortTh, TableFooter, useSelection } from '../components/ListTable'
import { CsvImport } from './CsvImport'

/** The columns GET /users sorts by (its `sort_by` allow-list). */
const SORTS = ['username', 'display_name', 'email'] as const
const FILTERS = ['enabled', 'is_admin', 'source', 'group', 'role'] as const
const bool = (v: string | null) => (v === null ? undefined : v === 'true')

export function Users() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  // Page, size, sort, ?search= (the quick search opens a record so) and the filters, in the address (the
  // group's member list links to /users?group=<id>).
  const list = useListState({ sorts: SORTS, sort: 'username', filters: FILTERS })
  const f = list.filters
  const [editing, setEditing] = useState<User | 'new' | null>(null)
  const groups = useAllUserGroups(auth.can('groups.read'))
  const roles = useAllRoles(auth.can('roles.read'))
  const users = useQuery({
    queryKey: ['users', list.key],
    queryFn: () =>
      api.get('/api/v1/users', {
        query: {
          ...list.query,
          enabled: bool(f.enabled), is_admin: bool(f.is_admin), source: (f.source ?? undefined) as 'local' | 'directory' | undefined,
          group_id: f.group ?? undefined, role_id: f.role ?? undefined,
        },
      }),
    placeholderData: keepPreviousData,
  })
  const sel = useSelection(users.data?.items, list.key)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/users/{user_id}', { params: { user_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['users'] }),
  })
  const canWrite = auth.can('users.write')
  const [importing, setImporting] = useState(false)
  const runs = usePluginRuns()
  // A user's AAA log entries are one click away (the logs screen's user filter, kept in its URL).
  const canLogs = auth.can('aaa-logs.read') && runs('aaa-logs')
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.name ?? '…'
  const yesNo = [{ value: 'true', label: t.common.yes }, { value: 'false', label: t.common.no }]
  const change = (u: User, body: UserUpdate) => api.put('/api/v1/users/{user_id}', { params: { user_id: u.id }, body })
  const groupPicker = (hint: string): ChooseField => (value, onChange) => (
    <Select label={t.table.group} description={hint} required searchable data={options(groups.data)} value={value} onChange={onChange} data-autofocus comboboxProps={{ withinPortal: true, zIndex: 500 }} />
  )
  /**
   * A group added to (or taken from) one user, the other memberships kept. The API sets a user's
   * groups only as a whole list (PUT /users/{id} `group_ids` replaces it), so this reads the user
   * afresh and writes the list back changed: read-modify-write per user, without a version check (a
   * change made to that user's groups between the read and the write would be overwritten).
   */
  const regroup = async (u: User, group: string, add: boolean) => {
    const now = (await api.get('/api/v1/users/{user_id}', { params: { user_id: u.id } })).group_ids
    if (now.includes(group) === add) return
    await change(u, { group_ids: add ? [...now, group] : now.filter((g) => g !== group) })
  }
  const groupAction = (add: boolean): BulkAction<User> => ({
    label: add ? t.find.addToGroup : t.find.removeFromGroup,
    choose: { title: add ? t.find.addTitle : t.find.removeTitle, confirmLabel: add ? t.find.add : t.find.remove, field: groupPicker(add ? t.find.addHint : t.find.removeHint) },
    run: (u, g) => regroup(u, g!, add),
  })
  const filter = (k: (typeof FILTERS)[number]) => (v: string | null) => list.setFilter(k, v)

  return (
    <Stack>
      <PageTitle title={t.admin.users.title} add={canWrite && { label: t.admin.users.add, onClick: () => setEditing('new') }} />
      <Group align="flex-end" wrap="wrap">
        <TextInput aria-label={t.common.search} placeholder={t.admin.users.searchPlaceholder} value={list.search} onChange={(e) => list.setSearch(e.currentTarget.value)} w={200} maw="100%" type="search" />
        <Select label={t.admin.users.enabled} placeholder={t.admin.any} clearable data={yesNo} value={f.enabled} onChange={filter('enabled')} w={110} />
        <Select label={t.admin.users.admin} placeholder={t.admin.any} clearable data={yesNo} value={f.is_admin} onChange={filter('is_admin')} w={130} />
        <Select label={t.admin.users.source} placeholder={t.admin.any} clearable data={[{ value: 'local', label: t.admin.users.sources.local }, { value: 'directory', label: t.admin.users.sources.directory }]} value={f.source} onChange={filter('source')} w={130} />
        {auth.can('groups.read') && <Select label={t.admin.users.group} placeholder={t.admin.any} clearable searchable data={options(groups.data)} value={f.group} onChange={filter('group')} w={170} />}
        {auth.can('roles.read') && <Select label={t.admin.users.role} placeholder={t.admin.any} clearable searchable data={options(roles.data)} value={f.role} onChange={filter('role')} w={170} />}
        {canWrite && <Button variant="default" onClick={() => setImporting(true)}>{t.imports.importCsv}</Button>}
      </Group>
      {importing && <CsvImport kind="users" onClose={() => setImporting(false)} />}
      <ErrorAlert error={users.error ?? remove.error} />
      {/* Add to / remove from a group: the one group changes, the users' other groups stay. */}
      <BulkBar sel={sel} name={(u) => u.username} onDone={() => Promise.all([qc.invalidateQueries({ queryKey: ['users'] }), qc.invalidateQueries({ queryKey: ['user-groups'] })])} actions={canWrite ? [
        bulkActions.enabled<User>(t, true, (u, enabled) => change(u, { enabled })),
        bulkActions.enabled<User>(t, false, (u, enabled) => change(u, { enabled })),
        auth.can('groups.read') && groupAction(true),
        auth.can('groups.read') && groupAction(false),
        bulkActions.remove<User>(t, (u) => api.delete('/api/v1/users/{user_id}', { params: { user_id: u.id } }), (u) => api.get('/api/v1/users/{user_id}/references', { params: { user_id: u.id } })),
      ] : []} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={t.admin.users.title} data-testid="users-table">
          <Table.Thead>
            <Table.Tr>
              {canWrite && <SelectAllTh sel={sel} />}
              <SortTh list={list} sort="username">{t.admin.users.username}</SortTh><SortTh list={list} sort="display_name">{t.admin.users.displayName}</SortTh><SortTh list={list} sort="email">{t.admin.users.email}</SortTh>
              <Table.Th>{t.admin.users.groups}</Table.Th><Table.Th>{t.admin.users.status}</Table.Th>
              {canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.data?.items.map((u) => (
              <Table.Tr key={u.id} data-user={u.username} opacity={u.enabled ? 1 : 0.6}>
                {canWrite && <SelectTd sel={sel} row={u} name={u.username} />}
                <Table.Td fw={500}>
                  {u.username}
                  {canLogs && <Anchor component={Link} href={`/logs?username=${encodeURIComponent(u.username)}`} size="xs" fw={400} ml="xs" aria-label={t.admin.users.logsOf(u.username)}>{t.nav.logs}</Anchor>}
                </Table.Td>
                <Table.Td>{u.display_name ?? t.common.none}</Table.Td>
                <Table.Td>{u.email ?? t.common.none}</Table.Td>
                <Table.Td>{u.group_ids.map(groupName).join(', ') || t.common.none}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {!u.enabled && <Badge size="sm" color="gray">{t.admin.users.disabled}</Badge>}
                    {u.is_admin && <Badge size="sm" color="red" variant="light">{t.admin.users.admin}</Badge>}
                    {u.source === 'directory' && <Badge size="sm" variant="light" color="grape">{t.admin.users.sources.directory}</Badge>}
                    {u.network_login && <Badge size="sm" variant="light">{t.admin.users.network}</Badge>}
                    {u.must_change_password && <Badge size="sm" variant="light" color="yellow">{t.admin.users.mustChange}</Badge>}
                  </Group>
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={u.username} confirm={t.admin.users.deleteConfirm(u.username)} references={() => api.get('/api/v1/users/{user_id}/references', { params: { user_id: u.id } })} onEdit={() => setEditing(u)} onDelete={() => remove.mutate(u.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <TableFooter list={list} data={users.data} />
      {editing && <UserForm user={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
