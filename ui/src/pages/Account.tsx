/**
 * My account: who I am (from /auth/me) and my second factors, enrolled with
 * the session: the authenticator app (components/TotpEnrollment), the phones
 * for push sign-in (PushDevices, PushEnrollment), which one the sign-in asks
 * for and the push lock (MfaFactors), and the recovery codes once a factor is on (RecoveryCodes). The push parts show only where the
 * server has the push factor (its factors answer).
 */
import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { pushCalls } from '../api/push'
import { useAuth } from '../auth'
import { MfaFactors } from '../components/MfaFactors'
import { PushDevices } from '../components/PushDevices'
import { PushEnrollment } from '../components/PushEnrollment'
import { RecoveryCodes } from '../components/RecoveryCodes'
import { TotpEnrollment } from '../components/TotpEnrollment'
import { useI18n } from '../i18n'

export function Account() {
  const { t } = useI18n()
  const { me } = useAuth()
  const qc = useQueryClient()
  const calls = pushCalls()
  const factors = useQuery({ queryKey: calls.key('factors'), queryFn: calls.factors, retry: false, enabled: !!me })
  // While a QR code is on the screen the list is asked again every 2 s: the phone shows up once enrolled.
  const [enrolling, setEnrolling] = useState(false)
  if (!me) return null
  const totpOn = factors.data ? factors.data.totp_enrolled : me.mfa_enabled
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['me'] })
    void qc.invalidateQueries({ queryKey: ['push'] })
  }
  return (
    <Stack maw={720}>
      <Title order={1} size="h2">{t.account.title}</Title>
      <Card withBorder component="section" aria-label={t.account.profile}>
        <Table>
          <Table.Tbody>
            <Table.Tr><Table.Th w="40%">{t.signIn.username}</Table.Th><Table.Td>{me.username}</Table.Td></Table.Tr>
            <Table.Tr><Table.Th>{t.account.displayName}</Table.Th><Table.Td>{me.display_name ?? t.common.none}</Table.Td></Table.Tr>
            <Table.Tr><Table.Th>{t.account.email}</Table.Th><Table.Td>{me.email ?? t.common.none}</Table.Td></Table.Tr>
            <Table.Tr><Table.Th>{t.account.groups}</Table.Th><Table.Td>{me.groups.join(', ') || t.common.none}</Table.Td></Table.Tr>
            <Table.Tr><Table.Th>{t.account.permissions}</Table.Th><Table.Td>{me.is_admin ? t.account.admin : me.permissions.join(', ') || t.common.none}</Table.Td></Table.Tr>
          </Table.Tbody>
        </Table>
      </Card>
      <Card withBorder component="section" aria-label={t.account.mfa} data-testid="mfa-card">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">{t.account.mfa}</Title>
          <Badge color={me.mfa_enabled ? 'green' : 'gray'}>{me.mfa_enabled ? t.account.mfaOn : t.account.mfaOff}</Badge>
        </Group>
        <Stack>
          <Stack gap="xs" data-testid="mfa-totp">
            {factors.data && <Title order={3} size="h5">{t.push.totp}</Title>}
            {totpOn ? <Text size="sm">{t.account.mfaOnHint}</Text> : <TotpEnrollment onDone={refresh} />}
          </Stack>
          {factors.data && (
            <Stack gap="xs" data-testid="mfa-push">
              <Title order={3} size="h5">{t.push.app}</Title>
              <PushDevices refetchMs={enrolling ? 2000 : undefined} />
              <PushEnrollment onShown={setEnrolling} onDone={refresh} />
            </Stack>
          )}
          <MfaFactors />
          {me.mfa_enabled && <RecoveryCodes />}
        </Stack>
      </Card>
    </Stack>
  )
}
