/**
 * A user in a dialog: the profile, a new password (empty keeps the one set:
 * the API never returns it), the switches, the groups and roles, the expiry;
 * only what the form shows is sent. Changing a user also offers the account
 * actions the API has: its second factor (status and reset, mfa.manage; its
 * phones for push sign-in renamed or removed, its choice of factor and its
 * push lock, where the server has the push factor), ending its sessions and clearing a lockout. A refusal shows under its input.
 */
import { Alert, Badge, Button, Divider, Group, MultiSelect, PasswordInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { atListField, options, useAllRoles, useAllUserGroups, type User, type UserCreate } from './identity-data'
import { FormDialog, useAllowed } from '../components/crud'
import { AuditLink } from '../components/AuditLink'
import { MfaFactors } from '../components/MfaFactors'
import { PushDevices } from '../components/PushDevices'
import { useConfirm } from '../components/Confirm'

const FIELDS = ['username', 'display_name', 'email', 'password', 'source', 'enabled', 'is_admin', 'network_login', 'chap_enabled', 'must_change_password', 'expires_at', 'group_ids', 'role_ids']

/** An ISO instant as a datetime-local value (the browser's time zone), and back. */
const toLocal = (iso: string | null) => (iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '')
const fromLocal = (v: string) => (v ? new Date(v).toISOString() : null)

export function UserForm({ user, onClose }: { user: User | null; onClose(): void }) {
  const { t, language } = useI18n()
  const allowed = useAllowed('POST /api/v1/users')
  const auth = useAuth()
  const qc = useQueryClient()
  const groups = useAllUserGroups(auth.can('groups.read'))
  const roles = useAllRoles(auth.can('roles.read'))
  const [v, setV] = useState({
    username: user?.username ?? '', display_name: user?.display_name ?? '', email: user?.email ?? '', password: '',
    source: user?.source ?? 'local', enabled: user?.enabled ?? true, is_admin: user?.is_admin ?? false, network_login: user?.network_login ?? false,
    chap_enabled: user?.chap_enabled ?? false, must_change_password: user?.must_change_password ?? false, expires_at: toLocal(user?.expires_at ?? null),
    group_ids: user?.group_ids ?? [], role_ids: user?.role_ids ?? [],
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const body: UserCreate = {
        username: v.username, display_name: v.display_name || null, email: v.email || null, enabled: v.enabled, network_login: v.network_login,
        chap_enabled: v.chap_enabled, must_change_password: v.must_change_password, expires_at: fromLocal(v.expires_at),
      }
      // Only an administrator may set is_admin; lists the user may not read are left as they are.
      if (auth.me?.is_admin) body.is_admin = v.is_admin
      if (auth.can('groups.read')) body.group_ids = v.group_ids
      if (auth.can('roles.read')) body.role_ids = v.role_ids
      if (!user) body.source = v.source
      if (v.password) body.password = v.password
      if (user) await api.put('/api/v1/users/{user_id}', { params: { user_id: user.id }, body })
      else await api.post('/api/v1/users', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['users'] })
      await qc.invalidateQueries({ queryKey: ['user-groups'] })
      onClose()
    },
  })
  const error = atListField(save.error)
  const err = (f: string) => fieldError(error, f)
  const directory = v.source === 'directory'
  return (
    <FormDialog title={user ? t.admin.users.editTitle(user.username) : t.admin.users.add} size="lg" testId="user-form" error={error} fields={FIELDS} pending={save.isPending} editing={!!user} after={user && <AccountActions user={user} />} onClose={onClose} onSubmit={() => save.mutate()}>
      <Group grow align="flex-start">
        <TextInput label={t.admin.users.username} name="username" description={allowed('username')} required data-autofocus value={v.username} onChange={(e) => set('username', e.currentTarget.value)} error={err('username')} />
        <TextInput label={t.admin.users.displayName} name="display_name" value={v.display_name} onChange={(e) => set('display_name', e.currentTarget.value)} error={err('display_name')} />
      </Group>
      <Group grow align="flex-start">
        <TextInput label={t.admin.users.email} name="email" type="email" value={v.email} onChange={(e) => set('email', e.currentTarget.value)} error={err('email')} />
        {user ? (
          <TextInput label={t.admin.users.source} readOnly value={t.admin.users.sources[user.source]} />
        ) : (
          <Select label={t.admin.users.source} allowDeselect={false} data={[{ value: 'local', label: t.admin.users.sources.local }, { value: 'directory', label: t.admin.users.sources.directory }]} value={v.source} onChange={(x) => set('source', (x ?? 'local') as 'local' | 'directory')} error={err('source')} />
        )}
      </Group>
      {!directory && (
        <PasswordInput
          label={user ? t.admin.users.newPassword : t.admin.users.password} name="password" autoComplete="new-password"
          description={user ? (user.password_set ? t.admin.users.passwordKeep(when(user.password_changed_at, language)) : t.admin.users.passwordNone) : t.admin.users.passwordHint}
          value={v.password} onChange={(e) => set('password', e.currentTarget.value)} error={err('password')} aria-invalid={!!err('password')}
        />
      )}
      {auth.can('groups.read') && (
        <MultiSelect label={t.admin.users.groups} name="group_ids" searchable clearable data={options(groups.data)} value={v.group_ids} onChange={(x) => set('group_ids', x)} error={err('group_ids')} />
      )}
      {auth.can('roles.read') && (
        <MultiSelect label={t.admin.users.roles} name="role_ids" description={t.admin.users.rolesHint} searchable clearable data={options(roles.data)} value={v.role_ids} onChange={(x) => set('role_ids', x)} error={err('role_ids')} />
      )}
      <TextInput label={t.admin.users.expires} name="expires_at" type="datetime-local" description={t.admin.users.expiresHint} value={v.expires_at} onChange={(e) => set('expires_at', e.currentTarget.value)} error={err('expires_at')} w={260} />
      <Group wrap="wrap">
        <Switch label={t.admin.users.enabled} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} error={err('enabled')} />
        <Switch label={t.admin.users.networkLogin} checked={v.network_login} onChange={(e) => set('network_login', e.currentTarget.checked)} error={err('network_login')} />
        <Switch label={t.admin.users.chap} checked={v.chap_enabled} onChange={(e) => set('chap_enabled', e.currentTarget.checked)} error={err('chap_enabled')} />
        {!directory && <Switch label={t.admin.users.mustChange} checked={v.must_change_password} onChange={(e) => set('must_change_password', e.currentTarget.checked)} />}
        {auth.me?.is_admin && <Switch label={t.admin.users.admin} checked={v.is_admin} onChange={(e) => set('is_admin', e.currentTarget.checked)} error={err('is_admin')} />}
      </Group>
    </FormDialog>
  )
}

