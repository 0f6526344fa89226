/**
 * Configuration tracking setup: schedules (a device group fetched by a collector, with a credential
 * and a command profile, every so many minutes), credentials (write-only: the page says what is set,
 * never shows it), and command profiles (the built-in vendor ones, and custom ones with their prompt,
 * commands, pager prompt, lines to drop and secret lines). Changing needs ncm.manage.
 */
import { Badge, Button, Checkbox, Group, NumberInput, PasswordInput, SegmentedControl, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { useAuth } from '../auth'
import { FormDialog, PageTitle, useAllowed } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { groupOptions, useAllGroups } from './groups-data'
import { createCredential, createProfile, createSchedule, INFO, removeSetup, useCollectors, useCredentials, useProfiles, useSchedules } from './ncm-data'
import { useConfirm } from '../components/Confirm'

const lines = (s: string) => s.split('\n').map((x) => x.trim()).filter(Boolean)

export function NcmSetup() {
  const { t } = useI18n()
  const ask = useConfirm()
  const n = t.ncm
  const auth = useAuth()
  const qc = useQueryClient()
  const canManage = auth.can('ncm.manage')
  const schedules = useSchedules()
  const credentials = useCredentials()
  const profiles = useProfiles()
  const collectors = useCollectors()
  const groups = useAllGroups(auth.can('inventory.read'))
  const [dialog, setDialog] = useState<'schedule' | 'credential' | 'profile' | null>(null)
  const remove = useMutation({ mutationFn: (o: { kind: 'credentials' | 'profiles' | 'schedules'; id: string }) => removeSetup(o.kind, o.id), onSuccess: () => qc.invalidateQueries({ queryKey: ['ncm'] }) })
  const nameOf = (list: { id: string; name: string }[] | undefined, id: string) => list?.find((x) => x.id === id)?.name ?? id
  const del = (kind: 'credentials' | 'profiles' | 'schedules', id: string, name: string) => (
    <Button size="compact-sm" variant="subtle" color="red" aria-label={`${t.common.delete} ${name}`} onClick={() => void ask({ title: t.confirm.title(t.common.delete, name), message: n.deleteQuestion2(name), confirmLabel: t.common.delete }).then((ok) => ok && remove.mutate({ kind, id }))}>{t.common.delete}</Button>
  )
  return (
    <Stack>
      <PageTitle title={n.setup} />
      <ErrorAlert error={schedules.error ?? credentials.error ?? profiles.error ?? remove.error} />
      <Section title={n.schedules} add={canManage ? { label: n.addSchedule, onClick: () => setDialog('schedule') } : undefined}>
        <Text size="sm" c="dimmed">{n.schedulesHint}</Text>
        <Table striped aria-label={n.schedules} data-testid="ncm-schedules">
          <Table.Thead><Table.Tr><Table.Th>{n.group}</Table.Th><Table.Th>{n.collector}</Table.Th><Table.Th>{n.credential}</Table.Th><Table.Th>{n.profile}</Table.Th><Table.Th>{n.interval}</Table.Th>{canManage && <Table.Th />}</Table.Tr></Table.Thead>
          <Table.Tbody>
            {schedules.data?.items.map((s) => (
              <Table.Tr key={s.id} c={s.enabled ? undefined : 'dimmed'}>
                <Table.Td>{nameOf(groups.data, s.device_group_id)}</Table.Td><Table.Td>{nameOf(collectors.data?.items, s.collector_id)}</Table.Td>
                <Table.Td>{nameOf(credentials.data?.items, s.credential_id)}</Table.Td><Table.Td>{nameOf(profiles.data?.items, s.profile_id)}</Table.Td><Table.Td>{s.interval_minutes}</Table.Td>
                {canManage && <Table.Td>{del('schedules', s.id, nameOf(groups.data, s.device_group_id))}</Table.Td>}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {schedules.data?.items.length === 0 && <Text c="dimmed">{n.emptySchedules}</Text>}
      </Section>
      <Section title={n.credentials} add={canManage ? { label: n.addCredential, onClick: () => setDialog('credential') } : undefined}>
        <Text size="sm" c="dimmed">{n.credentialsHint}</Text>
        <Table striped aria-label={n.credentials} data-testid="ncm-credentials">
          <Table.Thead><Table.Tr><Table.Th>{n.name}</Table.Th><Table.Th>{n.username}</Table.Th><Table.Th>{n.auth}</Table.Th><Table.Th>{n.enableSecret}</Table.Th>{canManage && <Table.Th />}</Table.Tr></Table.Thead>
          <Table.Tbody>
            {credentials.data?.items.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td fw={500}>{c.name}</Table.Td><Table.Td>{c.username}</Table.Td><Table.Td>{n.auths[c.auth] ?? c.auth}</Table.Td>
                <Table.Td>{c.has_enable_secret ? n.secretSet : n.secretNotSet}</Table.Td>
                {canManage && <Table.Td>{del('credentials', c.id, c.name)}</Table.Td>}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {credentials.data?.items.length === 0 && <Text c="dimmed">{n.emptyCredentials}</Text>}
      </Section>
      <Section title={n.profiles} add={canManage ? { label: n.addProfile, onClick: () => setDialog('profile') } : undefined}>
        <Table striped aria-label={n.profiles} data-testid="ncm-profiles">
          <Table.Thead><Table.Tr><Table.Th>{n.name}</Table.Th><Table.Th>{n.mode}</Table.Th><Table.Th>{n.commandLine}</Table.Th>{canManage && <Table.Th />}</Table.Tr></Table.Thead>
          <Table.Tbody>
            {profiles.data?.items.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td fw={500}>{p.name} {p.builtin && <Badge size="sm" variant="filled" color={INFO}>{n.builtin}</Badge>}</Table.Td>
                <Table.Td>{n.modes[p.mode] ?? p.mode}</Table.Td><Table.Td ff="monospace">{p.command}</Table.Td>
                {canManage && <Table.Td>{!p.builtin && del('profiles', p.id, p.name)}</Table.Td>}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Section>
      {dialog === 'schedule' && (
        <ScheduleForm
          groups={groupOptions(groups.data ?? [])}
          collectors={(collectors.data?.items ?? []).map((c) => ({ value: c.id, label: c.name }))}
          credentials={(credentials.data?.items ?? []).map((c) => ({ value: c.id, label: c.name }))}
          profiles={(profiles.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'credential' && <CredentialForm onClose={() => setDialog(null)} />}
      {dialog === 'profile' && <ProfileForm onClose={() => setDialog(null)} />}
    </Stack>
  )
}

function Section({ title, add, children }: { title: string; add?: { label: string; onClick(): void }; children: ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Group justify="space-between">
        <Title order={2} size="h3">{title}</Title>
        {add && <Button size="xs" variant="default" onClick={add.onClick}>{add.label}</Button>}
      </Group>
      <Table.ScrollContainer minWidth={640}>{children}</Table.ScrollContainer>
    </Stack>
  )
}

/** A create dialog over one POST: `body` turns the form's values into the request. */
function useCreate(post: (b: Record<string, unknown>) => Promise<unknown>, onClose: () => void) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: post,
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['ncm'] })
      onClose()
    },
  })
}

type Opt = { value: string; label: string }
function ScheduleForm(p: { groups: Opt[]; collectors: Opt[]; credentials: Opt[]; profiles: Opt[]; onClose(): void }) {
  const { t } = useI18n()
  const n = t.ncm
  const [v, setV] = useState({ device_group_id: null as string | null, collector_id: null as string | null, credential_id: null as string | null, profile_id: null as string | null, interval_minutes: 1440, enabled: true })
  const save = useCreate(createSchedule, p.onClose)
  const err = (f: string) => fieldError(save.error, f)
  const pick = (k: 'device_group_id' | 'collector_id' | 'credential_id' | 'profile_id', label: string, data: Opt[]) => (
    <Select label={label} name={k} required searchable data={data} value={v[k]} onChange={(x) => setV({ ...v, [k]: x })} error={err(k)} />
  )
  return (
    <FormDialog title={n.addSchedule} testId="schedule-form" error={save.error} fields={['device_group_id', 'collector_id', 'credential_id', 'profile_id', 'interval_minutes']} pending={save.isPending} editing={false} onClose={p.onClose} onSubmit={() => save.mutate(v)}>
      {pick('device_group_id', n.group, p.groups)}
      {pick('collector_id', n.collector, p.collectors)}
      {pick('credential_id', n.credential, p.credentials)}
      {pick('profile_id', n.profile, p.profiles)}
      <NumberInput label={n.interval} name="interval_minutes" min={5} max={10080} value={v.interval_minutes} onChange={(x) => setV({ ...v, interval_minutes: Number(x) })} error={err('interval_minutes')} />
      <Checkbox label={n.enabled} checked={v.enabled} onChange={(e) => setV({ ...v, enabled: e.currentTarget.checked })} />
    </FormDialog>
  )
}

function CredentialForm({ onClose }: { onClose(): void }) {
  const { t } = useI18n()
  const n = t.ncm
  const allowed = useAllowed('POST /api/v1/ncm/credentials')
  const [v, setV] = useState({ name: '', username: '', auth: 'password' as 'password' | 'private_key', password: '', private_key: '', passphrase: '', enable_secret: '' })
  const save = useCreate(createCredential, onClose)
  const err = (f: string) => fieldError(save.error, f)
  const body = () => {
    const secret = v.auth === 'password' ? { password: v.password } : { private_key: v.private_key, ...(v.passphrase ? { passphrase: v.passphrase } : {}) }
    return { name: v.name, username: v.username, auth: v.auth, ...secret, ...(v.enable_secret ? { enable_secret: v.enable_secret } : {}) }
  }
  return (
    <FormDialog title={n.addCredential} testId="credential-form" error={save.error} fields={['name', 'username', 'auth', 'password', 'private_key', 'passphrase', 'enable_secret']} pending={save.isPending} editing={false} onClose={onClose} onSubmit={() => save.mutate(body())}>
      <TextInput label={n.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => setV({ ...v, name: e.currentTarget.value })} error={err('name')} />
      <TextInput label={n.username} name="username" description={allowed('username')} required value={v.username} onChange={(e) => setV({ ...v, username: e.currentTarget.value })} error={err('username')} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="credential-auth">{n.auth}</Text>
        <SegmentedControl aria-labelledby="credential-auth" value={v.auth} onChange={(x) => setV({ ...v, auth: x as 'password' | 'private_key' })} data={(['password', 'private_key'] as const).map((a) => ({ value: a, label: n.auths[a] }))} />
      </Stack>
      {v.auth === 'password' ? (
        <PasswordInput label={n.password} name="password" required autoComplete="new-password" value={v.password} onChange={(e) => setV({ ...v, password: e.currentTarget.value })} error={err('password')} />
      ) : (
        <>
          <Textarea label={n.privateKey} name="private_key" required autosize minRows={3} ff="monospace" value={v.private_key} onChange={(e) => setV({ ...v, private_key: e.currentTarget.value })} error={err('private_key')} />
          <PasswordInput label={n.passphrase} name="passphrase" autoComplete="off" value={v.passphrase} onChange={(e) => setV({ ...v, passphrase: e.currentTarget.value })} error={err('passphrase')} />
        </>
      )}
      <PasswordInput label={n.enableSecret} name="enable_secret" autoComplete="off" value={v.enable_secret} onChange={(e) => setV({ ...v, enable_secret: e.currentTarget.value })} error={err('enable_secret')} />
    </FormDialog>
  )
}

function ProfileForm({ onClose }: { onClose(): void }) {
  const { t } = useI18n()
  const n = t.ncm
  const allowed = useAllowed('POST /api/v1/ncm/profiles')
  const [v, setV] = useState({ name: '', mode: 'shell' as 'shell' | 'exec', prompt: '[\\w.-]+[#>]', pre_commands: '', command: 'show running-config', pager_pattern: '', strip_lines: '', secret_lines: '' })
  const save = useCreate(createProfile, onClose)
  const err = (f: string) => fieldError(save.error, f) ?? fieldError(save.error, `${f}[0]`)
  const set = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => setV({ ...v, [k]: e.currentTarget.value })
  const body = () => ({ ...v, pre_commands: lines(v.pre_commands), strip_lines: lines(v.strip_lines), secret_lines: lines(v.secret_lines), pager_pattern: v.pager_pattern || null })
  return (
    <FormDialog title={n.addProfile} size="lg" testId="profile-form" error={save.error} fields={['name', 'mode', 'prompt', 'pre_commands', 'command', 'pager_pattern', 'strip_lines', 'secret_lines']} pending={save.isPending} editing={false} onClose={onClose} onSubmit={() => save.mutate(body())}>
      <TextInput label={n.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={set('name')} error={err('name')} />
      <Select label={n.mode} name="mode" allowDeselect={false} data={(['shell', 'exec'] as const).map((m) => ({ value: m, label: n.modes[m] }))} value={v.mode} onChange={(x) => x && setV({ ...v, mode: x as 'shell' | 'exec' })} />
      <TextInput label={n.prompt} name="prompt" ff="monospace" value={v.prompt} onChange={set('prompt')} error={err('prompt')} />
      <Textarea label={n.preCommands} name="pre_commands" autosize minRows={1} ff="monospace" value={v.pre_commands} onChange={set('pre_commands')} error={err('pre_commands')} />
      <TextInput label={n.commandLine} name="command" required ff="monospace" value={v.command} onChange={set('command')} error={err('command')} />
      <TextInput label={n.pagerPattern} name="pager_pattern" ff="monospace" value={v.pager_pattern} onChange={set('pager_pattern')} error={err('pager_pattern')} />
      <Textarea label={n.stripLines} name="strip_lines" autosize minRows={1} ff="monospace" value={v.strip_lines} onChange={set('strip_lines')} error={err('strip_lines')} />
      <Textarea label={n.secretLines} name="secret_lines" autosize minRows={1} ff="monospace" value={v.secret_lines} onChange={set('secret_lines')} error={err('secret_lines')} />
    </FormDialog>
  )
}
