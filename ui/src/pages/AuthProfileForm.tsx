/**
 * Add or change an authorization profile, in a dialog. A deny sends no
 * attributes, so choosing it greys the attribute inputs out and sends them
 * empty; every other refusal (VLAN_INVALID, an unsafe value, a redirect
 * without its ACL, re-authentication without a timeout…) shows under its input.
 */
import { Group, NumberInput, Switch, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError } from '../api/client'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { AuthProfile } from './nac-data'
import { FormDialog, useAllowed } from '../components/crud'

const FIELDS = ['name', 'description', 'deny', 'vlan', 'acl', 'cisco_acl', 'cisco_url_redirect', 'cisco_url_redirect_acl', 'aruba_user_role', 'session_timeout', 'reauthenticate', ...Array.from({ length: 50 }, (_, i) => `cisco_acl[${i}]`)]

export function AuthProfileForm({ profile, onClose }: { profile: AuthProfile | null; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/nac/authorization-profiles')
  const qc = useQueryClient()
  const [v, setV] = useState({
    name: profile?.name ?? '', description: profile?.description ?? '', deny: profile?.deny ?? false, vlan: profile?.vlan ?? '', acl: profile?.acl ?? '',
    ciscoAcl: (profile?.cisco_acl ?? []).join('\n'), redirect: profile?.cisco_url_redirect ?? '', redirectAcl: profile?.cisco_url_redirect_acl ?? '',
    role: profile?.aruba_user_role ?? '', timeout: (profile?.session_timeout ?? '') as number | string, reauth: profile?.reauthenticate ?? false,
  })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: async () => {
      const a = !v.deny
      const body = {
        name: v.name, description: v.description || null, deny: v.deny,
        vlan: (a && v.vlan.trim()) || null, acl: (a && v.acl.trim()) || null,
        cisco_acl: a ? v.ciscoAcl.split('\n').map((x) => x.trim()).filter(Boolean) : [],
        cisco_url_redirect: (a && v.redirect.trim()) || null, cisco_url_redirect_acl: (a && v.redirectAcl.trim()) || null,
        aruba_user_role: (a && v.role.trim()) || null,
        session_timeout: a && v.timeout !== '' ? Number(v.timeout) : null, reauthenticate: a && v.reauth,
      }
      if (profile) await api.put('/api/v1/nac/authorization-profiles/{profile_id}', { params: { profile_id: profile.id }, body })
      else await api.post('/api/v1/nac/authorization-profiles', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nac'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  const off = v.deny
  return (
    <FormDialog title={profile ? t.nac.editProfile : t.nac.addProfile} size="lg" testId="profile-form" error={save.error} fields={FIELDS} pending={save.isPending} editing={!!profile} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={t.nac.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
      <Switch label={t.nac.deny} description={t.nac.denyHint} name="deny" checked={v.deny} onChange={(e) => set('deny', e.currentTarget.checked)} error={err('deny')} />
      <Group grow align="flex-start">
        <TextInput label={t.nac.vlan} name="vlan" description={t.nac.vlanHint} disabled={off} value={v.vlan} onChange={(e) => set('vlan', e.currentTarget.value)} error={err('vlan')} />
        <TextInput label={t.nac.acl} name="acl" disabled={off} value={v.acl} onChange={(e) => set('acl', e.currentTarget.value)} error={err('acl')} />
      </Group>
      <Textarea label={t.nac.ciscoAcl} name="cisco_acl" description={t.nac.ciscoAclHint} disabled={off} autosize minRows={2} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} value={v.ciscoAcl} onChange={(e) => set('ciscoAcl', e.currentTarget.value)}
        error={save.error instanceof ApiError && save.error.field?.startsWith('cisco_acl') ? save.error.message : undefined} />
      <Group grow align="flex-start">
        <TextInput label={t.nac.redirect} name="cisco_url_redirect" placeholder="https://portal.example/guest" disabled={off} value={v.redirect} onChange={(e) => set('redirect', e.currentTarget.value)} error={err('cisco_url_redirect')} />
        <TextInput label={t.nac.redirectAcl} name="cisco_url_redirect_acl" disabled={off} value={v.redirectAcl} onChange={(e) => set('redirectAcl', e.currentTarget.value)} error={err('cisco_url_redirect_acl')} />
      </Group>
      <Group grow align="flex-start">
        <TextInput label={t.nac.role} name="aruba_user_role" disabled={off} value={v.role} onChange={(e) => set('role', e.currentTarget.value)} error={err('aruba_user_role')} />
        <NumberInput label={t.nac.sessionTimeout} name="session_timeout" min={60} clampBehavior="none" allowDecimal={false} disabled={off} value={v.timeout} onChange={(x) => set('timeout', x)} error={err('session_timeout')} />
      </Group>
      <Switch label={t.nac.reauthenticate} name="reauthenticate" disabled={off} checked={v.reauth} onChange={(e) => set('reauth', e.currentTarget.checked)} error={err('reauthenticate')} />
      <Textarea label={t.nac.description} name="description" autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
    </FormDialog>
  )
}
