/**
 * Certificates: the list (search over subject, serial and alternative names;
 * filters by status, CA and "expiring soon": valid ones ending within 30
 * days, soonest first), sorted by subject, end or issue date with their headers, 20 a page (or 50,
 * 100), page, sort and filters in the address (list-state.ts); issuing one (CertificateIssue),
 * and a certificate's details in a drawer (CertificateDetails: downloads,
 * a one-time bundle link, revocation). No bulk action: revocation is final, asked one certificate at a time.
 */
import { Badge, Button, Group, Select, Stack, Switch, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useI18n } from '../i18n'
import { useOpenRecord } from '../components/open-record'
import { CertificateDetails } from './CertificateDetails'
import { CertificateIssue } from './CertificateIssue'
import { when } from './format'
import { STATUS_COLOR, useCas } from './pki-data'

const SOON_DAYS = 30
const STATUSES = ['valid', 'revoked', 'expired'] as const
type Status = (typeof STATUSES)[number]
/** The columns GET /pki/certificates sorts by (its `sort_by` allow-list). */
const SORTS = ['created_at', 'not_after', 'subject'] as const

export function PkiCertificates() {
  const { t, language } = useI18n()
  const auth = useAuth()
  // Page, size, sort, search and filters in the address (`ca_id` as the route names it; `soon=1` is the screen's own).
  const list = useListState({ sorts: SORTS, sort: 'created_at', order: 'desc', filters: ['status', 'ca_id', 'soon'] })
  const status = (STATUSES as readonly (string | null)[]).includes(list.filters.status) ? (list.filters.status as Status) : null
  const ca = list.filters.ca_id
  const soon = list.filters.soon === '1'
  const [open, setOpen] = useState<string | null>(null)
  const [issuing, setIssuing] = useState(false)
  // The quick search's `?open=<id>`: the certificate's drawer (it loads the certificate by its id).
  useOpenRecord((id) => id, setOpen)
  // "Expiring soon" is a valid certificate ending within SOON_DAYS, soonest first (a header sorts otherwise);
  // the day is fixed so the query key stays put.
  const setSoon = (on: boolean) => list.setParams(on ? { soon: '1', sort_by: 'not_after', sort_order: 'asc' } : { soon: null, sort_by: null, sort_order: null })
  const cas = useCas()
  const soonBefore = soon ? new Date(Math.ceil(Date.now() / 86_400_000 + SOON_DAYS) * 86_400_000).toISOString() : undefined
  const query = { ...list.query, status: soon ? 'valid' as const : status ?? undefined, ca_id: ca ?? undefined, expires_before: soonBefore }
  const certs = useQuery({
    queryKey: ['pki', 'certificates', query],
    queryFn: () => api.get('/api/v1/pki/certificates', { query }),
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
        <TextInput label={t.common.search} name="search" type="search" placeholder={t.pki.certs.searchPlaceholder} value={list.search} onChange={(e) => list.setSearch(e.currentTarget.value)} w={280} maw="100%" error={fieldError(certs.error, 'search')} />
        <Select label={t.pki.status} placeholder={t.pki.certs.anyStatus} clearable disabled={soon} data={STATUSES.map((s) => ({ value: s, label: t.pki.statuses[s] }))} value={soon ? 'valid' : status} onChange={(x) => list.setFilter('status', x)} w={160} />
        <Select label={t.pki.ca} placeholder={t.pki.certs.anyCa} clearable data={(cas.data ?? []).map((c) => ({ value: c.id, label: c.name }))} value={ca} onChange={(x) => list.setFilter('ca_id', x)} w={220} />
        <Switch label={t.pki.certs.soon(SOON_DAYS)} checked={soon} onChange={(e) => setSoon(e.currentTarget.checked)} mb={6} />
      </Group>
      <ErrorAlert error={certs.error} fields={['search']} />
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-label={t.pki.certs.title} data-testid="certificates-table">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={list} sort="subject">{t.pki.subject}</SortTh><Table.Th>{t.pki.san}</Table.Th><Table.Th>{t.pki.status}</Table.Th><Table.Th>{t.pki.ca}</Table.Th>
              <SortTh list={list} sort="not_after">{t.pki.notAfter}</SortTh><Table.Th>{t.pki.serial}</Table.Th><SortTh list={list} sort="created_at">{t.lists.certIssued}</SortTh>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {certs.data?.items.map((c) => (
              <Table.Tr key={c.id} data-serial={c.serial} data-status={c.status} onClick={() => setOpen(c.id)} style={{ cursor: 'pointer' }}>
                <Table.Td>
                  <UnstyledButton fz="sm" fw={500} ff="monospace" onClick={() => setOpen(c.id)} aria-label={t.pki.certs.details(c.subject)}>{c.subject}</UnstyledButton>
                </Table.Td>
                <Table.Td fz="xs" ff="monospace">{c.san || t.common.none}</Table.Td>
                <Table.Td><Badge color={STATUS_COLOR[c.status]} variant="light">{t.pki.statuses[c.status]}</Badge></Table.Td>
                <Table.Td>{caName(c.ca_id)}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(c.not_after, language)}</Table.Td>
                <Table.Td ff="monospace" fz="xs">{c.serial.slice(0, 16)}…</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(c.created_at, language)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {certs.data && certs.data.items.length === 0 && <Text c="dimmed">{t.pki.certs.empty}</Text>}
      <TableFooter list={list} data={certs.data} testId="certificates-total" />
      <CertificateDetails id={open} caName={caName} onClose={() => setOpen(null)} />
      {issuing && <CertificateIssue cas={cas.data ?? []} onClose={() => setIssuing(false)} onIssued={(c) => setOpen(c.id)} />}
    </Stack>
  )
}
