/**
 * A one-time download link for a certificate's bundle (PKCS#12 or PEM: the
 * certificate, its chain, and the private key while the server still holds
 * it). The link is shown once (only its hash is stored); a bundle with the
 * key takes it off the server, which the warning says plainly. The
 * passphrase is never stored nor in the link: it goes to the recipient
 * another way.
 */
import { Alert, Button, CopyButton, Group, NumberInput, Paper, PasswordInput, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import type { Certificate } from './pki-data'

const FIELDS = ['format', 'passphrase', 'expires_in_hours']

export function DownloadLink({ certificate, withKey = false, onMade }: { certificate: Certificate; withKey?: boolean; onMade?(): void }) {
  const { t, language } = useI18n()
  const [v, setV] = useState({ format: 'pkcs12' as 'pkcs12' | 'pem', passphrase: '', hours: 72 as number | string })
  const make = useMutation({
    mutationFn: () =>
      api.post('/api/v1/pki/certificates/{certificate_id}/download-links', {
        params: { certificate_id: certificate.id },
        body: { format: v.format, passphrase: v.passphrase || undefined, expires_in_hours: Number(v.hours) || undefined },
      }),
    onSuccess: () => onMade?.(),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    make.mutate()
  }
  const link = make.data
  const href = link ? (link.url ?? location.origin + link.path) : ''
  return (
    <Paper withBorder p="sm" data-testid="download-link">
      <Stack gap="xs">
        <Title order={2} size="h5">{t.pki.link.title}</Title>
        {!link && (
          <form onSubmit={submit} noValidate>
            <Stack gap="xs">
              <Text size="sm" c="dimmed">{withKey ? t.pki.link.hintKey : t.pki.link.hint}</Text>
              <SegmentedControl value={v.format} onChange={(x) => setV((o) => ({ ...o, format: x as 'pkcs12' | 'pem' }))} data={[{ value: 'pkcs12', label: 'PKCS#12 (.p12)' }, { value: 'pem', label: 'PEM' }]} />
              <Group grow align="flex-start">
                <PasswordInput label={t.pki.link.passphrase} name="passphrase" autoComplete="new-password" description={t.pki.link.passphraseHint} value={v.passphrase} onChange={(e) => { const passphrase = e.currentTarget.value; setV((o) => ({ ...o, passphrase })) }} error={fieldError(make.error, 'passphrase')} aria-invalid={!!fieldError(make.error, 'passphrase')} />
                <NumberInput label={t.pki.link.hours} name="expires_in_hours" min={1} max={168} value={v.hours} onChange={(x) => setV((o) => ({ ...o, hours: x }))} error={fieldError(make.error, 'expires_in_hours')} />
              </Group>
              <ErrorAlert error={make.error} fields={FIELDS} />
              <Group justify="flex-end"><Button type="submit" loading={make.isPending}>{t.pki.link.make}</Button></Group>
            </Stack>
          </form>
        )}
        {link && (
          <Stack gap="xs" data-testid="download-link-made">
            <Alert color={link.includes_key ? 'orange' : 'blue'} title={link.includes_key ? t.pki.link.onceKeyTitle : t.pki.link.onceTitle} role="alert">
              {link.includes_key ? t.pki.link.onceKey : t.pki.link.once} {t.pki.link.expires(when(link.expires_at, language))}
            </Alert>
            <Group gap="xs" wrap="nowrap" align="flex-end">
              <TextInput label={t.pki.link.url} readOnly value={href} ff="monospace" style={{ flex: 1 }} onFocus={(e) => e.currentTarget.select()} data-testid="download-url" />
              <CopyButton value={href}>{({ copied, copy }) => <Button variant="default" onClick={copy}>{copied ? t.pki.link.copied : t.pki.link.copy}</Button>}</CopyButton>
            </Group>
          </Stack>
        )}
      </Stack>
    </Paper>
  )
}
