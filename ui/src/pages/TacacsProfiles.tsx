/**
 * TACACS+ profiles: the list (privilege level, command sets in order, default
 * action, services, enable), the form in a dialog, and delete after showing
 * the policy rules that assign the profile (a delete clears it from them).
 */
import { Badge, Stack, Table, Text, TextInput } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { type TacacsProfile, useCommandSetOptions, useListState } from './config-data'
import { TacacsProfileForm } from './TacacsProfileForm'
import { ListFooter, PageTitle, RowActions } from '../components/crud'

export function TacacsProfiles() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const ls = useListState()
  const canWrite = auth.can('tacacs.write')
  const list = useQuery({ queryKey: ['tacacs-profiles', ls.query], queryFn: () => api.get('/api/v1/tacacs/profiles', { query: ls.query }), placeholderData: keepPreviousData })
  const sets = useCommandSetOptions([...new Set((list.data?.items ?? []).flatMap((p) => p.command_set_ids))])
  const [editing, setEditing] = useState<TacacsProfile | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/tacacs/profiles/{profile_id}', { params: { profile_id: id } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['tacacs-profiles'] })
      await qc.invalidateQueries({ queryKey: ['tacacs-command-sets'] })
    },
  })
  return (
    <Stack>
      <PageTitle title={t.config.tacacsProfiles} add={canWrite && { label: t.config.addProfile, onClick: () => setEditing('new') }} />
      <TextInput aria-label={t.common.search} placeholder={t.config.searchPlaceholder} value={ls.search} onChange={(e) => ls.setSearch(e.currentTarget.value)} w={320} maw="100%" type="search" />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-label={t.config.tacacsProfiles} data-testid="tacacs-profiles">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.config.name}</Table.Th><Table.Th>{t.config.privilege}</Table.Th><Table.Th>{t.config.commandSets}</Table.Th>
              <Table.Th>{t.config.defaultAction}</Table.Th><Table.Th>{t.config.services}</Table.Th><Table.Th>{t.config.enableMode}</Table.Th><Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((p) => (
              <Table.Tr key={p.id} data-name={p.name}>
                <Table.Td fw={500}>{p.name}</Table.Td>
                <Table.Td>{p.privilege_level}</Table.Td>
                <Table.Td>{p.command_set_ids.length ? p.command_set_ids.map(sets.name).join(', ') : t.common.none}</Table.Td>
                <Table.Td><Badge color={p.default_action === 'permit' ? 'green' : 'red'} variant="light">{p.default_action === 'permit' ? t.config.permit : t.config.deny}</Badge></Table.Td>
                <Table.Td>{p.services.map((s) => s.service).join(', ') || t.common.none}</Table.Td>
                <Table.Td>{t.config.enableModes[p.enable_mode]}</Table.Td>
                <Table.Td>
                  <RowActions name={p.name} references={() => api.get('/api/v1/tacacs/profiles/{profile_id}/references', { params: { profile_id: p.id } })} onEdit={() => setEditing(p)} onDelete={() => remove.mutate(p.id)} readOnly={!canWrite} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.total === 0 && <Text c="dimmed">{t.config.emptyProfiles}</Text>}
      <ListFooter data={list.data} page={ls.page} onPage={ls.setPage} />
      {editing && <TacacsProfileForm profile={editing === 'new' ? null : editing} readOnly={!canWrite} sets={sets.options} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
