/**
 * The page the mailed setup link opens (/mfa/setup#token=…), signed out: the
 * user enrolls an authenticator app with the setup token an administrator had
 * mailed, then signs in with a code. The token rides in the URL's fragment,
 * which a browser sends to no server and in no Referer, and leaves the address
 * bar as soon as the page has read it. Nothing happens until the user asks: a
 * mail scanner that opens the link starts no enrollment.
 */
import { Alert, Button, Center, Paper, Stack, Textarea, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { LanguageSwitch } from '../components/LanguageSwitch'
import { TotpEnrollment } from '../components/TotpEnrollment'
import { useI18n } from '../i18n'
import { navigate } from '../router'

export function MfaSetup() {
  const { t } = useI18n()
  const [token, setToken] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '')
  const [fromLink] = useState(token !== '')
  const [done, setDone] = useState(false)
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname)
  }, [])
  return (
    <Center mih="100vh" p="md" component="main" id="main">
      <Paper withBorder shadow="sm" p="xl" w={440} maw="100%" radius="md">
        <Stack>
          <Title order={1} size="h2">{t.mfaSetup.title}</Title>
          {done ? (
            <>
              <Alert color="green" role="status">{t.mfaSetup.done}</Alert>
              <Button onClick={() => navigate('/', { replace: true })}>{t.signIn.submit}</Button>
            </>
          ) : (
            <>
              {!fromLink && <Textarea label={t.mfaSetup.token} name="token" description={t.mfaSetup.tokenHint} autosize minRows={3} required value={token} onChange={(e) => setToken(e.currentTarget.value)} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />}
              <TotpEnrollment token={token.trim()} onDone={() => setDone(true)} />
            </>
          )}
          <LanguageSwitch />
        </Stack>
      </Paper>
    </Center>
  )
}
