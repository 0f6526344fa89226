/**
 * The policy test beside the rules: a simulated request (who, from where,
 * TACACS+ or RADIUS, a command) and the answer with its trace, rule by rule,
 * against the policy as edited or as deployed. Opened from a deploy's change
 * impact (`/policy?test={…}`: the request replayed, as the impact report's
 * `policy_test` body), the form is filled with it and answered at once; what
 * the form has no input for (service, priv-lvl, method…) is sent as it came
 * and listed under the form.
 *
 * The answer is three verdicts, not one (verdicts()): the authentication (only when a login
 * method was asked), the session authorization (the ruleset; for RADIUS the access) and the
 * command (only when a command was asked). The headline is the command's verdict when a command
 * was asked: the session being permitted says nothing of whether `configure terminal` is.
 */
import { Badge, Button, Group, Paper, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useEffect, useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { components } from '../generated/api'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { SearchSelect } from '../components/SearchSelect'
import { devicePicker } from './pickers'
import { TraceTable } from '../components/TraceTable'
import { testFromUrl } from './impact-data'

export type TestResult = components['schemas']['PolicyTestResponse']
const FIELDS = ['username', 'device_id', 'nas_ip', 'command']
type Body = components['schemas']['PolicyTestRequest']
const FORM_KEYS = ['username', 'device_id', 'nas_ip', 'protocol', 'command', 'against']
const str = (x: unknown) => (typeof x === 'string' ? x : '')

/** The form's values from a pre-filled request, and what it has no input for. */
function fromPrefill(p: Record<string, unknown> | null) {
  const extra = Object.fromEntries(Object.entries(p ?? {}).filter(([k]) => !FORM_KEYS.includes(k))) as Partial<Body>
  return {
    v: {
      username: str(p?.username), device: str(p?.device_id) || null, nasIp: str(p?.nas_ip), protocol: (p?.protocol === 'radius' ? 'radius' : 'tacacs') as 'tacacs' | 'radius',
      command: str(p?.command), against: (p?.against === 'deployed' ? 'deployed' : 'database') as 'database' | 'deployed',
    },
    extra,
  }
}

type Decision = 'permit' | 'deny'

/**
 * The separate verdicts of an answer. The server gives the ruleset's `decision` and, for a command,
 * `command_decision`; a login refused before any rule was tried (unknown or expired user, a method
 * the daemon cannot check: rules_tried 0) is the authentication's deny, and an `enable` login is
 * an authentication decided under the matched profile. A command not reached (the session denied
 * first) is a deny: the daemon never authorizes it.
 */
export function verdicts(r: TestResult, commandAsked: boolean) {
  const refusedBeforeRules = r.decision === 'deny' && r.rules_tried === 0
  const authentication: Decision | null = r.method === null ? null : refusedBeforeRules ? 'deny' : r.method === 'enable' ? r.decision : 'permit'
  const command: Decision | null = commandAsked ? (r.command_decision?.decision ?? 'deny') : null
  return { authentication, session: r.decision as Decision, command, headline: command ?? r.decision }
}

const COLOR: Record<Decision, string> = { permit: 'green', deny: 'red' }

export function PolicyTest({ onResult }: { onResult(r: TestResult | null): void }) {
  const { t } = useI18n()
  const [prefill] = useState(() => fromPrefill(testFromUrl()))
  const [v, setV] = useState(prefill.v)
  const [extra, setExtra] = useState(prefill.extra)
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  // The request as sent: kept as the mutation's variables, so the answer shown is read with what it answers.
  const body = (): Body => ({
    ...extra,
    username: v.username, protocol: v.protocol, against: v.against,
    ...(v.device ? { device_id: v.device } : { nas_ip: v.nasIp || undefined }),
    ...(v.protocol === 'tacacs' && v.command ? { command: v.command } : {}),
  })
  const run = useMutation({
    mutationFn: (b: Body) => api.post('/api/v1/aaa/policy/test', { body: b }),
    onSuccess: (r) => onResult(r),
    onError: () => onResult(null),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    run.mutate(body())
  }
  // A request opened from a deploy's impact is answered at once.
  useEffect(() => {
    if (prefill.v.username) run.mutate(body())
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  const r = run.data
  const vs = r && verdicts(r, !!run.variables?.command)
  const radius = run.variables?.protocol === 'radius'
  const extras = Object.entries(extra)
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
            {extras.length > 0 && (
              <Group gap="xs" data-testid="policy-test-extra">
                <Text size="xs" c="dimmed">{t.policy.alsoSent}</Text>
                <Text size="xs" ff="monospace">{extras.map(([k, x]) => `${k}=${typeof x === 'string' ? x : JSON.stringify(x)}`).join('  ')}</Text>
                <Button size="compact-xs" variant="subtle" onClick={() => setExtra({})}>{t.policy.clearExtra}</Button>
              </Group>
            )}
            <Group justify="space-between">
              <SegmentedControl aria-label={t.policy.against} value={v.against} onChange={(x) => set('against', x as 'database')} data={[{ value: 'database', label: t.policy.againstDatabase }, { value: 'deployed', label: t.policy.againstDeployed }]} />
              <Button type="submit" loading={run.isPending}>{t.policy.run}</Button>
            </Group>
          </Stack>
        </form>
        {r && vs && (
          <Stack gap="xs" data-testid="policy-result">
            <Group>
              <Badge size="lg" color={COLOR[vs.headline]} data-testid="decision" data-of={vs.command ? 'command' : 'session'}>{t.policy.decision[vs.headline]}</Badge>
              <Text size="sm" c="dimmed">{vs.command ? t.policy.verdicts.ofCommand : radius ? t.policy.verdicts.ofAccess : t.policy.verdicts.ofSession}</Text>
              {r.matched_rule && <Text size="sm">{t.policy.matched(r.matched_rule.name)}</Text>}
              {r.profile && <Badge variant="light">{r.profile.name}</Badge>}
            </Group>
            <Group gap="xs" role="list" aria-label={t.policy.verdicts.label} data-testid="verdicts">
              {vs.authentication && <Verdict testId="verdict-authentication" label={t.policy.verdicts.authentication} decision={vs.authentication} />}
              <Verdict testId="verdict-session" label={radius ? t.policy.verdicts.access : t.policy.verdicts.session} decision={vs.session} />
              {vs.command && <Verdict testId="verdict-command" label={t.policy.verdicts.command} decision={vs.command} note={r.command_decision ? undefined : t.policy.verdicts.notReached} />}
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

/** One verdict of the answer: what was decided (authentication, session, command) and how. */
function Verdict({ label, decision, note, testId }: { label: string; decision: Decision; note?: string; testId: string }) {
  const { t } = useI18n()
  return (
    <Badge role="listitem" variant="light" color={COLOR[decision]} tt="none" data-testid={testId} data-decision={decision} styles={{ label: { overflow: 'visible' } }}>
      {label}: {t.policy.decision[decision]}{note ? ` (${note})` : ''}
    </Badge>
  )
}
