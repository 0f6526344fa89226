/**
 * Captive portals: the list (name, guest page address, methods, the NAS and
 * SSIDs each serves, durations), add and change in a dialog with the live
 * preview of the guest's landing page (PortalForm.tsx), delete after a
 * confirmation. Readers (portal.read) open a portal read-only.
 */
import { Anchor, Badge, Group, Stack, Table, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { PageTitle, RowActions } from '../components/crud'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { PortalForm } from './PortalForm'
import type { Portal } from './portal-data'

export function Portals() {
  const { t } = useI18n()
  const p = t.portal
  const auth = useAuth()
  const qc = useQueryClient()
  const canManage = auth.can('portal.manage')
  // Portals are few (one a site or SSID): the first 100 by name, on one page.
  const list = useQuery({ queryKey: ['portal', 'portals', 'list'], queryFn: () => api.get('/api/v1/captive-portal/portals', { query: { page: 1, per_page: 100, sort_by: 'name', sort_order: 'asc' } }) })
  const [editing, setEditing] = useState<Portal | 'new' | null>(null)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/captive-portal/portals/{portal_id}', { params: { portal_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['portal'] }),
  })
  return (
    <Stack>
      <PageTitle title={p.portals} add={canManage && { label: p.addPortal, onClick: () => setEditing('new') }} />
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label={p.portals} data-testid="portals-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{p.name}</Table.Th><Table.Th>{p.slug}</Table.Th><Table.Th>{p.methodsLabel}</Table.Th><Table.Th>{p.nasIps}</Table.Th>
              <Table.Th>{p.ssids}</Table.Th><Table.Th>{p.guestMinutes}</Table.Th><Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((x) => (
              <Table.Tr key={x.id} data-portal={x.slug}>
                <Table.Td fw={500}>
                  {x.name}
                  {!x.enabled && <Badge ml="xs" size="sm" color="gray" tt="none">{p.disabled}</Badge>}
                  {x.description && <Text size="xs" c="dimmed">{x.description}</Text>}
                </Table.Td>
                <Table.Td ff="monospace"><Anchor href={x.url_path} target="_blank" rel="noopener noreferrer" aria-label={p.openPage(x.slug)}>{x.url_path}</Anchor></Table.Td>
                <Table.Td>
                  <Group gap={4}>{x.methods.map((m) => <Badge key={m} size="sm" variant="light" tt="none">{p.methodShort[m]}</Badge>)}</Group>
                </Table.Td>
                <Table.Td ff="monospace">{x.nas_ips.join(', ') || t.common.none}</Table.Td>
                <Table.Td>{x.ssids.join(', ') || t.common.none}</Table.Td>
                <Table.Td>{p.minutes(x.guest_minutes)}</Table.Td>
                <Table.Td>
                  <RowActions name={x.name} readOnly={!canManage} confirm={p.deletePortal(x.name)} onEdit={() => setEditing(x)} onDelete={() => remove.mutate(x.id)} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.total === 0 && <Text c="dimmed">{p.emptyPortals}</Text>}
      {editing && <PortalForm portal={editing === 'new' ? null : editing} readOnly={!canManage} onClose={() => setEditing(null)} />}
    </Stack>
  )
}
