/**
 * My account: who I am (from /auth/me) and my second factor. Enrollment is
 * the MFA plugin's two calls: POST /mfa/enrollment answers a new seed as a QR
 * code (an SVG data URL, allowed by the console's img-src) and as text for
 * manual entry; POST /mfa/enrollment/confirm with a code from the app turns it
 * on. A server without the MFA plugin answers 404, shown as "not available".
 */
import { Badge, Button, Card, Code, Group, Image, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'

export function Account() {
  const { t } = useI18n()
  const { me } = useAuth()
  const qc = useQueryClient()
  const [code, setCode] = useState('')
  const start = useMutation({ mutationFn: () => api.post('/api/v1/mfa/enrollment') })
  const confirm = useMutation({
    mutationFn: () => api.post('/api/v1/mfa/enrollment/confirm', { body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['me'] }),
  })
  if (!me) return null
  const unavailable = start.error instanceof ApiError && start.error.status === 404
  const submit = (e: FormEvent) => {
    e.preventDefault()
    confirm.mutate()
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
        {me.mfa_enabled && <Text size="sm">{t.account.mfaOnHint}</Text>}
        {!me.mfa_enabled && !start.data && (
          <Stack align="flex-start">
            <Text size="sm">{t.account.mfaHint}</Text>
            {unavailable ? <Text c="dimmed">{t.account.mfaUnavailable}</Text> : <ErrorAlert error={start.error} />}
            <Button onClick={() => start.mutate()} loading={start.isPending} disabled={unavailable}>{t.account.mfaStart}</Button>
          </Stack>
        )}
        {!me.mfa_enabled && start.data && (
          <form onSubmit={submit} noValidate>
            <Stack align="flex-start">
              <Text size="sm">{t.account.scan}</Text>
              <Image src={start.data.qr_svg} alt={t.account.qrAlt} w={200} h={200} bg="white" />
              <Text size="sm">{t.account.manual} <Code data-testid="mfa-secret">{start.data.secret}</Code></Text>
              <ErrorAlert error={confirm.error} fields={['code']} />
              <TextInput label={t.signIn.code} name="code" inputMode="numeric" autoComplete="one-time-code" required maxLength={8} value={code} onChange={(e) => setCode(e.currentTarget.value)} error={fieldError(confirm.error, 'code')} />
              <Button type="submit" loading={confirm.isPending}>{t.account.mfaConfirm}</Button>
            </Stack>
          </form>
        )}
      </Card>
    </Stack>
  )
}
