/**
 * Sign-in in up to three steps, as POST /auth/login answers: a session; or
 * `mfa_required` (a code, POST /mfa/verify); or `password_change_required`
 * (a new password, POST /auth/change-password with that token only).
 */
import { Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { SignedOutFrame } from '../components/SignedOutFrame'
import { useI18n } from '../i18n'
import { Link } from '../router'

type Step = { kind: 'password' } | { kind: 'mfa'; mfaToken: string } | { kind: 'change'; token: string; current: string }
type Grant = { access_token: string } | { status: 'mfa_required'; mfa_token: string } | { status: 'password_change_required'; password_change_token: string }

export function SignIn() {
  const { t } = useI18n()
  const auth = useAuth()
  const [step, setStep] = useState<Step>({ kind: 'password' })
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [next, setNext] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)

  const follow = (g: Grant, current: string) => {
    if ('access_token' in g) auth.signIn(g.access_token)
    else if (g.status === 'mfa_required') setStep({ kind: 'mfa', mfaToken: g.mfa_token })
    else setStep({ kind: 'change', token: g.password_change_token, current })
  }
  const login = useMutation({ mutationFn: () => api.post('/api/v1/auth/login', { body: { username, password } }), onSuccess: (g) => follow(g, password) })
  const verify = useMutation({
    mutationFn: (mfaToken: string) => api.post('/api/v1/mfa/verify', { body: { mfa_token: mfaToken, code } }),
    onSuccess: (g) => follow(g, password),
  })
  const change = useMutation({
    mutationFn: (s: { token: string; current: string }) => api.post('/api/v1/auth/change-password', { token: s.token, body: { current_password: s.current, new_password: next } }),
    onSuccess: (g) => auth.signIn(g.access_token),
  })
  const restart = () => {
    setStep({ kind: 'password' })
    setPassword('')
    setCode('')
    login.reset()
    verify.reset()
    change.reset()
  }
  // An MFA token is spent after too many wrong codes: only a new sign-in helps.
  const burnt = verify.error instanceof ApiError && verify.error.code === 'MFA_TOKEN_BURNT'

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (step.kind === 'password') login.mutate()
    else if (step.kind === 'mfa') verify.mutate(step.mfaToken)
    else if (next !== repeat) setMismatch(true)
    else {
      setMismatch(false)
      change.mutate(step)
    }
  }

  return (
    <SignedOutFrame>
        <form onSubmit={submit} noValidate aria-labelledby="signin-title">
          <Stack>
            <Title order={1} size="h2" id="signin-title">
              {step.kind === 'password' ? t.signIn.title : step.kind === 'mfa' ? t.signIn.mfaTitle : t.signIn.changeTitle}
            </Title>
            {step.kind === 'password' && (
              <>
                <ErrorAlert error={login.error} fields={['username', 'password']} />
                <TextInput label={t.signIn.username} name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.currentTarget.value)} error={fieldError(login.error, 'username')} />
                <PasswordInput label={t.signIn.password} name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={fieldError(login.error, 'password')} aria-invalid={!!fieldError(login.error, 'password')} />
                <Button type="submit" loading={login.isPending}>{t.signIn.submit}</Button>
              </>
            )}
            {step.kind === 'mfa' && (
              <>
                <Text size="sm">{t.signIn.mfaHint}</Text>
                <ErrorAlert error={verify.error} fields={burnt ? [] : ['code']} />
                <TextInput label={t.signIn.code} name="code" inputMode="numeric" autoComplete="one-time-code" required autoFocus maxLength={8} value={code} onChange={(e) => setCode(e.currentTarget.value)} error={fieldError(verify.error, 'code')} disabled={burnt} />
                <Button type="submit" loading={verify.isPending} disabled={burnt}>{t.signIn.verify}</Button>
              </>
            )}
            {step.kind === 'change' && (
              <>
                <Text size="sm">{t.signIn.changeHint}</Text>
                {/* For password managers: the account whose password this form sets. */}
                <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
                <ErrorAlert error={change.error} fields={['new_password', 'current_password']} />
                <PasswordInput label={t.signIn.newPassword} name="new_password" autoComplete="new-password" required autoFocus value={next} onChange={(e) => setNext(e.currentTarget.value)} error={fieldError(change.error, 'new_password') ?? fieldError(change.error, 'current_password')} aria-invalid={!!(fieldError(change.error, 'new_password') ?? fieldError(change.error, 'current_password'))} />
                <PasswordInput label={t.signIn.repeat} name="repeat_password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.currentTarget.value)} error={mismatch ? t.signIn.mismatch : undefined} aria-invalid={mismatch} />
                <Button type="submit" loading={change.isPending}>{t.signIn.change}</Button>
              </>
            )}
            {step.kind !== 'password' && (
              <Anchor component="button" type="button" size="sm" onClick={restart}>{t.signIn.restart}</Anchor>
            )}
            {step.kind === 'password' && <Anchor component={Link} href="/reset-password" size="sm">{t.resetPassword.forgot}</Anchor>}
          </Stack>
        </form>
    </SignedOutFrame>
  )
}
