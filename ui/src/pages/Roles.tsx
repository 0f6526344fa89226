/**
 * Roles: each with its permission count and who holds it (users directly,
 * groups); add and change in a dialog (RoleForm) with the permission list of
 * GET /rbac/schema; delete after a confirmation that says who loses it.
 */
import { Stack, Table, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { useAllRoles, type Role } from './identity-data'
import { RoleForm } from './RoleForm'
import { PageTitle, RowActions } from '../components/crud'

export function Roles() {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const roles = useAllRoles()
  const [editing, setEditing] = useState<Role | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/roles/{role_id}', { params: { role_id: id } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['roles'] })
      await qc.invalidateQueries({ queryKey: ['user-groups'] })
    },
  })
  const canWrite = auth.can('roles.write')
  return (
    <Stack>
      <PageTitle title={t.admin.roles.title} add={canWrite && { label: t.admin.roles.add, onClick: () => setEditing('new') }} />
      <ErrorAlert error={roles.error ?? remove.error} />
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label={t.admin.roles.title} data-testid="roles-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.admin.roles.name}</Table.Th><Table.Th>{t.admin.roles.description}</Table.Th><Table.Th>{t.admin.roles.permissions}</Table.Th>
              <Table.Th>{t.admin.roles.heldBy}</Table.Th>{canWrite && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {roles.data?.map((r) => (
              <Table.Tr key={r.id} data-role={r.name}>
                <Table.Td fw={500}>{r.name}</Table.Td>
                <Table.Td>{r.description ?? t.common.none}</Table.Td>
                <Table.Td title={r.permissions.join('\n')}>{t.admin.roles.count(r.permissions.length)}</Table.Td>
                <Table.Td>{t.admin.roles.usedBy(r.user_count, r.group_count)}</Table.Td>
                {canWrite && (
                  <Table.Td>
                    <RowActions name={r.name} confirm={t.admin.roles.deleteConfirm(r.name, r.user_count, r.group_count)} touches={[t.admin.roles.usedBy(r.user_count, r.group_count)]} onEdit={() => setEditing(r)} onDelete={() => remove.mutate(r.id)} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {roles.data?.length === 0 && <Text c="dimmed">{t.admin.roles.empty}</Text>}
      {editing && <RoleForm role={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
