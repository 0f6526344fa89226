/** A guest's new end of validity (POST /captive-portal/guests/{id}/extend), in the browser's local time. */
import { TextInput } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { FormDialog } from '../components/crud'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { Guest } from './portal-data'

/** An instant as a datetime-local input's value (the browser's local time, to the minute). */
export const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)

export function GuestExtend({ guest, name, onClose, onDone }: { guest: Guest; name: string; onClose(): void; onDone(): void }) {
  const { t } = useI18n()
  const p = t.portal
  const base = guest.valid_until && new Date(guest.valid_until) > new Date() ? new Date(guest.valid_until) : new Date()
  const [until, setUntil] = useState(() => localInput(new Date(base.getTime() + 24 * 3600_000)))
  const save = useMutation({
    // A datetime-local value is local time: new Date() reads it so, and the server takes the instant.
    mutationFn: () => api.post('/api/v1/captive-portal/guests/{guest_id}/extend', { params: { guest_id: guest.id }, body: { valid_until: new Date(until).toISOString() } }),
    onSuccess: () => {
      onDone()
      onClose()
    },
  })
  return (
    <FormDialog title={p.extendTitle(name)} testId="guest-extend" error={save.error} fields={['valid_until']} pending={save.isPending} editing onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput type="datetime-local" label={p.validUntil} name="valid_until" required data-autofocus value={until} onChange={(e) => setUntil(e.currentTarget.value)} error={fieldError(save.error, 'valid_until')} />
    </FormDialog>
  )
}
