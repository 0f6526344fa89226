/**
 * The page the mailed setup link opens (/mfa/setup#token=…), signed out: the
 * user enrolls an authenticator app, or a phone for push sign-in (where the
 * server has the push factor), with the setup token an administrator had
 * mailed, then signs in with a code or a push. The token rides in the URL's fragment
 * (router's useLinkToken). Nothing happens until the user asks: a
 * mail scanner that opens the link starts no enrollment.
 */
import { Alert, Button, Divider, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { SignedOutFrame } from '../components/SignedOutFrame'
import { PushEnrollment } from '../components/PushEnrollment'
import { TotpEnrollment } from '../components/TotpEnrollment'
import { useI18n } from '../i18n'
import { navigate, useLinkToken } from '../router'

export function MfaSetup() {
  const { t } = useI18n()
  const linked = useLinkToken()
  const [typed, setTyped] = useState('')
  const token = linked || typed
  const [done, setDone] = useState(false)
  return (
    <SignedOutFrame width={440}>
          <Title order={1} size="h2">{t.mfaSetup.title}</Title>
          {done ? (
            <>
              <Alert color="green" role="status">{t.mfaSetup.done}</Alert>
              <Button onClick={() => navigate('/', { replace: true })}>{t.signIn.submit}</Button>
            </>
          ) : (
            <>
              {!linked && <Textarea label={t.mfaSetup.token} name="token" description={t.mfaSetup.tokenHint} autosize minRows={3} required value={typed} onChange={(e) => setTyped(e.currentTarget.value)} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />}
              <Title order={2} size="h4">{t.push.totp}</Title>
              <TotpEnrollment token={token.trim()} onDone={() => setDone(true)} />
              <Divider />
              <Title order={2} size="h4">{t.push.app}</Title>
              <PushEnrollment token={token.trim()} />
            </>
          )}
    </SignedOutFrame>
  )
}
