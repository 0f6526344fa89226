/**
 * Log exclusions: the rules that keep events out of the AAA logs (a user, a
 * name pattern or a user group, for TACACS+, RADIUS or both), with how many
 * events each has dropped; add and change in a dialog, delete after a
 * confirmation.
 */
import { Group, Select, Stack, Table, Text, TextInput, Textarea } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { type LogExclusion, useListState } from './config-data'
import { FormDialog, ListFooter, PageTitle, RowActions, useAllowed } from '../components/crud'

const FIELDS = ['name', 'description', 'protocol', 'match_type', 'match_value']
const PROTOCOLS = ['all', 'tacacs', 'radius'] as const
const MATCH = ['username', 'username_pattern', 'user_group'] as const

export function LogExclusions() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const ls = useListState()
  const canWrite = auth.can('aaa-logs.exclusions.write')
  const list = useQuery({ queryKey: ['log-exclusions', ls.query], queryFn: () => api.get('/api/v1/log-exclusions', { query: ls.query }), placeholderData: keepPreviousData })
  const [editing, setEditing] = useState<LogExclusion | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/log-exclusions/{exclusion_id}', { params: { exclusion_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['log-exclusions'] }),
  })
  return (
    <Stack>
      <PageTitle title={t.config.exclusions} add={canWrite && { label: t.config.addExclusion, onClick: () => setEditing('new') }} />
      <Text size="sm" c="dimmed">{t.config.exclusionsHint}</Text>
      <TextInput aria-label={t.common.search} placeholder={t.config.searchPlaceholder} value={ls.search} onChange={(e) => ls.setSearch(e.currentTarget.value)} w={320} maw="100%" type="search" />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label={t.config.exclusions} data-testid="log-exclusions">
          <Table.Thead>
            <Table.Tr><Table.Th>{t.config.name}</Table.Th><Table.Th>{t.config.protocol}</Table.Th><Table.Th>{t.config.matchType}</Table.Th><Table.Th>{t.config.matchValue}</Table.Th><Table.Th>{t.config.dropped}</Table.Th>{canWrite && <Table.Th />}</Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((x) => (
              <Table.Tr key={x.id} data-name={x.name}>
                <Table.Td fw={500}>{x.name}</Table.Td>
                <Table.Td>{t.config.protocols[x.protocol]}</Table.Td>
                <Table.Td>{t.config.exclusionMatch[x.match_type]}</Table.Td>
                <Table.Td ff="monospace">{x.match_value}</Table.Td>
                <Table.Td>{x.dropped_total}</Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={x.name} onEdit={() => setEditing(x)} onDelete={() => remove.mutate(x.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.total === 0 && <Text c="dimmed">{t.config.emptyExclusions}</Text>}
      <ListFooter data={list.data} page={ls.page} onPage={ls.setPage} />
      {editing && <ExclusionForm exclusion={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function ExclusionForm({ exclusion, onClose }: { exclusion: LogExclusion | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/log-exclusions')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: exclusion?.name ?? '', description: exclusion?.description ?? '', protocol: exclusion?.protocol ?? 'all',
    match_type: exclusion?.match_type ?? 'username', match_value: exclusion?.match_value ?? '',
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const body = { ...v, description: v.description || null }
      if (exclusion) await api.put('/api/v1/log-exclusions/{exclusion_id}', { params: { exclusion_id: exclusion.id }, body })
      else await api.post('/api/v1/log-exclusions', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['log-exclusions'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  return (
    <FormDialog title={exclusion ? t.config.editExclusion : t.config.addExclusion} size="lg" testId="exclusion-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!exclusion} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.config.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      <Group grow align="flex-start">
        <Select label={t.config.protocol} name="protocol" allowDeselect={false} data={PROTOCOLS.map((p) => ({ value: p, label: t.config.protocols[p] }))} value={v.protocol} onChange={(x) => x && set('protocol', x as typeof v.protocol)} error={err('protocol')} />
        <Select label={t.config.matchType} name="match_type" allowDeselect={false} data={MATCH.map((m) => ({ value: m, label: t.config.exclusionMatch[m] }))} value={v.match_type} onChange={(x) => x && set('match_type', x as typeof v.match_type)} error={err('match_type')} />
      </Group>
      <TextInput label={t.config.matchValue} name="match_value" required description={t.config.matchValueHints[v.match_type]} value={v.match_value} onChange={(e) => set('match_value', e.currentTarget.value)} error={err('match_value')} ff="monospace" />
      <Textarea label={t.config.description} name="description" autosize minRows={1} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
    </FormDialog>
  )
}
