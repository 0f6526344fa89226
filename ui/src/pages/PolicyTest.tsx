/**
 * The policy test beside the rules: a simulated request (who, from where,
 * TACACS+ or RADIUS, a command) and the answer with its trace, rule by rule,
 * against the policy as edited or as deployed.
 */
import { Badge, Button, Group, Paper, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { components } from '../generated/api'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { SearchSelect } from '../components/SearchSelect'
import { devicePicker } from './pickers'
import { TraceTable } from '../components/TraceTable'

export type TestResult = components['schemas']['PolicyTestResponse']
const FIELDS = ['username', 'device_id', 'nas_ip', 'command']

export function PolicyTest({ onResult }: { onResult(r: TestResult | null): void }) {
  const { t } = useI18n()
  const [v, setV] = useState({ username: '', device: null as string | null, nasIp: '', protocol: 'tacacs' as 'tacacs' | 'radius', command: '', against: 'database' as 'database' | 'deployed' })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const run = useMutation({
    mutationFn: () =>
      api.post('/api/v1/aaa/policy/test', {
        body: {
          username: v.username, protocol: v.protocol, against: v.against,
          ...(v.device ? { device_id: v.device } : { nas_ip: v.nasIp || undefined }),
          ...(v.protocol === 'tacacs' && v.command ? { command: v.command } : {}),
        },
      }),
    onSuccess: (r) => onResult(r),
    onError: () => onResult(null),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    run.mutate()
  }
  const r = run.data
  return (
    <Paper withBorder p="md" data-testid="policy-test">
      <Stack>
        <Title order={2} size="h4">{t.policy.test}</Title>
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={run.error} fields={FIELDS} />
            <Group grow align="flex-start">
              <TextInput label={t.policy.username} name="username" required value={v.username} onChange={(e) => set('username', e.currentTarget.value)} error={fieldError(run.error, 'username')} />
              <SegmentedControl aria-label={t.policy.protocol} value={v.protocol} onChange={(x) => set('protocol', x as 'tacacs')} data={[{ value: 'tacacs', label: 'TACACS+' }, { value: 'radius', label: 'RADIUS' }]} mt={24} />
            </Group>
            <Group grow align="flex-start">
              <SearchSelect label={t.policy.device} name="device_id" clearable source={devicePicker} value={v.device} onChange={(x) => set('device', x)} error={fieldError(run.error, 'device_id')} />
              <TextInput label={t.policy.nasIp} name="nas_ip" disabled={!!v.device} value={v.nasIp} onChange={(e) => set('nasIp', e.currentTarget.value)} error={fieldError(run.error, 'nas_ip')} />
            </Group>
            {v.protocol === 'tacacs' && <TextInput label={t.policy.command} name="command" placeholder="show running-config" value={v.command} onChange={(e) => set('command', e.currentTarget.value)} error={fieldError(run.error, 'command')} />}
            <Group justify="space-between">
              <SegmentedControl aria-label={t.policy.against} value={v.against} onChange={(x) => set('against', x as 'database')} data={[{ value: 'database', label: t.policy.againstDatabase }, { value: 'deployed', label: t.policy.againstDeployed }]} />
              <Button type="submit" loading={run.isPending}>{t.policy.run}</Button>
            </Group>
          </Stack>
        </form>
        {r && (
          <Stack gap="xs" data-testid="policy-result">
            <Group>
              <Badge size="lg" color={r.decision === 'permit' ? 'green' : 'red'} data-testid="decision">{t.policy.decision[r.decision]}</Badge>
              {r.matched_rule && <Text size="sm">{t.policy.matched(r.matched_rule.name)}</Text>}
              {r.profile && <Badge variant="light">{r.profile.name}</Badge>}
            </Group>
            <Text size="sm">{r.reason}</Text>
            {r.command_decision && <Text size="sm">{t.policy.commandDecision(t.policy.decision[r.command_decision.decision], r.command_decision.reason)}</Text>}
            <TraceTable label={t.policy.trace} testId="trace" columns={{ name: t.policy.name, why: t.policy.why }}
              lines={r.trace.map((s) => ({ key: s.rule_id, position: s.position + 1, name: s.name, why: s.reason, matched: s.matched }))} />
            {r.attributes.length > 0 && <Text size="xs" ff="monospace">{r.attributes.map((a) => `${a.name}${a.optional ? '*' : '='}${a.value}`).join('  ')}</Text>}
          </Stack>
        )}
      </Stack>
    </Paper>
  )
}
