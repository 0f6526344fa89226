/**
 * The password reset, signed out (/reset-password): ask for a link (POST
 * /auth/password-reset, which answers the same whether or not the account
 * exists), then set the new password with the mailed token (POST
 * /auth/password-reset/confirm). The mail's link carries the token in its
 * fragment (router's useLinkToken); a mail without a link carries the token
 * alone, pasted here. A password the policy refuses shows under its input and
 * does not spend the token.
 */
import { Alert, Anchor, Button, Divider, PasswordInput, Stack, Text, Textarea, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { SignedOutFrame } from '../components/SignedOutFrame'
import { useI18n } from '../i18n'
import { Link, navigate, useLinkToken } from '../router'

export function ResetPassword() {
  const { t } = useI18n()
  const linked = useLinkToken()
  const [account, setAccount] = useState('')
  const [typed, setTyped] = useState('')
  const token = linked || typed
  const [next, setNext] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const request = useMutation({ mutationFn: () => api.post('/api/v1/auth/password-reset', { body: { username_or_email: account } }) })
  const confirm = useMutation({ mutationFn: () => api.post('/api/v1/auth/password-reset/confirm', { body: { token: token.trim(), new_password: next } }) })
  const ask = (e: FormEvent) => {
    e.preventDefault()
    request.mutate()
  }
  const set = (e: FormEvent) => {
    e.preventDefault()
    setMismatch(next !== repeat)
    if (next === repeat) confirm.mutate()
  }
  if (confirm.isSuccess) {
    return (
      <SignedOutFrame>
        <Title order={1} size="h2">{t.resetPassword.title}</Title>
        <Alert color="green" role="status">{t.resetPassword.done}</Alert>
        <Button onClick={() => navigate('/', { replace: true })}>{t.signIn.submit}</Button>
      </SignedOutFrame>
    )
  }
  // A link's token is not shown: a refusal of it goes to the alert, with the way to a new link below.
  const tokenFields = linked ? ['new_password'] : ['token', 'new_password']
  return (
    <SignedOutFrame width={440}>
      <Title order={1} size="h2">{t.resetPassword.title}</Title>
      {!linked && (
        <form onSubmit={ask} noValidate>
          <Stack>
            <Text size="sm">{t.resetPassword.askHint}</Text>
            <ErrorAlert error={request.error} fields={['username_or_email']} />
            {request.isSuccess && <Alert color="green" role="status">{t.resetPassword.sent}</Alert>}
            <TextInput label={t.resetPassword.account} name="username_or_email" autoComplete="username" required value={account} onChange={(e) => setAccount(e.currentTarget.value)} error={fieldError(request.error, 'username_or_email')} />
            <Button type="submit" variant={request.isSuccess ? 'default' : 'filled'} loading={request.isPending}>{t.resetPassword.send}</Button>
          </Stack>
        </form>
      )}
      {!linked && <Divider label={t.resetPassword.haveToken} labelPosition="left" />}
      <form onSubmit={set} noValidate>
        <Stack>
          <ErrorAlert error={confirm.error} fields={tokenFields} />
          {!linked && <Textarea label={t.resetPassword.token} name="token" required autosize minRows={2} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} error={fieldError(confirm.error, 'token')} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />}
          <PasswordInput label={t.signIn.newPassword} name="new_password" autoComplete="new-password" required value={next} onChange={(e) => setNext(e.currentTarget.value)} error={fieldError(confirm.error, 'new_password')} aria-invalid={!!fieldError(confirm.error, 'new_password')} />
          <PasswordInput label={t.signIn.repeat} name="repeat_password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.currentTarget.value)} error={mismatch ? t.signIn.mismatch : undefined} aria-invalid={mismatch} />
          <Button type="submit" loading={confirm.isPending} disabled={!token.trim()}>{t.resetPassword.set}</Button>
        </Stack>
      </form>
      {/* A plain link for a new one: the page loads again, without the spent token. */}
      {linked ? <Anchor href="/reset-password" size="sm">{t.resetPassword.newLink}</Anchor> : <Anchor component={Link} href="/" size="sm">{t.resetPassword.back}</Anchor>}
    </SignedOutFrame>
  )
}
