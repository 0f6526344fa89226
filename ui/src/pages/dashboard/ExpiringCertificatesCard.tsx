/** Valid certificates that end within 30 days, soonest first (GET /pki/certificates, pki.view). */
import { Anchor, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { useAuth } from '../../auth'
import { ErrorAlert } from '../../components/errors'
import { useI18n } from '../../i18n'
import { Link } from '../../router'
import { when } from '../format'
import { NoPermission, Panel } from './Panel'

const DAY = 86_400_000

export function ExpiringCertificatesCard() {
  const { t, language } = useI18n()
  const can = useAuth().can('pki.view')
  // The window's end is fixed when the card opens: a new one each render would be a new query each render.
  const [until] = useState(() => new Date(Date.now() + 30 * DAY).toISOString())
  const certs = useQuery({
    queryKey: ['pki', 'certificates', 'expiring', until],
    queryFn: () => api.get('/api/v1/pki/certificates', { query: { status: 'valid', expires_before: until, sort_by: 'not_after', sort_order: 'asc', per_page: 8 } }),
    enabled: can,
  })
  const items = certs.data?.items ?? []
  return (
    <Panel title={t.dash.certificates} testId="expiring-certificates">
      {!can ? <NoPermission /> : <ErrorAlert error={certs.error} />}
      {certs.data && items.length === 0 && <Text c="dimmed">{t.dash.noExpiring}</Text>}
      {items.length > 0 && (
        <Table.ScrollContainer minWidth={360}>
          <Table>
            <Table.Thead><Table.Tr><Table.Th>{t.dash.subject}</Table.Th><Table.Th>{t.dash.expires}</Table.Th></Table.Tr></Table.Thead>
            <Table.Tbody>
              {items.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>{c.subject}</Table.Td>
                  <Table.Td>{when(c.not_after, language)} ({t.dash.inDays(Math.floor((Date.parse(c.not_after) - Date.now()) / DAY))})</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {can && <Anchor component={Link} href="/pki/certificates" size="sm">{t.dash.allCertificates}</Anchor>}
    </Panel>
  )
}
