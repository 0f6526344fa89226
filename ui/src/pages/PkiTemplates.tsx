/**
 * Certificate templates: what a certificate issued under each may name and
 * do (key usage, extended key usage, validity, name patterns, subject
 * attributes, SAN types, the weakest key). Made in TemplateForm, deleted
 * while nothing was issued under it (the API refuses otherwise, shown in the
 * alert); a template is never changed (make a new one). Below: the EST
 * enrollments held for approval, when any are.
 */
import { ActionIcon, Badge, Group, Stack, Table, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { EstRequests } from './EstRequests'
import { useTemplates } from './pki-data'
import { TemplateForm } from './TemplateForm'
import { PageTitle } from '../components/crud'
import { useConfirm } from '../components/Confirm'

export function PkiTemplates() {
  const { t } = useI18n()
  const ask = useConfirm()
  const auth = useAuth()
  const qc = useQueryClient()
  const templates = useTemplates()
  const [creating, setCreating] = useState(false)
  const remove = useMutation({
    mutationFn: (id: string) => api.delete('/api/v1/pki/templates/{template_id}', { params: { template_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['pki', 'templates'] }),
  })
  const canManage = auth.can('pki.manage')
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : t.common.none)
  return (
    <Stack>
      <PageTitle title={t.pki.templates.title} add={canManage && { label: t.pki.templates.add, onClick: () => setCreating(true) }} />
      <ErrorAlert error={templates.error ?? remove.error} />
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label={t.pki.templates.title} data-testid="templates-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.pki.name}</Table.Th><Table.Th>{t.pki.templates.usage}</Table.Th><Table.Th>{t.pki.templates.validity}</Table.Th>
              <Table.Th>{t.pki.templates.patterns}</Table.Th><Table.Th>{t.pki.templates.names}</Table.Th><Table.Th>{t.pki.templates.minKey}</Table.Th>{canManage && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {templates.data?.map((x) => (
              <Table.Tr key={x.id} data-template={x.name}>
                <Table.Td>
                  <Text fw={500} size="sm">{x.name}</Text>
                  {x.description && <Text size="xs" c="dimmed">{x.description}</Text>}
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {x.key_usage.map((k) => <Badge key={k} size="xs" variant="outline" styles={{ label: { textTransform: 'none' } }}>{k}</Badge>)}
                    {x.extended_key_usage.map((k) => <Badge key={k} size="xs" variant="light" styles={{ label: { textTransform: 'none' } }}>{k}</Badge>)}
                  </Group>
                </Table.Td>
                <Table.Td>{t.pki.templates.days(x.validity_days)}</Table.Td>
                <Table.Td ff="monospace" fz="xs">{list(x.name_patterns)}</Table.Td>
                <Table.Td fz="xs">{list(x.subject_attributes)}; {list(x.san_types)}</Table.Td>
                <Table.Td fz="xs">RSA {x.min_rsa_bits}, EC {x.min_ec_bits}</Table.Td>
                {canManage && (
                  <Table.Td>
                    <ActionIcon variant="subtle" color="red" aria-label={`${t.common.delete} ${x.name}`} onClick={() => void ask({ title: t.confirm.title(t.common.delete, x.name), message: t.pki.templates.deleteConfirm(x.name), confirmLabel: t.common.delete }).then((ok) => ok && remove.mutate(x.id))}>✕</ActionIcon>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {creating && <TemplateForm onClose={() => setCreating(false)} />}
      <EstRequests />
    </Stack>
  )
}
