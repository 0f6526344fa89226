/**
 * Certificates: the list (search over subject, serial and alternative names;
 * filters by status, CA and "expiring soon": valid ones ending within 30
 * days; 20 a page; the filters in the URL), issuing one (CertificateIssue),
 * and a certificate's details in a drawer (CertificateDetails: downloads,
 * a one-time bundle link, revocation).
 */
import { Badge, Button, Group, Select, Stack, Switch, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { useOpenRecord } from '../components/open-record'
import { CertificateDetails } from './CertificateDetails'
import { CertificateIssue } from './CertificateIssue'
import { when } from './format'
import { STATUS_COLOR, useCas } from './pki-data'
import { ListFooter } from '../components/crud'

const PER_PAGE = 20
const SOON_DAYS = 30
type Status = 'valid' | 'revoked' | 'expired'

export function PkiCertificates() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const url = new URLSearchParams(location.search)
  const [f, setF] = useState({ search: url.get('search') ?? '', status: url.get('status') as Status | null, ca: url.get('ca'), soon: url.get('soon') === '1' })
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<string | null>(null)
  const [issuing, setIssuing] = useState(false)
  // The quick search's `?open=<id>`: the certificate's drawer (it loads the certificate by its id).
  useOpenRecord((id) => id, setOpen)
  const [q] = useDebouncedValue(f.search, 250)
  const set = <K extends keyof typeof f>(k: K, x: (typeof f)[K]) => {
    const n = { ...f, [k]: x }
    setF(n)
    setPage(1)
    // Kept in the URL: a reload or a shared link shows the same list.
    const p = new URLSearchParams()
    if (n.search) p.set('search', n.search)
    if (n.status) p.set('status', n.status)
    if (n.ca) p.set('ca', n.ca)
    if (n.soon) p.set('soon', '1')
    history.replaceState(null, '', `/pki/certificates${p.toString() ? `?${p}` : ''}`)
  }
  const cas = useCas()
  // "Expiring soon" is a valid certificate ending within SOON_DAYS; the day is fixed so the query key stays put.
  const soonBefore = f.soon ? new Date(Math.ceil(Date.now() / 86_400_000 + SOON_DAYS) * 86_400_000).toISOString() : undefined
  const query = { search: q || undefined, status: f.soon ? 'valid' as const : f.status ?? undefined, ca_id: f.ca ?? undefined, expires_before: soonBefore, sort_by: f.soon ? 'not_after' as const : 'created_at' as const, sort_order: f.soon ? 'asc' as const : 'desc' as const }
  const list = useQuery({
    queryKey: ['pki', 'certificates', query, page],
    queryFn: () => api.get('/api/v1/pki/certificates', { query: { ...query, page, per_page: PER_PAGE } }),
    placeholderData: keepPreviousData,
  })
  const caName = (id: string) => cas.data?.find((c) => c.id === id)?.name ?? id
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">{t.pki.certs.title}</Title>
        {auth.can('pki.issue') && <Button onClick={() => setIssuing(true)} disabled={!cas.data?.length} title={cas.data?.length ? undefined : t.pki.certs.noCa}>{t.pki.certs.issue}</Button>}
      </Group>
      <Group align="flex-end" gap="sm">
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.pki.certs.searchPlaceholder} value={f.search} onChange={(e) => set('search', e.currentTarget.value)} w={280} maw="100%" error={fieldError(list.error, 'search')} />
        <Select label={t.pki.status} placeholder={t.pki.certs.anyStatus} clearable disabled={f.soon} data={(['valid', 'revoked', 'expired'] as const).map((s) => ({ value: s, label: t.pki.statuses[s] }))} value={f.soon ? 'valid' : f.status} onChange={(x) => set('status', x as Status | null)} w={160} />
        <Select label={t.pki.ca} placeholder={t.pki.certs.anyCa} clearable data={(cas.data ?? []).map((c) => ({ value: c.id, label: c.name }))} value={f.ca} onChange={(x) => set('ca', x)} w={220} />
        <Switch label={t.pki.certs.soon(SOON_DAYS)} checked={f.soon} onChange={(e) => set('soon', e.currentTarget.checked)} mb={6} />
      </Group>
      <ErrorAlert error={list.error} fields={['search']} />
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.pki.certs.title} data-testid="certificates-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.pki.subject}</Table.Th><Table.Th>{t.pki.san}</Table.Th><Table.Th>{t.pki.status}</Table.Th><Table.Th>{t.pki.ca}</Table.Th>
              <Table.Th>{t.pki.notAfter}</Table.Th><Table.Th>{t.pki.serial}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((c) => (
              <Table.Tr key={c.id} data-serial={c.serial} data-status={c.status} onClick={() => setOpen(c.id)} style={{ cursor: 'pointer' }}>
                <Table.Td>
                  <UnstyledButton fz="sm" fw={500} ff="monospace" onClick={() => setOpen(c.id)} aria-label={t.pki.certs.details(c.subject)}>{c.subject}</UnstyledButton>
                </Table.Td>
                <Table.Td fz="xs" ff="monospace">{c.san || t.common.none}</Table.Td>
                <Table.Td><Badge color={STATUS_COLOR[c.status]} variant="light">{t.pki.statuses[c.status]}</Badge></Table.Td>
                <Table.Td>{caName(c.ca_id)}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(c.not_after, language)}</Table.Td>
                <Table.Td ff="monospace" fz="xs">{c.serial.slice(0, 16)}…</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.items.length === 0 && <Text c="dimmed">{t.pki.certs.empty}</Text>}
      <ListFooter data={list.data} page={page} onPage={setPage} testId="certificates-total" />
      <CertificateDetails id={open} caName={caName} onClose={() => setOpen(null)} />
      {issuing && <CertificateIssue cas={cas.data ?? []} onClose={() => setIssuing(false)} onIssued={(c) => setOpen(c.id)} />}
    </Stack>
  )
}
