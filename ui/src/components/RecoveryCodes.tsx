/**
 * My recovery codes (docs/mfa.md "Recovery codes"): how many are left, and a new set, shown this
 * once with copy and download, since the server keeps only their hashes. Making a new set voids
 * the old one, so the button says so when codes are left.
 */
import { Alert, Button, Code, Group, Stack, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, saveBlob } from '../api/client'
import { useI18n } from '../i18n'
import { ErrorAlert } from './errors'

const KEY = ['mfa', 'recovery-codes']

export function RecoveryCodes() {
  const { t } = useI18n()
  const qc = useQueryClient()
  const status = useQuery({ queryKey: KEY, queryFn: () => api.get('/api/v1/mfa/recovery-codes'), retry: false })
  const [codes, setCodes] = useState<string[] | null>(null)
  const [copied, setCopied] = useState(false)
  const make = useMutation({
    mutationFn: () => api.post('/api/v1/mfa/recovery-codes'),
    onSuccess: async (r) => {
      setCodes(r.codes)
      setCopied(false)
      await qc.invalidateQueries({ queryKey: KEY })
    },
  })
  if (!status.data) return null
  const text = codes ? codes.join('\n') + '\n' : ''
  const left = status.data.remaining
  return (
    <Stack gap="xs" data-testid="mfa-recovery">
      <Title order={3} size="h5">{t.recovery.title}</Title>
      <Text size="sm">{t.recovery.hint}</Text>
      <Text size="sm" data-testid="recovery-left">{t.recovery.left(left)}</Text>
      {codes && (
        <Alert color="yellow" role="status">
          <Stack gap="xs">
            <Text size="sm">{t.recovery.shownOnce}</Text>
            <Code block data-testid="recovery-codes">{text}</Code>
            <Group gap="xs">
              <Button size="xs" variant="default" onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}>{copied ? t.recovery.copied : t.recovery.copy}</Button>
              <Button size="xs" variant="default" onClick={() => saveBlob('portcullis-recovery-codes.txt', new Blob([text], { type: 'text/plain' }))}>{t.recovery.download}</Button>
              <Button size="xs" variant="subtle" onClick={() => setCodes(null)}>{t.recovery.hide}</Button>
            </Group>
          </Stack>
        </Alert>
      )}
      <ErrorAlert error={make.error} />
      <Group>
        <Button size="xs" variant={left ? 'default' : 'filled'} loading={make.isPending} onClick={() => make.mutate()}>{left ? t.recovery.regenerate : t.recovery.generate}</Button>
      </Group>
    </Stack>
  )
}
