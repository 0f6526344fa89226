/**
 * Add or change an endpoint, in a dialog: its MAC (any notation; the server
 * answers the canonical one), description, group and owner. A refusal shows
 * under its input (`mac`: MAC_INVALID, MAC_GROUP_ADDRESS, ENDPOINT_MAC_TAKEN…).
 */
import { Group, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { Endpoint } from './nac-data'
import { SearchSelect } from '../components/SearchSelect'
import { endpointGroupPicker, userPicker } from './pickers'
import { FormDialog } from '../components/crud'
import { EndpointDeviceType } from './EndpointDeviceType'

const FIELDS = ['mac', 'description', 'endpoint_group_id', 'owner_user_id']

export function EndpointForm({ endpoint, onClose }: { endpoint: Endpoint | null; onClose(): void }) {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  // Owners are kernel users: listing them needs users.read; without it the owner stays as it is.
  const canPickOwner = auth.can('users.read')
  const [v, setV] = useState({ mac: endpoint?.mac ?? '', description: endpoint?.description ?? '', group: endpoint?.endpoint_group_id ?? null, owner: endpoint?.owner_user_id ?? null })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const body = { mac: v.mac, description: v.description || null, endpoint_group_id: v.group, ...(canPickOwner ? { owner_user_id: v.owner } : {}) }
      if (endpoint) await api.put('/api/v1/nac/endpoints/{endpoint_id}', { params: { endpoint_id: endpoint.id }, body })
      else await api.post('/api/v1/nac/endpoints', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nac'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  return (
    <FormDialog title={endpoint ? t.nac.editEndpoint : t.nac.addEndpoint} size="lg" testId="endpoint-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!endpoint} onClose={onClose} onSubmit={() => save.mutate()} after={endpoint && <EndpointDeviceType endpoint={endpoint} />}>
      <TextInput label={t.nac.mac} name="mac" required data-autofocus description={t.nac.macHint} value={v.mac} onChange={(e) => set('mac', e.currentTarget.value)} error={err('mac')} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
      <Group grow align="flex-start">
        <SearchSelect label={t.nac.group} name="endpoint_group_id" placeholder={t.nac.noGroup} clearable source={endpointGroupPicker} selectedLabel={endpoint?.endpoint_group_name} value={v.group} onChange={(x) => set('group', x)} error={err('endpoint_group_id')} />
        <SearchSelect label={t.nac.owner} name="owner_user_id" placeholder={t.nac.noOwner} clearable enabled={canPickOwner} disabled={!canPickOwner} source={userPicker} selectedLabel={endpoint?.owner_username} value={v.owner} onChange={(x) => set('owner', x)} error={err('owner_user_id')} />
      </Group>
      <Textarea label={t.nac.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
    </FormDialog>
  )
}
