/**
 * How a CoA reaches one NAS (GET/PUT/DELETE /nac/coa-nas/{device_id}): the
 * override of its UDP port and dialect, and what applies now. Editing needs
 * `nac.write`; a reader sees the values. A port out of range is refused under
 * its input (the server's 422, nothing changed).
 */
import { Button, Group, Select, Text, TextInput } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { FormDialog } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'

const DIALECTS = ['auto', 'cisco', 'rfc5176'] as const

export function CoaNasDialog({ device, onClose }: { device: { id: string; name: string }; onClose(): void }) {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const canWrite = auth.can('nac.write')
  const key = ['nac', 'coa-nas', device.id]
  const cur = useQuery({ queryKey: key, queryFn: () => api.get('/api/v1/nac/coa-nas/{device_id}', { params: { device_id: device.id } }) })
  const [v, setV] = useState<{ port: string; dialect: (typeof DIALECTS)[number] }>({ port: '', dialect: 'auto' })
  useEffect(() => {
    if (cur.data) setV({ port: cur.data.port === null ? '' : String(cur.data.port), dialect: cur.data.dialect })
  }, [cur.data])
  const done = async () => {
    await qc.invalidateQueries({ queryKey: ['nac', 'coa-nas'] })
  }
  const save = useMutation({
    // An empty port hands it back to the setting; a non-number goes as it is, for the server to refuse under the input.
    mutationFn: () => api.put('/api/v1/nac/coa-nas/{device_id}', { params: { device_id: device.id }, body: { port: v.port.trim() === '' ? null : Number.isFinite(Number(v.port)) ? Number(v.port) : (v.port as unknown as number), dialect: v.dialect } }),
    onSuccess: async () => {
      await done()
      onClose()
    },
  })
  const remove = useMutation({ mutationFn: () => api.delete('/api/v1/nac/coa-nas/{device_id}', { params: { device_id: device.id } }), onSuccess: done })
  const d = cur.data
  return (
    <FormDialog title={t.nac.coaSettingsOf(device.name)} testId="coa-nas-form" error={save.error ?? remove.error} fields={['port', 'dialect']} pending={save.isPending} editing readOnly={!canWrite} onClose={onClose} onSubmit={() => canWrite && save.mutate()}
      after={canWrite && d && (d.port !== null || d.dialect !== 'auto') && (
        <Group justify="flex-start" mt="sm"><Button variant="subtle" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>{t.nac.removeOverride}</Button></Group>
      )}>
      <ErrorAlert error={cur.error} />
      {d && <Text size="sm" data-testid="coa-nas-effective">{t.nac.coaEffective(d.effective_port, t.nac.dialects[d.effective_dialect])}</Text>}
      <TextInput label={t.nac.coaPort} name="port" inputMode="numeric" description={t.nac.coaPortHint} placeholder={d ? String(d.effective_port) : ''} disabled={!canWrite} value={v.port} onChange={(e) => { const port = e.currentTarget.value; setV((o) => ({ ...o, port })) }} error={fieldError(save.error, 'port')} />
      <Select label={t.nac.dialect} name="dialect" disabled={!canWrite} allowDeselect={false} value={v.dialect} onChange={(x) => x && setV((o) => ({ ...o, dialect: x as (typeof DIALECTS)[number] }))} data={DIALECTS.map((x) => ({ value: x, label: t.nac.dialects[x] }))} error={fieldError(save.error, 'dialect')} />
    </FormDialog>
  )
}
