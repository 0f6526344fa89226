/**
 * NAC authorization profiles: what a rule gives (a VLAN, ACLs, a redirect, a
 * role, timers) or a deny; each row shows the reply attributes the profile
 * sends, as the server lists them. Add and change in a dialog; delete after a
 * confirmation (refused, in the alert, while a rule gives it).
 */
import { Badge, Group, SegmentedControl, Stack, Table, Text, TextInput } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { AuthProfileForm } from './AuthProfileForm'
import type { AuthProfile } from './nac-data'
import { PageTitle, RowActions } from '../components/crud'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'


export function AuthProfiles() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('nac.policy.write')
  // Page, size, sort, search and the deny filter in the address.
  const state = useListState({ sorts: ['name'] as const, sort: 'name', filters: ['deny'] })
  const deny = state.filters.deny ?? 'all'
  const list = useQuery({
    queryKey: ['nac', 'profiles', state.key],
    queryFn: () => api.get('/api/v1/nac/authorization-profiles', { query: { ...state.query, deny: deny === 'all' ? undefined : deny === 'deny' } }),
    placeholderData: keepPreviousData,
  })
  const [editing, setEditing] = useState<AuthProfile | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/nac/authorization-profiles/{profile_id}', { params: { profile_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  return (
    <Stack>
      <PageTitle title={t.nac.profiles} add={canWrite && { label: t.nac.addProfile, onClick: () => setEditing('new') }} />
      <Group align="flex-end">
        <TextInput aria-label={t.common.search} placeholder={t.common.search} type="search" value={state.search} onChange={(e) => state.setSearch(e.currentTarget.value)} w={260} maw="100%" />
        <SegmentedControl aria-label={t.nac.deny} value={deny} onChange={(x) => state.setFilter('deny', x === 'all' ? null : x)} data={[{ value: 'all', label: t.nac.allProfiles }, { value: 'accept', label: t.nac.onlyAccept }, { value: 'deny', label: t.nac.onlyDeny }]} />
      </Group>
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={700}>
        <Table striped aria-label={t.nac.profiles} data-testid="profiles-table">
          <Table.Thead>
            <Table.Tr><SortTh list={state} sort="name">{t.nac.name}</SortTh><Table.Th>{t.nac.reply}</Table.Th><Table.Th>{t.nac.description}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((p) => (
              <Table.Tr key={p.id} data-profile={p.name}>
                <Table.Td fw={500}>{p.name} {p.deny && <Badge size="xs" tt="none" color="red">{t.nac.denyBadge}</Badge>}</Table.Td>
                <Table.Td>
                  {p.deny ? <Text size="sm">Access-Reject</Text> : (
                    <Stack gap={0}>
                      {p.reply.map((a, i) => <Text key={i} size="xs" ff="monospace">{a.attribute} = {a.value}</Text>)}
                    </Stack>
                  )}
                </Table.Td>
                <Table.Td>{p.description ?? t.common.none}</Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={p.name} confirm={t.nac.deleteProfile(p.name)} references={() => api.get('/api/v1/nac/authorization-profiles/{profile_id}/references', { params: { profile_id: p.id } })} onEdit={() => setEditing(p)} onDelete={() => remove.mutate(p.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total === 0 && !state.q && <Text c="dimmed">{t.nac.emptyProfiles}</Text>}
      <TableFooter list={state} data={list.data} />
      {editing && <AuthProfileForm profile={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
