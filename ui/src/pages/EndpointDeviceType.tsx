/**
 * In the endpoint's dialog, below its form: its device type set by hand (PUT
 * /nac/endpoints/{id}/device-type; it stays, 100% sure, whatever profiling
 * concludes) or handed back to profiling (`null`), with `nac.profiling.write`;
 * and a link to the endpoint's CoA history on the sessions screen.
 */
import { Anchor, Button, Divider, Group, Stack, Text, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { Link } from '../router'
import type { Endpoint } from './nac-data'

/** The server writes this reason for a type set by hand (routes/endpoint-device-type.ts); confidence is then 100. */
export const setByHand = (e: Endpoint) => e.device_type_confidence === 100 && !!e.device_type_reason?.startsWith('set by hand')

export function EndpointDeviceType({ endpoint }: { endpoint: Endpoint }) {
  const { t } = useI18n()
  const auth = useAuth()
  const qc = useQueryClient()
  const [current, setCurrent] = useState(endpoint)
  const [type, setType] = useState(endpoint.device_type ?? '')
  const put = useMutation({
    mutationFn: (device_type: string | null) => api.put('/api/v1/nac/endpoints/{endpoint_id}/device-type', { params: { endpoint_id: endpoint.id }, body: { device_type } }),
    onSuccess: async (e) => {
      setCurrent(e)
      setType(e.device_type ?? '')
      await qc.invalidateQueries({ queryKey: ['nac'] })
    },
  })
  const submit = (ev: FormEvent) => {
    ev.preventDefault()
    put.mutate(type.trim())
  }
  const manual = setByHand(current)
  const history = auth.can('nac.read') && auth.can('nac.sessions.read')
  return (
    <Stack mt="md" gap="xs" data-testid="endpoint-device-type">
      <Divider />
      <Text size="sm" fw={500}>{t.nac.deviceType}: {current.device_type ?? t.common.none}</Text>
      <Text size="xs" c="dimmed">{manual ? t.nac.typeIsManual : current.device_type_confidence !== null ? `${t.nac.confidence(current.device_type_confidence)}${current.device_type_reason ? `: ${current.device_type_reason}` : ''}` : t.nac.typeByProfiling}</Text>
      {auth.can('nac.profiling.write') && (
        <form onSubmit={submit} noValidate>
          <Stack gap="xs">
            <ErrorAlert error={put.error} fields={['device_type']} />
            <Group align="flex-start">
              <TextInput label={t.nac.typeByHand} name="device_type" description={t.nac.typeByHandHint} value={type} onChange={(e) => setType(e.currentTarget.value)} error={fieldError(put.error, 'device_type')} style={{ flex: 1 }} />
            </Group>
            <Group justify="flex-end">
              {manual && <Button variant="default" loading={put.isPending && put.variables === null} onClick={() => put.mutate(null)}>{t.nac.backToProfiling}</Button>}
              <Button type="submit" variant="light" loading={put.isPending && put.variables !== null}>{t.nac.setByHand}</Button>
            </Group>
          </Stack>
        </form>
      )}
      {history && <Anchor component={Link} size="sm" href={`/nac/sessions?tab=coa&endpoint_id=${endpoint.id}&mac=${encodeURIComponent(endpoint.mac)}`}>{t.nac.coaHistoryOf(endpoint.mac)}</Anchor>}
    </Stack>
  )
}
