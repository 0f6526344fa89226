/**
 * RADIUS profiles: the list (reply attributes, MS-CHAPv1), the form in a
 * dialog with the attribute names of the server's dictionary offered as you
 * type, and delete after showing the policy rules that give the profile (a
 * delete clears it from them; asked of the policy when the user may read it).
 */
import { Badge, Checkbox, Modal, Stack, Table, Text, TextInput, Textarea } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { AttributeRows, type Pair } from './AttributeRows'
import { type RadiusProfile, useListState } from './config-data'
import { DialogButtons, ListFooter, PageTitle, RowActions, useAllowed } from '../components/crud'

export function RadiusProfiles() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const ls = useListState()
  const canWrite = auth.can('radius.write')
  const list = useQuery({ queryKey: ['radius-profiles', ls.query], queryFn: () => api.get('/api/v1/radius/profiles', { query: ls.query }), placeholderData: keepPreviousData })
  const [editing, setEditing] = useState<RadiusProfile | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/radius/profiles/{profile_id}', { params: { profile_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['radius-profiles'] }),
  })
  const rulesUsing = async (id: string) => ({
    blocking: [],
    auto_clearing: (await api.get('/api/v1/aaa/policy/rules', { query: { radius_profile_id: [id] } })).map((r) => ({ type: 'aaa_policy_rule', id: r.id, name: r.name })),
  })
  // The rules that give the profile (a delete clears it from them), for a reader of the AAA policy.
  const canSeeRules = auth.can('aaa-policy.read')
  return (
    <Stack>
      <PageTitle title={t.config.radiusProfiles} add={canWrite && { label: t.config.addProfile, onClick: () => setEditing('new') }} />
      <TextInput aria-label={t.common.search} placeholder={t.config.searchPlaceholder} value={ls.search} onChange={(e) => ls.setSearch(e.currentTarget.value)} w={320} maw="100%" type="search" />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label={t.config.radiusProfiles} data-testid="radius-profiles">
          <Table.Thead>
            <Table.Tr><Table.Th>{t.config.name}</Table.Th><Table.Th>{t.config.replyAttributes}</Table.Th><Table.Th>MS-CHAPv1</Table.Th><Table.Th>{t.config.description}</Table.Th><Table.Th /></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((p) => (
              <Table.Tr key={p.id} data-name={p.name}>
                <Table.Td fw={500}>{p.name}</Table.Td>
                <Table.Td ff="monospace" fz="sm">{p.attributes.map((a) => `${a.name} = ${a.value}`).join('; ') || t.common.none}</Table.Td>
                <Table.Td>{p.allow_mschapv1 ? <Badge color="orange" variant="light">{t.common.yes}</Badge> : t.common.no}</Table.Td>
                <Table.Td>{p.description ?? t.common.none}</Table.Td>
                <Table.Td>
                  <RowActions name={p.name} references={canSeeRules ? () => rulesUsing(p.id) : undefined} onEdit={() => setEditing(p)} onDelete={() => remove.mutate(p.id)} readOnly={!canWrite} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.total === 0 && <Text c="dimmed">{t.config.emptyProfiles}</Text>}
      <ListFooter data={list.data} page={ls.page} onPage={ls.setPage} />
      {editing && <RadiusProfileForm profile={editing === 'new' ? null : editing} readOnly={!canWrite} onClose={() => setEditing(null)} />}
    </Stack>
  )
}

function RadiusProfileForm({ profile, readOnly, onClose }: { profile: RadiusProfile | null; readOnly: boolean; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/radius/profiles')
  const qc = useQueryClient()
  const dictionary = useQuery({ queryKey: ['radius-dictionary'], queryFn: () => api.get('/api/v1/radius/dictionary'), staleTime: Infinity })
  const [name, setName] = useState(profile?.name ?? '')
  const [description, setDescription] = useState(profile?.description ?? '')
  const [mschap, setMschap] = useState(profile?.allow_mschapv1 ?? false)
  const [attrs, setAttrs] = useState<Pair[]>(profile?.attributes.map((a) => ({ ...a })) ?? [])
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || null, allow_mschapv1: mschap, attributes: attrs.map((a) => ({ name: a.name, value: a.value })) }
      if (profile) await api.put('/api/v1/radius/profiles/{profile_id}', { params: { profile_id: profile.id }, body })
      else await api.post('/api/v1/radius/profiles', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['radius-profiles'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  const f = save.error instanceof ApiError ? save.error.field ?? '' : ''
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!readOnly) save.mutate()
  }
  return (
    <Modal opened onClose={onClose} title={profile ? (readOnly ? t.config.profile : t.config.editProfile) : t.config.addProfile} size="lg">
      <form onSubmit={submit} noValidate data-testid="radius-profile-form">
        <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
          <Stack>
            <ErrorAlert error={['name', 'description'].includes(f) || /^attributes\[\d+\]\./.test(f) ? null : save.error} />
            <TextInput label={t.config.name} name="name" description={allowed('name')} required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={err('name')} />
            <Textarea label={t.config.description} name="description" autosize minRows={1} value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={err('description')} />
            <AttributeRows at="attributes" label={t.config.replyAttributes} rows={attrs} onChange={setAttrs} error={save.error} blank={{ name: '', value: '' }} names={dictionary.data?.attributes.map((a) => a.name)} />
            <Checkbox label={t.config.allowMschapv1} description={t.config.allowMschapv1Hint} checked={mschap} onChange={(e) => setMschap(e.currentTarget.checked)} />
          </Stack>
        </fieldset>
        <DialogButtons editing={!!profile} pending={save.isPending} onClose={onClose} readOnly={readOnly} mt="md" />
      </form>
    </Modal>
  )
}
