/**
 * The drill-down of one impact report, under Details: the groupings (users,
 * user groups, devices, device groups, rules; biggest first, as the server
 * ranks them), each changed request with its answer deployed and edited
 * (decision, rule, profile, attributes, the command-set line) and its links
 * to the policy test filled with that request, the requests that could not
 * be replayed by reason.
 */
import { Anchor, Badge, Group, SegmentedControl, Stack, Table, Text } from '@mantine/core'
import { useState } from 'react'
import { useI18n } from '../i18n'
import { Link } from '../router'
import { policyTestLink, type Impact, type ImpactChange, type ImpactOutcome, type ImpactResult } from './impact-data'

const GROUPS = ['users', 'user_groups', 'devices', 'device_groups', 'rules'] as const
const COUNTS = ['permit_to_deny', 'deny_to_permit', 'attributes', 'rule'] as const
const CHANGE_COLOR = { permit_to_deny: 'red', deny_to_permit: 'orange', attributes: 'yellow', rule: 'gray' } as const

export function ImpactDrilldown({ result, impact }: { result: ImpactResult; impact: Impact }) {
  const { t, language } = useI18n()
  const [group, setGroup] = useState<(typeof GROUPS)[number]>('users')
  const n = (x: number) => x.toLocaleString(language)
  const rows = impact.groups[group]
  const reasons = impact.requests.unreplayable.by_reason
  return (
    <details data-testid="impact-details">
      <summary>{t.impact.details}</summary>
      <Stack gap="sm" mt="xs">
        <SegmentedControl size="xs" aria-label={t.impact.details} value={group} onChange={(g) => setGroup(g as typeof group)} data={GROUPS.map((g) => ({ value: g, label: t.impact.groups[g] }))} />
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label={t.impact.groups[group]} data-testid="impact-groups">
            <Table.Thead>
              <Table.Tr><Table.Th>{t.impact.columns.name}</Table.Th>{COUNTS.map((c) => <Table.Th key={c}>{t.impact.columns[c]}</Table.Th>)}<Table.Th>{t.impact.columns.events}</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((g) => (
                <Table.Tr key={g.id ?? g.name} data-name={g.name}>
                  <Table.Td>{g.name}</Table.Td>{COUNTS.map((c) => <Table.Td key={c}>{n(g[c])}</Table.Td>)}<Table.Td>{n(g.events)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Text fw={600} size="sm">{t.impact.changes(impact.changes.length, impact.changes_total)}</Text>
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label={t.impact.changes(impact.changes.length, impact.changes_total)} data-testid="impact-changes" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.impact.request}</Table.Th><Table.Th>{t.impact.changeColumn}</Table.Th><Table.Th>{t.impact.before}</Table.Th><Table.Th>{t.impact.after}</Table.Th>
                <Table.Th>{t.impact.events}</Table.Th><Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {impact.changes.map((c, i) => (
                <Table.Tr key={i} data-change={c.change} data-user={c.request.username ?? c.request.mac ?? ''}>
                  <Table.Td><RequestCell c={c} /></Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}><Badge color={CHANGE_COLOR[c.change]} variant="light" tt="none" styles={{ label: { overflow: 'visible' } }}>{t.impact.change[c.change]}</Badge></Table.Td>
                  <Table.Td><OutcomeCell o={c.before} changed={c.changed_attributes.map((a) => a.name)} /></Table.Td>
                  <Table.Td><OutcomeCell o={c.after} changed={c.changed_attributes.map((a) => a.name)} /></Table.Td>
                  <Table.Td>{n(c.request.events)}</Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      {c.policy_test.deployed && <Anchor component={Link} size="xs" href={policyTestLink(result.source, c.policy_test.deployed)}>{t.impact.testDeployed}</Anchor>}
                      <Anchor component={Link} size="xs" href={policyTestLink(result.source, c.policy_test.pending)}>{t.impact.testPending}</Anchor>
                    </Stack>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {reasons.length > 0 && (
          <Stack gap={2} data-testid="impact-unreplayable">
            <Text fw={600} size="sm">{t.impact.unreplayable(impact.requests.unreplayable.requests, impact.requests.unreplayable.events)}</Text>
            {reasons.map((r) => <Text key={r.reason} size="sm" data-reason={r.reason}>{r.description}: {n(r.requests)} ({n(r.events)})</Text>)}
          </Stack>
        )}
      </Stack>
    </details>
  )
}

/** Who asked for what, where: the request as the log holds it. */
function RequestCell({ c }: { c: ImpactChange }) {
  const { t } = useI18n()
  const r = c.request
  const what = [r.method, r.service, r.command, r.priv_lvl !== null ? `priv-lvl ${r.priv_lvl}` : null].filter(Boolean).join(' · ')
  return (
    <Stack gap={0}>
      <Text size="sm" fw={600}>{r.username ?? r.mac ?? '—'} <Text span size="xs" c="dimmed">{t.impact.kinds[r.kind] ?? r.kind}</Text></Text>
      <Text size="xs">{r.device?.name ?? r.nas_ip ?? '—'}</Text>
      {what && <Text size="xs" ff="monospace">{what}</Text>}
    </Stack>
  )
}

/** One side's answer: the decision, the rule, the profile, the command-set line, the attributes (those that change in bold). */
function OutcomeCell({ o, changed }: { o: ImpactOutcome; changed: string[] }) {
  const { t } = useI18n()
  return (
    <Stack gap={0}>
      <Group gap={4}>
        <Badge size="sm" color={o.decision === 'permit' ? 'green' : 'red'}>{t.policy.decision[o.decision]}</Badge>
        <Text size="xs">{o.rule?.name ?? t.impact.noRule}</Text>
        {o.profile && <Badge size="xs" variant="light" tt="none">{o.profile.name}</Badge>}
      </Group>
      {(o.command_line?.command_set || o.command_line?.line) && <Text size="xs" ff="monospace">{t.impact.line(o.command_line?.command_set?.name ?? '—', o.command_line?.line ?? null)}</Text>}
      {o.attributes.length > 0 && (
        <Text size="xs" ff="monospace">
          {o.attributes.map((a, i) => <Text span key={i} fw={changed.includes(a.name) ? 700 : undefined} size="xs" ff="monospace">{i ? '  ' : ''}{a.name}={a.value}</Text>)}
        </Text>
      )}
      {/* Why, in the reader's language: the server says each reason in the console's Accept-Language. */}
      {o.reason && <Text size="xs" data-testid="impact-reason" maw={420}>{o.reason}</Text>}
    </Stack>
  )
}
