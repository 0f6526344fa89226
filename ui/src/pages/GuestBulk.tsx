/**
 * Guest accounts for an event (POST /captive-portal/guests/bulk): how many,
 * the username prefix, the portal, the event's name and when the accounts
 * are valid. The answer holds each account's password once: shown here,
 * printed (only this list, not the console around it) or downloaded as CSV,
 * and gone when the dialog closes.
 */
import { Alert, Button, Group, Modal, NumberInput, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, ApiError, saveBlob } from '../api/client'
import { DialogButtons } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { localInput } from './GuestExtend'
import { PortalSelect } from './portal-pickers'

const FIELDS = ['portal_id', 'count', 'prefix', 'event', 'valid_from', 'valid_until']
/** A CSV cell: quoted, and a leading = + - @ defused so a spreadsheet does not run it as a formula. */
const cell = (s: string) => `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`

export function GuestBulk({ onClose }: { onClose(): void }) {
  const { t, language } = useI18n()
  const p = t.portal
  const qc = useQueryClient()
  const now = new Date()
  const [v, setV] = useState({ portal_id: null as string | null, count: 10 as number | string, prefix: 'guest', event: '', valid_from: localInput(now), valid_until: localInput(new Date(now.getTime() + 24 * 3600_000)) })
  const create = useMutation({
    mutationFn: () => api.post('/api/v1/captive-portal/guests/bulk', {
      body: { portal_id: v.portal_id ?? '', count: Number(v.count), prefix: v.prefix, event: v.event, valid_from: new Date(v.valid_from).toISOString(), valid_until: new Date(v.valid_until).toISOString() },
    }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['portal', 'guests'] }),
  })
  const err = (f: string) => fieldError(create.error, f) ?? (create.error instanceof ApiError && create.error.field?.startsWith(f + '.') ? create.error.message : undefined)
  const made = create.data
  const csv = () => {
    if (!made) return
    const rows = [['event', 'username', 'password', 'valid_from', 'valid_until'], ...made.accounts.map((a) => [made.event, a.username, a.password, made.valid_from, made.valid_until])]
    saveBlob(`guests-${v.prefix}.csv`, new Blob([rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n'], { type: 'text/csv' }))
  }
  return (
    <Modal opened onClose={onClose} title={p.bulkTitle} size="lg">
      {made ? (
        <Stack data-testid="guest-credentials">
          <Alert color="yellow" role="status">{p.bulkDone(made.accounts.length)} {p.credentialsOnce}</Alert>
          <div className="print-area">
            <Text fw={700}>{made.event}</Text>
            <Text size="sm" mb="xs">{p.validFrom}: {when(made.valid_from, language)} · {p.validUntil}: {when(made.valid_until, language)}</Text>
            <Table withTableBorder aria-label={p.bulkTitle}>
              <Table.Thead><Table.Tr><Table.Th>{p.username}</Table.Th><Table.Th>{p.password}</Table.Th></Table.Tr></Table.Thead>
              <Table.Tbody>
                {made.accounts.map((a) => (
                  <Table.Tr key={a.username} data-account={a.username}>
                    <Table.Td ff="monospace">{a.username}</Table.Td><Table.Td ff="monospace">{a.password}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
          <Group justify="flex-end">
            <Button variant="default" onClick={csv}>{p.downloadCsv}</Button>
            <Button variant="default" onClick={() => window.print()}>{p.print}</Button>
            <Button onClick={onClose}>{t.config.close}</Button>
          </Group>
        </Stack>
      ) : (
        <form noValidate data-testid="guest-bulk" onSubmit={(e) => { e.preventDefault(); create.mutate() }}>
          <Stack>
            <ErrorAlert error={create.error} fields={FIELDS} />
            <PortalSelect label={p.portal} name="portal_id" required data-autofocus value={v.portal_id} onChange={(x) => setV({ ...v, portal_id: x })} error={err('portal_id')} />
            <SimpleGrid cols={2}>
              <NumberInput label={p.count} name="count" required min={1} max={200} value={v.count} onChange={(x) => setV({ ...v, count: x })} error={err('count')} />
              <TextInput label={p.prefix} name="prefix" required value={v.prefix} onChange={(e) => setV({ ...v, prefix: e.currentTarget.value })} error={err('prefix')} />
            </SimpleGrid>
            <TextInput label={p.event} name="event" required value={v.event} onChange={(e) => setV({ ...v, event: e.currentTarget.value })} error={err('event')} />
            <SimpleGrid cols={2}>
              <TextInput type="datetime-local" label={p.validFrom} name="valid_from" required value={v.valid_from} onChange={(e) => setV({ ...v, valid_from: e.currentTarget.value })} error={err('valid_from')} />
              <TextInput type="datetime-local" label={p.validUntil} name="valid_until" required value={v.valid_until} onChange={(e) => setV({ ...v, valid_until: e.currentTarget.value })} error={err('valid_until')} />
            </SimpleGrid>
            <DialogButtons editing={false} pending={create.isPending} onClose={onClose} />
          </Stack>
        </form>
      )}
    </Modal>
  )
}
