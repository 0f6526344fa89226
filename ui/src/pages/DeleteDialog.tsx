/**
 * Delete after a look at what refers to the thing: the references that keep
 * it from being deleted (the server then answers 409 naming them, shown in
 * the alert) and those a delete clears by itself. Without a report to ask
 * (`references` absent), a plain confirmation.
 */
import { Alert, Button, Group, List, Loader, Modal, Stack, Text } from '@mantine/core'
import { useMutation, useQuery } from '@tanstack/react-query'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'

export type Ref = { type: string; id: string; name: string }
export type RefReport = { blocking: Ref[]; auto_clearing: Ref[] }

export function DeleteDialog(o: { title: string; question: string; queryKey: unknown[]; references?: () => Promise<RefReport>; remove(): Promise<unknown>; onDone(): void; onClose(): void }) {
  const { t } = useI18n()
  const refs = useQuery({ queryKey: [...o.queryKey, 'references'], queryFn: o.references ?? (async () => ({ blocking: [], auto_clearing: [] })), enabled: !!o.references, gcTime: 0 })
  const del = useMutation({ mutationFn: o.remove, onSuccess: o.onDone })
  const kind = (r: Ref) => t.config.refTypes[r.type as keyof typeof t.config.refTypes] ?? r.type
  const list = (rs: Ref[]) => (
    <List size="sm">
      {rs.map((r) => (
        <List.Item key={`${r.type}:${r.id}`}>{kind(r)} <b>{r.name}</b></List.Item>
      ))}
    </List>
  )
  return (
    <Modal opened onClose={o.onClose} title={o.title}>
      <Stack data-testid="delete-dialog">
        <Text>{o.question}</Text>
        {o.references && refs.isPending && <Loader size="sm" aria-label={t.common.loading} />}
        <ErrorAlert error={refs.error} />
        {refs.data && refs.data.blocking.length > 0 && (
          <Alert color="yellow" title={t.config.blockingRefs} data-testid="blocking-refs">{list(refs.data.blocking)}</Alert>
        )}
        {refs.data && refs.data.auto_clearing.length > 0 && (
          <Alert color="blue" title={t.config.clearingRefs} data-testid="clearing-refs">{list(refs.data.auto_clearing)}</Alert>
        )}
        {o.references && refs.data && !refs.data.blocking.length && !refs.data.auto_clearing.length && <Text size="sm" c="dimmed">{t.config.noRefs}</Text>}
        <ErrorAlert error={del.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={o.onClose} data-autofocus>{t.common.cancel}</Button>
          <Button color="red" loading={del.isPending} onClick={() => del.mutate()}>{t.common.delete}</Button>
        </Group>
      </Stack>
    </Modal>
  )
}
