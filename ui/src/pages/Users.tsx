/**
 * Users: a paginated list (GET /users) with search and the API's filters
 * (enabled, administrator, source, group, role), the form in a dialog to add
 * or change one (UserForm), and delete with a confirmation.
 */
import { Anchor, Badge, Button, Group, Select, Stack, Table, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth, usePluginRuns } from '../auth'
import { Link, useUrlSearch } from '../router'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { options, useAllRoles, useAllUserGroups, type User } from './identity-data'
import { UserForm } from './UserForm'
import { CsvImport } from './CsvImport'
import { ListFooter, PageTitle, RowActions } from '../components/crud'

const PER_PAGE = 20
const bool = (v: string | null) => (v === null ? undefined : v === 'true')

export function Users() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const [page, setPage] = useState(1)
  // ?search= (the quick search opens a record so): the list starts filtered to it, and follows it.
  const [search, setSearch] = useUrlSearch(() => setPage(1))
  const [q] = useDebouncedValue(search, 250)
  const [f, setF] = useState<{ enabled: string | null; is_admin: string | null; source: string | null; group_id: string | null; role_id: string | null }>(() => ({
    enabled: null, is_admin: null, source: null, group_id: new URLSearchParams(location.search).get('group'), role_id: null,
  }))
  const filter = (k: keyof typeof f) => (v: string | null) => {
    setF((o) => ({ ...o, [k]: v }))
    setPage(1)
    // The group is kept in the URL (/users?group=<id>): the group's member list links to it, a reload keeps it.
    if (k === 'group_id') history.replaceState(null, '', v ? `/users?group=${encodeURIComponent(v)}` : '/users')
  }
  const [editing, setEditing] = useState<User | 'new' | null>(null)
  const groups = useAllUserGroups(auth.can('groups.read'))
  const roles = useAllRoles(auth.can('roles.read'))
  const list = useQuery({
    queryKey: ['users', page, q, f],
    queryFn: () =>
      api.get('/api/v1/users', {
        query: {
          page, per_page: PER_PAGE, search: q || undefined, sort_by: 'username', sort_order: 'asc',
          enabled: bool(f.enabled), is_admin: bool(f.is_admin), source: (f.source ?? undefined) as 'local' | 'directory' | undefined,
          group_id: f.group_id ?? undefined, role_id: f.role_id ?? undefined,
        },
      }),
    placeholderData: keepPreviousData,
  })
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

  return (
    <Stack>
      <PageTitle title={t.admin.users.title} add={canWrite && { label: t.admin.users.add, onClick: () => setEditing('new') }} />
      <Group align="flex-end" wrap="wrap">
        <TextInput aria-label={t.common.search} placeholder={t.admin.users.searchPlaceholder} value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1) }} w={200} maw="100%" type="search" />
        <Select label={t.admin.users.enabled} placeholder={t.admin.any} clearable data={yesNo} value={f.enabled} onChange={filter('enabled')} w={110} />
        <Select label={t.admin.users.admin} placeholder={t.admin.any} clearable data={yesNo} value={f.is_admin} onChange={filter('is_admin')} w={130} />
        <Select label={t.admin.users.source} placeholder={t.admin.any} clearable data={[{ value: 'local', label: t.admin.users.sources.local }, { value: 'directory', label: t.admin.users.sources.directory }]} value={f.source} onChange={filter('source')} w={130} />
        {auth.can('groups.read') && <Select label={t.admin.users.group} placeholder={t.admin.any} clearable searchable data={options(groups.data)} value={f.group_id} onChange={filter('group_id')} w={170} />}
        {auth.can('roles.read') && <Select label={t.admin.users.role} placeholder={t.admin.any} clearable searchable data={options(roles.data)} value={f.role_id} onChange={filter('role_id')} w={170} />}
        {canWrite && <Button variant="default" onClick={() => setImporting(true)}>{t.imports.importCsv}</Button>}
      </Group>
      {importing && <CsvImport kind="users" onClose={() => setImporting(false)} />}
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={t.admin.users.title} data-testid="users-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.admin.users.username}</Table.Th><Table.Th>{t.admin.users.displayName}</Table.Th><Table.Th>{t.admin.users.email}</Table.Th>
              <Table.Th>{t.admin.users.groups}</Table.Th><Table.Th>{t.admin.users.status}</Table.Th>
              {canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((u) => (
              <Table.Tr key={u.id} data-user={u.username} opacity={u.enabled ? 1 : 0.6}>
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
                    <RowActions name={u.username} confirm={t.admin.users.deleteConfirm(u.username)} onEdit={() => setEditing(u)} onDelete={() => remove.mutate(u.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListFooter data={list.data} page={page} onPage={setPage} />
      {editing && <UserForm user={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
