/**
 * Sign-in in up to three steps, as POST /auth/login answers: a session; or
 * `mfa_required` (a code, or a push to the phone: POST /mfa/verify); or
 * `password_change_required` (a new password, POST /auth/change-password with
 * that token only).
 *
 * A push: POST /mfa/verify {method: 'push'} answers 202 with the number the
 * screen shows and the phone asks for (number matching); the same call with
 * the challenge then waits up to 20 s at a time (long poll) until the phone
 * answers: 200 the grant, 401 MFA_PUSH_DENIED (denied, wrong number, expired).
 * Without the phone: "use a recovery code" sends {recovery_code} in place of the code.
 */
import { Anchor, Button, Divider, Loader, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useEffect, useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { SignedOutFrame } from '../components/SignedOutFrame'
import { useI18n } from '../i18n'
import { Link } from '../router'

type Step = { kind: 'password' } | { kind: 'mfa'; mfaToken: string; factors: Factor[] } | { kind: 'change'; token: string; current: string }
type Factor = 'totp' | 'push'
/** The factors the login listed that this console knows (a newer server may list more); both when it listed none. */
const knownFactors = (fs: string[] | undefined): Factor[] => (fs ?? ['totp', 'push']).filter((f): f is Factor => f === 'totp' || f === 'push')
type Grant = { access_token: string } | { status: 'mfa_required'; mfa_token: string; factors?: string[] } | { status: 'password_change_required'; password_change_token: string }
type PushPending = { status: 'push_pending'; push_challenge: string; number: string | null; expires_in: number }
type Verified = Grant | PushPending | null
const pending = (g: Verified): g is PushPending => !!g && 'status' in g && g.status === 'push_pending'
/** Seconds one poll waits on the server for the phone (the contract allows up to 25). */
const WAIT_SECONDS = 20

export function SignIn() {
  const { t } = useI18n()
  const auth = useAuth()
  const [step, setStep] = useState<Step>({ kind: 'password' })
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  // The way back in without the phone: a one-time recovery code in place of the code or the push.
  const [recovery, setRecovery] = useState(false)
  const [recoveryCode, setRecoveryCode] = useState('')
  const [next, setNext] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)

  const follow = (g: Grant, current: string) => {
    if ('access_token' in g) auth.signIn()
    else if (g.status === 'mfa_required') setStep({ kind: 'mfa', mfaToken: g.mfa_token, factors: knownFactors(g.factors) })
    else setStep({ kind: 'change', token: g.password_change_token, current })
  }
  const login = useMutation({ mutationFn: () => api.post('/api/v1/auth/login', { body: { username, password } }), onSuccess: (g) => follow(g, password) })
  const verify = useMutation({
    mutationFn: (mfaToken: string) => api.post('/api/v1/mfa/verify', { body: recovery ? { mfa_token: mfaToken, recovery_code: recoveryCode } : { mfa_token: mfaToken, code } }),
    onSuccess: (g) => follow(g, password),
  })
  // The push: started by a button, then polled until the phone answers (or the user goes back to the code).
  const [push, setPush] = useState<{ mfaToken: string; challenge: string; number: string | null } | null>(null)
  const sendPush = useMutation({
    mutationFn: async (mfaToken: string): Promise<Verified> => api.post('/api/v1/mfa/verify', { body: { mfa_token: mfaToken, method: 'push' } }),
    onSuccess: (g, mfaToken) => {
      if (pending(g)) setPush({ mfaToken, challenge: g.push_challenge, number: g.number })
      else if (g) follow(g, password)
    },
  })
  const [pushError, setPushError] = useState<unknown>(null)
  useEffect(() => {
    if (!push) return
    const ac = new AbortController()
    void (async () => {
      for (;;) {
        let g: Verified
        try {
          g = await api.post('/api/v1/mfa/verify', { body: { mfa_token: push.mfaToken, push_challenge: push.challenge, wait_seconds: WAIT_SECONDS }, signal: ac.signal })
        } catch (e) {
          if (ac.signal.aborted) return
          setPushError(e)
          setPush(null)
          return
        }
        if (ac.signal.aborted) return
        if (g && !pending(g)) return follow(g, password)
      }
    })()
    return () => ac.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one poll loop a challenge
  }, [push])
  const change = useMutation({
    mutationFn: (s: { token: string; current: string }) => api.post('/api/v1/auth/change-password', { token: s.token, body: { current_password: s.current, new_password: next } }),
    onSuccess: () => auth.signIn(),
  })
  const restart = () => {
    setStep({ kind: 'password' })
    setPassword('')
    setCode('')
    setRecovery(false)
    setRecoveryCode('')
    setPush(null)
    setPushError(null)
    sendPush.reset()
    login.reset()
    verify.reset()
    change.reset()
  }
  // An MFA token is spent after too many wrong codes: only a new sign-in helps.
  const burnt = [verify.error, sendPush.error, pushError].some((e) => e instanceof ApiError && e.code === 'MFA_TOKEN_BURNT')
  const startPush = (mfaToken: string) => {
    setPushError(null)
    verify.reset()
    sendPush.mutate(mfaToken)
  }

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (step.kind === 'password') login.mutate()
    else if (step.kind === 'mfa') {
      if (!push && (recovery || step.factors.includes('totp'))) verify.mutate(step.mfaToken)
    } else if (next !== repeat) setMismatch(true)
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
              {step.kind === 'password' ? t.signIn.title : step.kind === 'mfa' ? (push ? t.signIn.pushTitle : t.signIn.mfaTitle) : t.signIn.changeTitle}
            </Title>
            {step.kind === 'password' && (
              <>
                <ErrorAlert error={login.error} fields={['username', 'password']} />
                <TextInput label={t.signIn.username} name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.currentTarget.value)} error={fieldError(login.error, 'username')} />
                <PasswordInput label={t.signIn.password} name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={fieldError(login.error, 'password')} aria-invalid={!!fieldError(login.error, 'password')} />
                <Button type="submit" loading={login.isPending}>{t.signIn.submit}</Button>
              </>
            )}
            {step.kind === 'mfa' && push && (
              <Stack data-testid="push-wait" gap="xs">
                <Text size="sm" id="push-number-label">{t.signIn.pushNumberLabel}</Text>
                {push.number !== null && <Text component="output" aria-labelledby="push-number-label" data-testid="push-number" fz={56} fw={700} ta="center" lh={1.1}>{push.number}</Text>}
                <Text size="sm">{t.signIn.pushHint}</Text>
                <Group gap="xs" role="status"><Loader size="xs" /><Text size="sm">{t.signIn.pushWaiting}</Text></Group>
                {step.factors.includes('totp') && <Anchor component="button" type="button" size="sm" c="blue.9" onClick={() => setPush(null)}>{t.signIn.useCode}</Anchor>}
              </Stack>
            )}
            {step.kind === 'mfa' && !push && recovery && (
              <>
                <Text size="sm">{t.signIn.recoveryHint}</Text>
                <ErrorAlert error={verify.error} fields={burnt ? [] : ['recovery_code']} />
                <TextInput label={t.signIn.recoveryCode} name="recovery_code" autoComplete="off" spellCheck={false} required autoFocus maxLength={24} value={recoveryCode} onChange={(e) => setRecoveryCode(e.currentTarget.value)} error={fieldError(verify.error, 'recovery_code')} disabled={burnt} />
                <Button type="submit" loading={verify.isPending} disabled={burnt}>{t.signIn.verify}</Button>
                <Anchor component="button" type="button" size="sm" c="blue.9" onClick={() => { verify.reset(); setRecovery(false) }}>{t.signIn.useCode}</Anchor>
              </>
            )}
            {step.kind === 'mfa' && !push && !recovery && (
              <>
                {step.factors.includes('totp') && <Text size="sm">{t.signIn.mfaHint}</Text>}
                <ErrorAlert error={verify.error ?? sendPush.error ?? pushError} fields={burnt || !step.factors.includes('totp') ? [] : ['code']} />
                {step.factors.includes('totp') && (
                  <>
                    <TextInput label={t.signIn.code} name="code" inputMode="numeric" autoComplete="one-time-code" required autoFocus maxLength={8} value={code} onChange={(e) => setCode(e.currentTarget.value)} error={fieldError(verify.error, 'code')} disabled={burnt} />
                    <Button type="submit" loading={verify.isPending} disabled={burnt}>{t.signIn.verify}</Button>
                  </>
                )}
                {step.factors.includes('push') && (
                  <>
                    {step.factors.includes('totp') && <Divider label={t.signIn.or} />}
                    <Button type="button" variant={step.factors.includes('totp') ? 'default' : 'filled'} loading={sendPush.isPending} disabled={burnt} onClick={() => startPush(step.mfaToken)}>{t.signIn.sendPush}</Button>
                  </>
                )}
                <Anchor component="button" type="button" size="sm" c="blue.9" disabled={burnt} onClick={() => { verify.reset(); sendPush.reset(); setPushError(null); setRecovery(true) }}>{t.signIn.useRecovery}</Anchor>
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
