/**
 * Which second factor the sign-in asks a user for (an authenticator code, a push to the phone,
 * either), and the push lock a "report" from the phone set (pushes stop until it is cleared; codes
 * still work). For the user (My account) or an administrator (the user dialog, `userId`).
 */
import { Alert, Button, Group, Radio, Stack, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { pushCalls, type FactorChoice } from '../api/push'
import { useI18n } from '../i18n'
import { when } from '../pages/format'
import { ErrorAlert } from './errors'

const CHOICES: FactorChoice[] = ['totp', 'push', 'both']

export function MfaFactors({ userId }: { userId?: string }) {
  const { t, language } = useI18n()
  const qc = useQueryClient()
  const calls = pushCalls(userId)
  const factors = useQuery({ queryKey: calls.key('factors'), queryFn: calls.factors, retry: false })
  const [done, setDone] = useState<string | null>(null)
  const changed = async (text: string) => {
    setDone(text)
    await qc.invalidateQueries({ queryKey: ['push'] })
  }
  const choose = useMutation({ mutationFn: calls.setFactors, onSuccess: () => changed(t.push.saved) })
  const clear = useMutation({ mutationFn: calls.clearLock, onSuccess: () => changed(t.push.lockCleared) })
  const f = factors.data
  if (!f) return null
  // A choice is offered once both factors are set up; with one, that one is what the sign-in asks.
  const offered = f.totp_enrolled && f.push_devices > 0
  const error = choose.error ?? clear.error
  return (
    <Stack gap="xs" data-testid={userId ? 'user-mfa-factors' : 'mfa-factors'}>
      {offered && (
        <Radio.Group label={t.push.factors} name="factors" value={f.factors ?? ''} onChange={(v) => choose.mutate(v as FactorChoice)}>
          <Text size="sm">{t.push.factorsHint}</Text>
          <Group mt="xs">
            {CHOICES.map((c) => <Radio key={c} value={c} label={t.push.choice[c]} disabled={choose.isPending} />)}
          </Group>
          {f.factors === null && <Text size="xs" mt={4}>{t.push.auto}</Text>}
        </Radio.Group>
      )}
      {f.push_locked && (
        <Alert color="orange" role="status" data-testid="push-locked">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{t.push.locked}</Text>
            {f.push_locked_at && <Text size="xs">{t.push.lockedAt(when(f.push_locked_at, language))}</Text>}
            <Button size="xs" variant="default" loading={clear.isPending} onClick={() => clear.mutate()}>{t.push.clearLock}</Button>
          </Stack>
        </Alert>
      )}
      <ErrorAlert error={error} />
      {done && !error && <Alert color="green" role="status">{done}</Alert>}
    </Stack>
  )
}