/** The second factor and the session and lockout actions of an existing user. */
function AccountActions({ user }: { user: User }) {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const auth = useAuth()
  const qc = useQueryClient()
  const canMfa = auth.can('mfa.manage')
  const mfa = useQuery({ queryKey: ['user-mfa', user.id], queryFn: () => api.get('/api/v1/users/{user_id}/mfa', { params: { user_id: user.id } }), enabled: canMfa, retry: false })
  const [done, setDone] = useState<string | null>(null)
  // The dialog holds the user as the list gave it: the clearing's answer carries the new time.
  const [clearedAt, setClearedAt] = useState(user.lockout_cleared_at)
  const action = useMutation({
    mutationFn: async (what: 'mfa' | 'link' | 'sessions' | 'lockout') => {
      const params = { user_id: user.id }
      if (what === 'mfa') await api.delete('/api/v1/users/{user_id}/mfa', { params })
      else if (what === 'link') await api.post('/api/v1/users/{user_id}/mfa/enrollment-link', { params })
      else if (what === 'sessions') await api.delete('/api/v1/users/{user_id}/sessions', { params })
      else setClearedAt((await api.post('/api/v1/users/{user_id}/lockout/clear', { params })).lockout_cleared_at)
      return what
    },
    onSuccess: async (what) => {
      setDone(t.admin.users.done[what])
      await qc.invalidateQueries({ queryKey: ['user-mfa', user.id] })
      await qc.invalidateQueries({ queryKey: ['users'] })
    },
  })
  return (
    <Stack mt="md" data-testid="account-actions">
      <Divider label={t.admin.users.account} labelPosition="left" />
      {canMfa && (
        <Group justify="space-between" data-testid="user-mfa">
          <Group gap="xs">
            <Text size="sm">{t.admin.users.mfa}</Text>
            {mfa.data && <Badge color={mfa.data.enrolled ? 'green' : 'gray'}>{mfa.data.enrolled ? t.admin.users.mfaOn(when(mfa.data.confirmed_at, language)) : t.admin.users.mfaOff}</Badge>}
            {mfa.isError && <Badge color="gray">{t.admin.users.mfaUnavailable}</Badge>}
          </Group>
          {mfa.data && !mfa.data.enrolled && (
            <Button size="xs" variant="light" loading={action.isPending && action.variables === 'link'} onClick={() => action.mutate('link')}>{t.admin.users.mfaLink}</Button>
          )}
          {mfa.data?.enrolled && (
            <Button size="xs" color="red" variant="light" loading={action.isPending && action.variables === 'mfa'} onClick={() => void ask({ title: t.confirm.title(t.admin.users.mfaReset, user.username), message: t.admin.users.mfaResetConfirm(user.username), confirmLabel: t.admin.users.mfaReset }).then((ok) => ok && action.mutate('mfa'))}>{t.admin.users.mfaReset}</Button>
          )}
        </Group>
      )}
      {/* Each shows itself only when the server answers it: the push factor runs, and this user is one the actor may manage. */}
      {canMfa && <PushDevices userId={user.id} />}
      {canMfa && <MfaFactors userId={user.id} />}
      <Group>
        <Button size="xs" variant="default" loading={action.isPending && action.variables === 'sessions'} onClick={() => void ask({ title: t.confirm.title(t.admin.users.endSessions, user.username), message: t.admin.users.sessionsConfirm(user.username), confirmLabel: t.admin.users.endSessions }).then((ok) => ok && action.mutate('sessions'))}>{t.admin.users.endSessions}</Button>
        <Button size="xs" variant="default" loading={action.isPending && action.variables === 'lockout'} onClick={() => action.mutate('lockout')}>{t.admin.users.clearLockout}</Button>
      </Group>
      {clearedAt && <Text size="xs" c="dimmed">{t.admin.users.lockoutCleared(when(clearedAt, language))}</Text>}
      <AuditLink type="user" id={user.id} />
      <ErrorAlert error={action.error} />
      {done && !action.error && <Alert color="green" role="status">{done}</Alert>}
    </Stack>
  )
}
