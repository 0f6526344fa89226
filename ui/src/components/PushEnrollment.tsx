/**
 * Adding a phone for push sign-in: POST /mfa/push-enrollment answers a one-time enrollment token
 * as a QR code (an SVG data URL, allowed by the console's img-src) and as the link the QR code
 * holds, with its expiry (10 minutes). The phone's app does the rest with the push service; the
 * device list shows the phone once it is enrolled. With the session (My account) or with a mailed
 * setup token (the setup page): never for another user, so an administrator cannot enroll their
 * own phone as someone else.
 */
import { Button, Code, Image, Stack, Text } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { api, ApiError } from '../api/client'
import { useI18n } from '../i18n'
import { when } from '../pages/format'
import { ErrorAlert } from './errors'

export function PushEnrollment({ token, onShown, onDone }: { token?: string; onShown?(shown: boolean): void; onDone?(): void }) {
  const { t, language } = useI18n()
  const start = useMutation({ mutationFn: () => api.post('/api/v1/mfa/push-enrollment', { token }), onSuccess: () => onShown?.(true) })
  const unavailable = start.error instanceof ApiError && start.error.status === 404
  const refused = token !== undefined && start.error instanceof ApiError && start.error.status === 401
  if (!start.data) {
    return (
      <Stack align="flex-start" data-testid="push-enrollment">
        <Text size="sm">{t.push.addHint}</Text>
        {unavailable ? <Text>{t.push.disabled}</Text> : refused ? <Text c="red" role="alert">{t.mfaSetup.expired}</Text> : <ErrorAlert error={start.error} />}
        <Button variant="default" onClick={() => start.mutate()} loading={start.isPending} disabled={unavailable || token === ''}>{t.push.add}</Button>
      </Stack>
    )
  }
  return (
    <Stack align="flex-start" data-testid="push-enrollment">
      <Text size="sm">{t.push.scan}</Text>
      <Image src={start.data.qr_svg} alt={t.push.qrAlt} w={220} h={220} bg="white" />
      <Text size="sm">{t.push.uri}</Text>
      <Code block data-testid="push-uri" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap', maxWidth: '100%' }}>{start.data.uri}</Code>
      <Text size="sm">{t.push.expires(when(start.data.expires_at, language))}</Text>
      {token !== undefined && <Text size="sm">{t.push.setupDone}</Text>}
      <Button
        variant="default"
        onClick={() => {
          start.reset()
          onShown?.(false)
          onDone?.()
        }}
      >
        {t.push.done}
      </Button>
    </Stack>
  )
}
