/**
 * The NAC policy test beside the rules: a simulated request (how the endpoint
 * authenticated, its MAC, the user, the switch, the port type, the EAP-TLS
 * certificate, when) and the answer: accept or reject, the deciding rule and
 * profile, the reply attributes, the trace rule by rule, and what the request
 * was resolved to (the user's and endpoint's groups, the switch's). Opened
 * from a deploy's change impact (`/nac/policy?test={…}`), the form is filled
 * with the replayed request and answered at once.
 */
import { Badge, Button, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useEffect, useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import type { NacTestResult } from './nac-data'
import { SearchSelect } from '../components/SearchSelect'
import { devicePicker } from './pickers'
import { TraceTable } from '../components/TraceTable'
import { testFromUrl } from './impact-data'

const FIELDS = ['method', 'mac', 'username', 'nas', 'nas_port_type', 'time', 'certificate.issuer_cn', 'certificate.san_email', 'certificate.san_dns']
type Method = 'peap' | 'eap-tls' | 'mab'
type PortType = NonNullable<import('../generated/api').components['schemas']['NacPolicyTestRequest']['nas_port_type']>
const str = (x: unknown) => (typeof x === 'string' ? x : '')
const EMPTY = { method: 'mab' as Method, mac: '', username: '', device: null as string | null, address: '', portType: null as string | null, issuer: '', email: '', dns: '', time: '' }

/** The form's values from a pre-filled request (the impact report's `policy_test` body). */
function fromPrefill(p: Record<string, unknown> | null): typeof EMPTY {
  if (!p) return EMPTY
  const cert = (p.certificate && typeof p.certificate === 'object' ? p.certificate : {}) as Record<string, unknown>
  const nas = str(p.nas)
  const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(nas)
  const at = str(p.time) ? new Date(str(p.time)) : null
  // datetime-local takes the browser's local time.
  const local = at && !isNaN(at.getTime()) ? new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : ''
  return {
    method: (['peap', 'eap-tls', 'mab'].includes(str(p.method)) ? p.method : 'mab') as Method, mac: str(p.mac), username: str(p.username),
    device: isId ? nas : null, address: isId ? '' : nas, portType: str(p.nas_port_type) || null,
    issuer: str(cert.issuer_cn), email: str(cert.san_email), dns: str(cert.san_dns), time: local,
  }
}

export function NacPolicyTest({ onResult }: { onResult(r: NacTestResult | null): void }) {
  const { t } = useI18n()
  const [prefilled] = useState(() => testFromUrl() !== null)
  const [v, setV] = useState(() => fromPrefill(testFromUrl()))
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const run = useMutation({
    mutationFn: () =>
      api.post('/api/v1/nac/policy/test', {
        body: {
          method: v.method,
          mac: v.mac || undefined,
          username: v.method !== 'mab' && v.username ? v.username : undefined,
          nas: v.device ?? (v.address || undefined),
          nas_port_type: (v.portType ?? undefined) as PortType | undefined,
          ...(v.method === 'eap-tls' && (v.issuer || v.email || v.dns) ? { certificate: { issuer_cn: v.issuer || undefined, san_email: v.email || undefined, san_dns: v.dns || undefined } } : {}),
          // A datetime-local value is the browser's local time; the server takes an instant.
          time: v.time ? new Date(v.time).toISOString() : undefined,
        },
      }),
    onSuccess: (r) => onResult(r),
    onError: () => onResult(null),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    run.mutate()
  }
  // A request opened from a deploy's impact is answered at once.
  useEffect(() => {
    if (prefilled) run.mutate()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  const err = (f: string) => fieldError(run.error, f)
  const r = run.data
  const names = (g: { name: string }[]) => g.map((x) => x.name).join(', ')
  return (
    <Paper withBorder p="md" data-testid="nac-policy-test">
      <Stack>
        <Title order={2} size="h4">{t.nac.test}</Title>
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={run.error} fields={FIELDS} />
            <SegmentedControl aria-label={t.nac.method} value={v.method} onChange={(x) => set('method', x as Method)} data={[{ value: 'mab', label: 'MAB' }, { value: 'peap', label: 'PEAP' }, { value: 'eap-tls', label: 'EAP-TLS' }]} />
            <Group grow align="flex-start">
              <TextInput label={t.nac.mac} name="mac" styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} required={v.method === 'mab'} value={v.mac} onChange={(e) => set('mac', e.currentTarget.value)} error={err('mac')} />
              {v.method !== 'mab' && <TextInput label={t.nac.username} name="username" value={v.username} onChange={(e) => set('username', e.currentTarget.value)} error={err('username')} />}
            </Group>
            <Group grow align="flex-start">
              <SearchSelect label={t.nac.nas} name="nas" clearable source={devicePicker} value={v.device} onChange={(x) => set('device', x)} error={v.device ? err('nas') : undefined} />
              <TextInput label={t.policy.nasIp} name="nas_ip" disabled={!!v.device} value={v.address} onChange={(e) => set('address', e.currentTarget.value)} error={v.device ? undefined : err('nas')} />
            </Group>
            <Group grow align="flex-start">
              <Select label={t.nac.nasPortType} name="nas_port_type" clearable data={['Ethernet', 'Wireless-802.11', 'Virtual', 'Wireless-Other']} value={v.portType} onChange={(x) => set('portType', x)} error={err('nas_port_type')} />
              <TextInput label={t.logs.columns.timestamp} name="time" type="datetime-local" value={v.time} onChange={(e) => set('time', e.currentTarget.value)} error={err('time')} />
            </Group>
            {v.method === 'eap-tls' && (
              <Group grow align="flex-start">
                <TextInput label={t.nac.certFields.issuer_cn} name="issuer_cn" value={v.issuer} onChange={(e) => set('issuer', e.currentTarget.value)} error={err('certificate.issuer_cn')} />
                <TextInput label={t.nac.certFields.san_email} name="san_email" value={v.email} onChange={(e) => set('email', e.currentTarget.value)} error={err('certificate.san_email')} />
                <TextInput label={t.nac.certFields.san_dns} name="san_dns" value={v.dns} onChange={(e) => set('dns', e.currentTarget.value)} error={err('certificate.san_dns')} />
              </Group>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={run.isPending}>{t.nac.run}</Button>
            </Group>
          </Stack>
        </form>
        {r && (
          <Stack gap="xs" data-testid="nac-policy-result">
            <Group>
              <Badge size="lg" color={r.decision === 'accept' ? 'green' : 'red'} data-testid="nac-decision">{t.nac.decision[r.decision]}</Badge>
              {r.refused && <Text size="sm" data-testid="nac-refused">{t.nac.refusedBefore(r.refused.reason, r.refused.detail)}</Text>}
              {r.rule && <Text size="sm">{t.nac.matched(r.rule.name)}</Text>}
              {r.authorization_profile && <Badge variant="light" tt="none">{r.authorization_profile.name}</Badge>}
            </Group>
            {r.reply.length > 0 && <Text size="xs" ff="monospace" data-testid="nac-reply">{r.reply.map((a) => `${a.attribute} = ${a.value}`).join('  ')}</Text>}
            <TraceTable label={t.nac.trace} testId="nac-trace" columns={{ name: t.nac.name, why: t.nac.why }}
              lines={r.trace.map((s) => ({ key: s.rule_id, position: s.position ?? '—', name: s.rule_name, why: s.matched ? '✓' : s.reason, matched: s.matched, step: s.rule_name }))} />
            <Text size="xs" c="dimmed" data-testid="nac-resolved">
              {t.nac.resolved}: {r.resolved.mac ?? t.nac.unknown} {t.nac.inGroups(names(r.resolved.endpoint_groups))}
              {r.resolved.endpoint?.device_type ? ` (${r.resolved.endpoint.device_type})` : ''}
              {r.resolved.user ? `; ${r.resolved.user.username} ${t.nac.inGroups(names(r.resolved.user_groups))}` : ''}
              {r.resolved.device ? `; ${r.resolved.device.name} ${t.nac.inGroups(names(r.resolved.device_groups))}` : ''}
            </Text>
          </Stack>
        )}
      </Stack>
    </Paper>
  )
}
