/**
 * A TACACS+ profile in a dialog: privilege level, the command sets in the
 * order they apply and the action for a command none matches, the shell's
 * attributes, other services with theirs (AV pairs), and enable. The enable
 * secret is write-only: empty keeps the stored one.
 */
import { ActionIcon, Button, Divider, Group, Modal, NumberInput, Paper, PasswordInput, SegmentedControl, Select, Stack, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { AttributeRows, type Pair } from './AttributeRows'
import { moved, type TacacsProfile, type TacacsProfileBody } from './config-data'
import { DialogButtons, useAllowed } from '../components/crud'
import { SearchMultiSelect, useNames } from '../components/SearchSelect'
import { commandSetPicker } from './pickers'

type Service = { service: string; attributes: Pair[] }
const SIMPLE = ['name', 'description', 'privilege_level', 'default_action', 'enable_mode', 'enable_privilege_level', 'enable_secret']

export function TacacsProfileForm({ profile, readOnly, sets, onClose }: { profile: TacacsProfile | null; readOnly: boolean; sets: { value: string; label: string }[]; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/tacacs/profiles')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: profile?.name ?? '', description: profile?.description ?? '', privilege_level: profile?.privilege_level ?? 1, default_action: profile?.default_action ?? 'deny',
    command_set_ids: profile?.command_set_ids ?? [], enable_mode: profile?.enable_mode ?? 'none', enable_privilege_level: profile?.enable_privilege_level ?? 15, enable_secret: '',
  })
  const [shell, setShell] = useState<Pair[]>(profile?.shell_attributes.map((a) => ({ ...a })) ?? [])
  const [services, setServices] = useState<Service[]>(profile?.services.map((s) => ({ service: s.service, attributes: s.attributes.map((a) => ({ ...a })) })) ?? [])
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const setName = useNames(commandSetPicker, v.command_set_ids, sets)
  const save = useMutation({
    mutationFn: async () => {
      const { enable_secret, ...rest } = v
      const body: TacacsProfileBody = { ...rest, description: v.description || null, shell_attributes: shell, services }
      // Write-only: sent only when typed (and only where it applies).
      if (enable_secret && v.enable_mode === 'secret') body.enable_secret = enable_secret
      if (profile) await api.put('/api/v1/tacacs/profiles/{profile_id}', { params: { profile_id: profile.id }, body })
      else await api.post('/api/v1/tacacs/profiles', { body: { ...body, name: v.name } })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['tacacs-profiles'] })
      await qc.invalidateQueries({ queryKey: ['tacacs-command-sets'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  const f = save.error instanceof ApiError ? save.error.field ?? '' : ''
  const shownAtInput = SIMPLE.includes(f) || /^(shell_attributes|services)\[\d+\]\./.test(f) || f.startsWith('command_set_ids')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!readOnly) save.mutate()
  }
  const setService = (i: number, s: Partial<Service>) => setServices(services.map((x, j) => (j === i ? { ...x, ...s } : x)))
  return (
    <Modal opened onClose={onClose} title={profile ? (readOnly ? t.config.profile : t.config.editProfile) : t.config.addProfile} size="xl">
      <form onSubmit={submit} noValidate data-testid="tacacs-profile-form">
        <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
          <Stack>
            <ErrorAlert error={shownAtInput ? null : save.error} />
            <Group grow align="flex-start">
              <TextInput label={t.config.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
              <NumberInput label={t.config.privilege} name="privilege_level" min={0} max={15} allowDecimal={false} value={v.privilege_level} onChange={(x) => set('privilege_level', typeof x === 'number' ? x : 1)} error={err('privilege_level')} />
            </Group>
            <Textarea label={t.config.description} name="description" autosize minRows={1} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
            <SearchMultiSelect label={t.config.commandSets} name="command_set_ids" description={t.config.commandSetsHint} source={commandSetPicker} known={sets} value={v.command_set_ids} onChange={(x) => set('command_set_ids', x)} error={f.startsWith('command_set_ids') ? (save.error as ApiError).message : undefined} />
            {v.command_set_ids.length > 1 && (
              <Stack gap={2} role="list" aria-label={t.config.commandSetOrder} data-testid="command-set-order">
                {v.command_set_ids.map((id, i) => (
                  <Group key={id} gap={4} role="listitem" wrap="nowrap">
                    <Text size="sm" w={24}>{i + 1}.</Text>
                    <Text size="sm" style={{ flex: 1 }}>{setName(id)}</Text>
                    <ActionIcon variant="subtle" size="sm" aria-label={`${t.policy.up} ${setName(id)}`} disabled={i === 0} onClick={() => set('command_set_ids', moved(v.command_set_ids, i, -1))}>↑</ActionIcon>
                    <ActionIcon variant="subtle" size="sm" aria-label={`${t.policy.down} ${setName(id)}`} disabled={i === v.command_set_ids.length - 1} onClick={() => set('command_set_ids', moved(v.command_set_ids, i, 1))}>↓</ActionIcon>
                  </Group>
                ))}
              </Stack>
            )}
            <Group align="flex-end">
              <Stack gap={4}>
                <Text size="sm" fw={500} id="default-action-label">{t.config.defaultAction}</Text>
                <SegmentedControl aria-labelledby="default-action-label" value={v.default_action} onChange={(x) => set('default_action', x as 'permit' | 'deny')} data={[{ value: 'deny', label: t.config.deny }, { value: 'permit', label: t.config.permit }]} />
              </Stack>
              <Text size="sm" c="dimmed" style={{ flex: 1 }}>{t.config.defaultActionHint}</Text>
            </Group>
            <Divider />
            <AttributeRows at="shell_attributes" label={t.config.shellAttributes} rows={shell} onChange={setShell} error={save.error} blank={{ name: '', value: '' }} optional />
            <Divider />
            <Text size="sm" fw={500}>{t.config.services}</Text>
            {services.map((s, i) => (
              <Paper key={i} withBorder p="sm" data-testid="service">
                <Stack gap="xs">
                  <Group align="flex-start">
                    <TextInput label={t.config.service} name={`services[${i}].service`} placeholder="junos-exec" value={s.service} onChange={(e) => setService(i, { service: e.currentTarget.value })} error={err(`services[${i}].service`)} style={{ flex: 1 }} ff="monospace" />
                    <ActionIcon variant="subtle" color="red" mt={28} aria-label={t.config.removeService(i + 1)} onClick={() => setServices(services.filter((_, j) => j !== i))}>✕</ActionIcon>
                  </Group>
                  <AttributeRows at={`services[${i}].attributes`} label={t.config.avPairs} rows={s.attributes} onChange={(a) => setService(i, { attributes: a })} error={save.error} blank={{ name: '', value: '' }} optional />
                </Stack>
              </Paper>
            ))}
            <Button size="compact-sm" variant="light" w="fit-content" onClick={() => setServices([...services, { service: '', attributes: [] }])}>{t.config.addService}</Button>
            <Divider />
            <Group grow align="flex-start">
              <Select label={t.config.enableMode} name="enable_mode" allowDeselect={false} data={(['none', 'login', 'secret'] as const).map((m) => ({ value: m, label: t.config.enableModes[m] }))} value={v.enable_mode} onChange={(x) => x && set('enable_mode', x as typeof v.enable_mode)} error={err('enable_mode')} />
              <NumberInput label={t.config.enablePrivilege} name="enable_privilege_level" min={0} max={15} allowDecimal={false} disabled={v.enable_mode === 'none'} value={v.enable_privilege_level} onChange={(x) => set('enable_privilege_level', typeof x === 'number' ? x : 15)} error={err('enable_privilege_level')} />
            </Group>
            {v.enable_mode === 'secret' && (
              <PasswordInput label={t.config.enableSecret} name="enable_secret" autoComplete="new-password" description={profile?.has_enable_secret ? t.devices.keyKeep : undefined} value={v.enable_secret} onChange={(e) => set('enable_secret', e.currentTarget.value)} error={err('enable_secret')} aria-invalid={!!err('enable_secret')} />
            )}
          </Stack>
        </fieldset>
        <DialogButtons editing={!!profile} pending={save.isPending} onClose={onClose} readOnly={readOnly} mt="md" />
      </form>
    </Modal>
  )
}
