/**
 * My account: who I am (from /auth/me) and my second factor, enrolled with
 * the session (components/TotpEnrollment).
 */
import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useQueryClient } from '@tanstack/react-query'
import { useAuth } from '../auth'
import { TotpEnrollment } from '../components/TotpEnrollment'
import { useI18n } from '../i18n'

export function Account() {
  const { t } = useI18n()
  const { me } = useAuth()
  const qc = useQueryClient()
  if (!me) return null
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
        {me.mfa_enabled && <Text size="sm">{t.account.mfaOnHint}</Text>}
        {!me.mfa_enabled && <TotpEnrollment onDone={() => void qc.invalidateQueries({ queryKey: ['me'] })} />}
      </Card>
    </Stack>
  )
}
