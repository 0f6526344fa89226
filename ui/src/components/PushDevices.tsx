/**
 * The phones a user approves sign-ins with: listed, renamed and removed, by the user (My account)
 * or an administrator (the user dialog, `userId`). Removing a phone ends its pending requests on
 * the server; the list is asked again after each change.
 */
import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { pushCalls, type PushDevice } from '../api/push'
import { useI18n } from '../i18n'
import { when } from '../pages/format'
import { ErrorAlert, fieldError } from './errors'
import { useConfirm } from './Confirm'

export function PushDevices({ userId, refetchMs }: { userId?: string; refetchMs?: number }) {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const qc = useQueryClient()
  const calls = pushCalls(userId)
  const list = useQuery({ queryKey: calls.key('devices'), queryFn: calls.devices, retry: false, refetchInterval: refetchMs })
  const [renaming, setRenaming] = useState<PushDevice | null>(null)
  const [name, setName] = useState('')
  const [done, setDone] = useState<string | null>(null)
  const changed = async (text: string) => {
    setDone(text)
    await qc.invalidateQueries({ queryKey: ['push'] })
  }
  const rename = useMutation({
    mutationFn: (d: PushDevice) => calls.rename(d.id, name.trim()),
    onSuccess: async () => {
      setRenaming(null)
      await changed(t.push.renamed)
    },
  })
  const remove = useMutation({ mutationFn: (d: PushDevice) => calls.remove(d.id), onSuccess: () => changed(t.push.removed) })
  // Without the push factor on the server (404) or the right to see this user's (403): nothing to show.
  if (!list.data) return null
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (renaming) rename.mutate(renaming)
  }
  return (
    <Stack gap="xs" data-testid={userId ? 'user-push-devices' : 'push-devices'}>
      <Title order={4} size="h6">{t.push.devices}</Title>
      {list.data.items.length === 0 ? (
        <Text size="sm">{t.push.noDevices}</Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table>
            <Table.Thead>
              <Table.Tr><Table.Th>{t.push.device}</Table.Th><Table.Th>{t.push.algorithm}</Table.Th><Table.Th>{t.push.added}</Table.Th><Table.Th>{t.push.lastSeen}</Table.Th><Table.Th /></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.items.map((d) => (
                <Table.Tr key={d.id} data-device={d.id}>
                  <Table.Td>
                    {renaming?.id === d.id ? (
                      <form onSubmit={submit} noValidate>
                        <Group gap="xs" wrap="nowrap">
                          <TextInput aria-label={t.push.newName} name="device_name" size="xs" required maxLength={64} data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(rename.error, 'name')} />
                          <Button size="xs" type="submit" loading={rename.isPending}>{t.common.save}</Button>
                          <Button size="xs" variant="default" onClick={() => setRenaming(null)}>{t.common.cancel}</Button>
                        </Group>
                      </form>
                    ) : (
                      d.name
                    )}
                  </Table.Td>
                  <Table.Td>{d.algorithm === 'p256' ? 'P-256' : 'Ed25519'}</Table.Td>
                  <Table.Td>{when(d.created_at, language)}</Table.Td>
                  <Table.Td>{when(d.last_seen_at, language)}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <Button size="xs" variant="default" aria-label={`${t.push.rename}: ${d.name}`} onClick={() => (setRenaming(d), setName(d.name), rename.reset())}>{t.push.rename}</Button>
                      <Button size="xs" variant="default" c="red.9" aria-label={`${t.push.remove}: ${d.name}`} loading={remove.isPending && remove.variables?.id === d.id} onClick={() => void ask({ title: t.confirm.title(t.push.remove, d.name), message: t.push.removeConfirm(d.name), confirmLabel: t.push.remove }).then((ok) => ok && remove.mutate(d))}>{t.push.remove}</Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <ErrorAlert error={rename.error ?? remove.error} fields={['name']} />
      {done && !rename.error && !remove.error && <Alert color="green" role="status">{done}</Alert>}
    </Stack>
  )
}
