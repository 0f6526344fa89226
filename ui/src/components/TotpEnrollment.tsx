/**
 * Enrolling an authenticator app: the MFA plugin's two calls. POST
 * /mfa/enrollment answers a new seed as a QR code (an SVG data URL, allowed by
 * the console's img-src) and as text for manual entry; POST
 * /mfa/enrollment/confirm with a code from the app turns it on. With the
 * signed-in session (My account) or with a mailed setup token (the setup page).
 * A server without the MFA plugin answers 404, shown as "not available"; a
 * setup token the server no longer takes (expired, already used), 401.
 */
import { Button, Code, Image, Stack, Text, TextInput } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { useI18n } from '../i18n'
import { ErrorAlert, fieldError } from './errors'

export function TotpEnrollment({ token, onDone }: { token?: string; onDone(): void }) {
  const { t } = useI18n()
  const [code, setCode] = useState('')
  const start = useMutation({ mutationFn: () => api.post('/api/v1/mfa/enrollment', { token }) })
  const confirm = useMutation({ mutationFn: () => api.post('/api/v1/mfa/enrollment/confirm', { body: { code }, token }), onSuccess: onDone })
  const unavailable = start.error instanceof ApiError && start.error.status === 404
  const refused = (e: unknown) => token !== undefined && e instanceof ApiError && e.status === 401
  const submit = (e: FormEvent) => {
    e.preventDefault()
    confirm.mutate()
  }
  if (!start.data) {
    return (
      <Stack align="flex-start">
        <Text size="sm">{t.account.mfaHint}</Text>
        {unavailable ? <Text c="dimmed">{t.account.mfaUnavailable}</Text> : refused(start.error) ? <Text c="red" role="alert">{t.mfaSetup.expired}</Text> : <ErrorAlert error={start.error} />}
        <Button onClick={() => start.mutate()} loading={start.isPending} disabled={unavailable || token === ''}>{t.account.mfaStart}</Button>
      </Stack>
    )
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack align="flex-start">
        <Text size="sm">{t.account.scan}</Text>
        <Image src={start.data.qr_svg} alt={t.account.qrAlt} w={200} h={200} bg="white" />
        <Text size="sm">{t.account.manual} <Code data-testid="mfa-secret">{start.data.secret}</Code></Text>
        {refused(confirm.error) ? <Text c="red" role="alert">{t.mfaSetup.expired}</Text> : <ErrorAlert error={confirm.error} fields={['code']} />}
        <TextInput label={t.signIn.code} name="code" inputMode="numeric" autoComplete="one-time-code" required maxLength={8} value={code} onChange={(e) => setCode(e.currentTarget.value)} error={fieldError(confirm.error, 'code')} />
        <Button type="submit" loading={confirm.isPending}>{t.account.mfaConfirm}</Button>
      </Stack>
    </form>
  )
}
