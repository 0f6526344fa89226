/**
 * Certificate authorities: the list (roots and the issuing CAs under them),
 * a CA's details in a drawer (subject, validity, serial, SHA-256 fingerprint,
 * its CRL's number and next update) with its certificate, chain and CRL as
 * files, and making or importing one (CaForm). A CA's key is never shown:
 * the API never answers it.
 */
import { Anchor, Badge, Button, Code, Drawer, Group, Stack, Table, Text, UnstyledButton } from '@mantine/core'
import { useState, type ReactNode } from 'react'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { CaForm } from './CaForm'
import { when } from './format'
import { crlUrl, fileName, saveText, useCas, type Ca } from './pki-data'
import { PageTitle } from '../components/crud'

export function PkiCas() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const cas = useCas()
  const [open, setOpen] = useState<string | null>(null)
  const [creating, setCreating] = useState(false)
  const list = cas.data ?? []
  const nameOf = (id: string | null) => list.find((c) => c.id === id)?.name ?? t.common.none
  const shown = list.find((c) => c.id === open) ?? null
  return (
    <Stack>
      <PageTitle title={t.pki.cas.title} add={auth.can('pki.manage') && { label: t.pki.cas.add, onClick: () => setCreating(true) }} />
      <ErrorAlert error={cas.error} />
      <Table.ScrollContainer minWidth={800}>
        <Table striped highlightOnHover aria-label={t.pki.cas.title} data-testid="cas-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.pki.name}</Table.Th><Table.Th>{t.pki.cas.kind}</Table.Th><Table.Th>{t.pki.subject}</Table.Th><Table.Th>{t.pki.keyAlgorithm}</Table.Th>
              <Table.Th>{t.pki.notAfter}</Table.Th><Table.Th>{t.pki.cas.crl}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((c) => (
              <Table.Tr key={c.id} data-ca={c.name} onClick={() => setOpen(c.id)} style={{ cursor: 'pointer' }}>
                <Table.Td fw={500}>
                  <UnstyledButton fw={500} fz="sm" onClick={() => setOpen(c.id)} aria-label={t.pki.cas.details(c.name)}>{c.name}</UnstyledButton>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={c.kind === 'root' ? 'blue' : 'grape'}>{t.pki.cas.kinds[c.kind]}</Badge>
                  {c.parent_id && <Text span size="xs" c="dimmed"> ← {nameOf(c.parent_id)}</Text>}
                </Table.Td>
                <Table.Td ff="monospace" fz="xs">{c.subject}</Table.Td>
                <Table.Td>{c.key_algorithm}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(c.not_after, language)}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{t.pki.cas.crlState(c.crl_number, when(c.crl_next_update, language))}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {cas.data && list.length === 0 && <Text c="dimmed">{t.pki.cas.empty}</Text>}
      <Drawer opened={!!shown} onClose={() => setOpen(null)} position="right" size="lg" title={shown ? t.pki.cas.details(shown.name) : ''}>
        {shown && <CaDetails ca={shown} parent={shown.parent_id ? nameOf(shown.parent_id) : null} />}
      </Drawer>
      {creating && <CaForm roots={list.filter((c) => c.kind === 'root')} onClose={() => setCreating(false)} onCreated={(c) => setOpen(c.id)} />}
    </Stack>
  )
}

function CaDetails({ ca, parent }: { ca: Ca; parent: string | null }) {
  const { t, language } = useI18n()
  const row = (k: string, v: ReactNode) => (
    <Table.Tr><Table.Th w={170}>{k}</Table.Th><Table.Td>{v}</Table.Td></Table.Tr>
  )
  const base = fileName(ca.name)
  return (
    <Stack data-testid="ca-details">
      <Table>
        <Table.Tbody>
          {row(t.pki.subject, <Text ff="monospace" fz="sm">{ca.subject}</Text>)}
          {row(t.pki.cas.kind, `${t.pki.cas.kinds[ca.kind]}${parent ? ` (${t.pki.cas.under(parent)})` : ''}${ca.imported ? `, ${t.pki.cas.imported}` : ''}`)}
          {row(t.pki.keyAlgorithm, ca.key_algorithm)}
          {row(t.pki.serial, <Text ff="monospace" fz="sm" style={{ wordBreak: 'break-all' }}>{ca.serial}</Text>)}
          {row(t.pki.fingerprint, <Text ff="monospace" fz="xs" style={{ wordBreak: 'break-all' }} data-testid="fingerprint">{ca.fingerprint_sha256}</Text>)}
          {row(t.pki.validity, `${when(ca.not_before, language)} – ${when(ca.not_after, language)}`)}
          {row(t.pki.cas.crlNumber, <span data-testid="crl-number">{ca.crl_number}</span>)}
          {row(t.pki.cas.nextUpdate, when(ca.crl_next_update, language))}
        </Table.Tbody>
      </Table>
      <Group gap="xs">
        <Button variant="default" size="sm" onClick={() => saveText(`${base}.pem`, ca.certificate)}>{t.pki.downloadCertificate}</Button>
        {/* The chain a relying party installs: this CA, then each issuer up to the root. */}
        <Button variant="default" size="sm" onClick={() => saveText(`${base}-chain.pem`, ca.certificate + ca.chain)}>{t.pki.downloadChain}</Button>
      </Group>
      <Group gap="xs">
        <Text size="sm">{t.pki.cas.crlFiles}</Text>
        <Anchor href={crlUrl(ca.id, 'pem')} download={`${base}.crl.pem`} data-testid="crl-pem">{t.pki.cas.crlPem}</Anchor>
        <Anchor href={crlUrl(ca.id, 'crl')} download={`${base}.crl`}>{t.pki.cas.crlDer}</Anchor>
      </Group>
      <Text size="xs" c="dimmed">{t.pki.cas.crlPublic}</Text>
      <Code block fz="xs">{ca.certificate}</Code>
    </Stack>
  )
}
