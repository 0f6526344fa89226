/**
 * A certificate in a drawer: what it names and when it is valid, its SHA-256
 * fingerprint, the certificate and its chain as files, a one-time bundle
 * link (DownloadLink), and revocation: final, with an RFC 5280 reason, asked
 * again in a confirmation before it is sent.
 */
import { Alert, Badge, Button, Code, Drawer, Group, Modal, Select, Stack, Table, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { DownloadLink } from './DownloadLink'
import { when } from './format'
import { REASONS, STATUS_COLOR, saveText, useCas, type Certificate } from './pki-data'
import { AuditLink } from '../components/AuditLink'

export function CertificateDetails({ id, caName, onClose }: { id: string | null; caName(id: string): string; onClose(): void }) {
  const { t } = useI18n()
  const cert = useQuery({ queryKey: ['pki', 'certificate', id], queryFn: () => api.get('/api/v1/pki/certificates/{certificate_id}', { params: { certificate_id: id! } }), enabled: !!id })
  return (
    <Drawer opened={!!id} onClose={onClose} position="right" size="lg" title={t.pki.certs.detailsTitle}>
      <ErrorAlert error={cert.error} />
      {cert.data && <Details c={cert.data} caName={caName} />}
    </Drawer>
  )
}

function Details({ c, caName }: { c: Certificate; caName(id: string): string }) {
  const { t, language } = useI18n()
  const auth = useAuth()
  const cas = useCas()
  const [revoking, setRevoking] = useState(false)
  const ca = cas.data?.find((x) => x.id === c.ca_id)
  const row = (k: string, v: ReactNode) => (
    <Table.Tr><Table.Th w={170}>{k}</Table.Th><Table.Td>{v}</Table.Td></Table.Tr>
  )
  const mono = (s: string) => <Text ff="monospace" fz="sm" style={{ wordBreak: 'break-all' }}>{s}</Text>
  return (
    <Stack data-testid="certificate-details">
      <Table>
        <Table.Tbody>
          {row(t.pki.subject, mono(c.subject))}
          {row(t.pki.san, c.san ? mono(c.san) : t.common.none)}
          {row(t.pki.status, <Badge color={STATUS_COLOR[c.status]} variant="light" data-testid="certificate-status">{t.pki.statuses[c.status]}</Badge>)}
          {c.revoked_at && row(t.pki.certs.revokedAt, `${when(c.revoked_at, language)} (${t.pki.reasons[c.revocation_reason as (typeof REASONS)[number]] ?? c.revocation_reason})`)}
          {row(t.pki.ca, caName(c.ca_id))}
          {row(t.pki.keyAlgorithm, c.key_algorithm)}
          {row(t.pki.serial, mono(c.serial))}
          {row(t.pki.fingerprint, <Text ff="monospace" fz="xs" style={{ wordBreak: 'break-all' }}>{c.fingerprint_sha256}</Text>)}
          {row(t.pki.validity, `${when(c.not_before, language)} – ${when(c.not_after, language)}`)}
        </Table.Tbody>
      </Table>
      <Group gap="xs">
        <Button variant="default" size="sm" onClick={() => saveText(`${c.serial}.pem`, c.certificate)}>{t.pki.downloadCertificate}</Button>
        {ca && <Button variant="default" size="sm" onClick={() => saveText(`${c.serial}-chain.pem`, c.certificate + ca.certificate + ca.chain)}>{t.pki.downloadChain}</Button>}
        {auth.can('pki.revoke') && c.status !== 'revoked' && <Button color="red" variant="light" size="sm" onClick={() => setRevoking(true)}>{t.pki.certs.revoke}</Button>}
        <AuditLink type="pki_certificate" id={c.id} />
      </Group>
      {auth.can('pki.issue') && c.status !== 'revoked' && <DownloadLink certificate={c} />}
      <Code block fz="xs">{c.certificate}</Code>
      {revoking && <Revoke c={c} onClose={() => setRevoking(false)} />}
    </Stack>
  )
}

function Revoke({ c, onClose }: { c: Certificate; onClose(): void }) {
  const { t } = useI18n()
  const qc = useQueryClient()
  const [reason, setReason] = useState<(typeof REASONS)[number]>('unspecified')
  const revoke = useMutation({
    mutationFn: () => api.post('/api/v1/pki/certificates/{certificate_id}/revoke', { params: { certificate_id: c.id }, body: { reason } }),
    onSuccess: async () => {
      // The CA's CRL number moved too.
      await qc.invalidateQueries({ queryKey: ['pki'] })
      onClose()
    },
  })
  return (
    <Modal opened onClose={onClose} title={t.pki.certs.revokeTitle}>
      <Stack>
        <Text>{t.pki.certs.revokeConfirm(c.subject)}</Text>
        <Alert color="red" variant="light">{t.pki.certs.revokeFinal}</Alert>
        <Select label={t.pki.certs.reason} data={REASONS.map((r) => ({ value: r, label: t.pki.reasons[r] }))} value={reason} onChange={(x) => x && setReason(x as (typeof REASONS)[number])} allowDeselect={false} data-autofocus />
        <ErrorAlert error={revoke.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t.common.cancel}</Button>
          <Button color="red" loading={revoke.isPending} onClick={() => revoke.mutate()}>{t.pki.certs.revokeSubmit}</Button>
        </Group>
      </Stack>
    </Modal>
  )
}
