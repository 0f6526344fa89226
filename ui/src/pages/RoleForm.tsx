/**
 * A role in a dialog: name, description and its permissions as checkboxes,
 * grouped by the plugin that declares them, each with its description in the
 * screen's language (GET /rbac/schema). A permission the signed-in user does
 * not hold is marked; granting it is the API's to refuse (403 at
 * `permissions[i]`), and the refusal shows under that permission's checkbox.
 */
import { Checkbox, Fieldset, Group, ScrollArea, Stack, Text, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { useRbacSchema, type Role } from './identity-data'
import { FormDialog, useAllowed } from '../components/crud'

export function RoleForm({ role, onClose }: { role: Role | null; onClose(): void }) {
  const { t, language } = useI18n()
  const allowed = useAllowed('POST /api/v1/roles')
  const auth = useAuth()
  const qc = useQueryClient()
  const schema = useRbacSchema(language, auth.can('rbac.read'))
  const [v, setV] = useState({ name: role?.name ?? '', description: role?.description ?? '' })
  const [perms, setPerms] = useState<Set<string>>(() => new Set(role?.permissions ?? []))
  // The list as sent: an error at `permissions[i]` names its i-th item.
  const sent = useRef<string[]>([])
  const save = useMutation({
    mutationFn: async () => {
      sent.current = [...perms].sort()
      const body = { name: v.name, description: v.description || null, permissions: sent.current }
      if (role) await api.put('/api/v1/roles/{role_id}', { params: { role_id: role.id }, body })
      else await api.post('/api/v1/roles', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['roles'] })
      onClose()
    },
  })
  const at = save.error instanceof ApiError ? /^permissions\[(\d+)\]$/.exec(save.error.field ?? '') : null
  const refused = at ? sent.current[Number(at[1])] : null
  const toggle = (names: string[], on: boolean) =>
    setPerms((o) => {
      const n = new Set(o)
      for (const p of names) if (on) n.add(p); else n.delete(p)
      return n
    })
  return (
    <FormDialog title={role ? t.admin.roles.editTitle(role.name) : t.admin.roles.add} size="xl" testId="role-form" error={refused ? null : save.error} fields={['name', 'description']} pending={save.isPending} editing={!!role} onClose={onClose} onSubmit={() => save.mutate()}>
      <Group grow align="flex-start">
        <TextInput label={t.admin.roles.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => setV({ ...v, name: e.currentTarget.value })} error={fieldError(save.error, 'name')} />
        <TextInput label={t.admin.roles.description} name="description" value={v.description} onChange={(e) => setV({ ...v, description: e.currentTarget.value })} error={fieldError(save.error, 'description')} />
      </Group>
      <Text fw={500} size="sm">{t.admin.roles.permissions} ({perms.size})</Text>
      <ErrorAlert error={schema.error} />
      <ScrollArea.Autosize mah="55vh" type="auto">
        <Stack gap="sm" data-testid="permissions">
          {schema.data?.groups.map((g) => {
            const names = g.permissions.map((p) => p.name)
            const held = names.filter((p) => perms.has(p)).length
            return (
              <Fieldset key={g.plugin} legend={g.plugin === 'kernel' ? t.admin.settings.kernel : g.plugin} data-plugin={g.plugin} p="sm">
                <Checkbox mb="xs" label={t.admin.roles.all} checked={held === names.length} indeterminate={held > 0 && held < names.length} onChange={(e) => toggle(names, e.currentTarget.checked)} aria-label={`${t.admin.roles.all}: ${g.plugin}`} />
                <Stack gap={6}>
                  {g.permissions.map((p) => (
                    <Checkbox
                      key={p.name} name={`perm:${p.name}`} value={p.name} checked={perms.has(p.name)} onChange={(e) => toggle([p.name], e.currentTarget.checked)}
                      label={<><Text span ff="monospace" size="sm">{p.name}</Text>{!auth.can(p.name) && <Text span c="orange" size="xs" title={t.admin.roles.lacking}> ⚠</Text>}</>}
                      description={p.description} error={refused === p.name ? save.error?.message : undefined} aria-invalid={refused === p.name || undefined}
                    />
                  ))}
                </Stack>
              </Fieldset>
            )
          })}
        </Stack>
      </ScrollArea.Autosize>
    </FormDialog>
  )
}
