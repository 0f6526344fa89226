/**
 * TACACS+ command sets: a paginated, searchable list with how many profiles
 * use each (POST …/references/counts, one request a page), the form with the
 * nested commands and argument rules in a dialog, and delete after showing
 * the profiles that use the set (the server refuses with 409 while they do).
 */
import { Badge, Stack, Table, Text, TextInput } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { CommandSetForm } from './CommandSetForm'
import { useListState } from './config-data'
import { when } from './format'
import { ListFooter, PageTitle, RowActions } from '../components/crud'

export function CommandSets() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const ls = useListState()
  const canWrite = auth.can('tacacs.write')
  const list = useQuery({ queryKey: ['tacacs-command-sets', ls.query], queryFn: () => api.get('/api/v1/tacacs/command-sets', { query: ls.query }), placeholderData: keepPreviousData })
  const ids = list.data?.items.map((s) => s.id) ?? []
  const counts = useQuery({
    queryKey: ['tacacs-command-sets', 'counts', ids],
    queryFn: () => api.post('/api/v1/tacacs/command-sets/references/counts', { body: { command_set_ids: ids } }),
    enabled: ids.length > 0,
  })
  const [editing, setEditing] = useState<string | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/tacacs/command-sets/{command_set_id}', { params: { command_set_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['tacacs-command-sets'] }),
  })

  return (
    <Stack>
      <PageTitle title={t.config.commandSets} add={canWrite && { label: t.config.addCommandSet, onClick: () => setEditing('new') }} />
      <TextInput aria-label={t.common.search} placeholder={t.config.searchPlaceholder} value={ls.search} onChange={(e) => ls.setSearch(e.currentTarget.value)} w={320} maw="100%" type="search" />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label={t.config.commandSets} data-testid="command-sets">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.config.name}</Table.Th><Table.Th>{t.config.description}</Table.Th><Table.Th>{t.config.commands}</Table.Th>
              <Table.Th>{t.config.usedBy}</Table.Th><Table.Th>{t.config.updated}</Table.Th><Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((s) => {
              const n = counts.data?.[s.id]?.blocking
              return (
                <Table.Tr key={s.id} data-name={s.name}>
                  <Table.Td fw={500}>{s.name}</Table.Td>
                  <Table.Td>{s.description ?? t.common.none}</Table.Td>
                  <Table.Td>{s.command_count}</Table.Td>
                  <Table.Td>{n === undefined ? '' : n ? <Badge variant="light">{t.config.profilesCount(n)}</Badge> : <Text size="sm" c="dimmed">{t.config.unused}</Text>}</Table.Td>
                  <Table.Td>{when(s.updated_at, language)}</Table.Td>
                  <Table.Td>
                    <RowActions name={s.name} references={() => api.get('/api/v1/tacacs/command-sets/{command_set_id}/references', { params: { command_set_id: s.id } })} onEdit={() => setEditing(s.id)} onDelete={() => remove.mutate(s.id)} readOnly={!canWrite} />
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.total === 0 && <Text c="dimmed">{t.config.emptyCommandSets}</Text>}
      <ListFooter data={list.data} page={ls.page} onPage={ls.setPage} />
      {editing && <CommandSetForm id={editing === 'new' ? null : editing} readOnly={!canWrite} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
