/**
 * One audit entry: who, what, when, from where, and the record before and
 * after side by side, a row a field, the changed ones marked (and, by
 * default, the only ones shown when both sides are records). Secrets arrive
 * masked by the server and are shown as it gives them.
 */
import { Anchor, Badge, Code, Stack, Switch, Table, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link } from '../router'
import { AuditReorder, ruleOrder } from './AuditReorder'
import { useState } from 'react'
import { useI18n } from '../i18n'
import { when } from './format'
import type { AuditEntry } from './identity-data'
import { actionWords } from '../i18n/audit-en'

type Rec = Record<string, unknown>
const isRecord = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x)
const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const
/** The console screen listing each kind of object. */
const LIST_OF: Record<string, string> = {
  user: '/users', user_group: '/user-groups', role: '/roles', device: '/devices', device_group: '/device-groups',
  aaa_policy_rule: '/policy', nac_policy_rule: '/nac/policy', endpoint: '/nac/endpoints', endpoint_group: '/nac/endpoint-groups',
  tacacs_profile: '/tacacs/profiles', tacacs_command_set: '/tacacs/command-sets', radius_profile: '/radius/profiles',
  nac_authorization_profile: '/nac/profiles', profiling_rule: '/nac/profiling-rules', portal_guest: '/captive-portal/guests',
  captive_portal: '/captive-portal/portals', pki_ca: '/pki/cas', pki_template: '/pki/templates', pki_certificate: '/pki/certificates',
  ncm_collector: '/ncm/collectors', setting: '/settings', deploy: '/deploys',
}
/** The screens that open one record by its id from the address (`?open=<id>`: its dialog or drawer, components/open-record.ts). */
const OPENABLE = new Set(['device_group', 'user_group', 'aaa_policy_rule', 'nac_policy_rule', 'pki_certificate'])
/** The lists that take `?search=` from the address and find the object by the name the trail keeps. */
const SEARCHABLE = new Set(['user', 'device', 'endpoint', 'tacacs_profile', 'tacacs_command_set', 'radius_profile', 'nac_authorization_profile', 'portal_guest', 'pki_certificate', 'setting'])

/**
 * Where the link beside a kept name leads: the object itself where the console has a screen for one
 * (a deploy's details; a group's, a rule's or a certificate's dialog by its id), else its list filtered to
 * the name, else (a list with no search) the list.
 */
export function objectLink(e: Pick<AuditEntry, 'resource_type' | 'resource_id' | 'resource_name'>): string | null {
  const list = LIST_OF[e.resource_type]
  if (!list) return null
  if (e.resource_type === 'deploy') return e.resource_id ? `${list}?deploy=${encodeURIComponent(e.resource_id)}` : list
  if (e.resource_type === 'setting' && e.resource_id) return `${list}?search=${encodeURIComponent(e.resource_id)}`
  if (OPENABLE.has(e.resource_type) && e.resource_id) return `${list}?open=${encodeURIComponent(e.resource_id)}`
  return SEARCHABLE.has(e.resource_type) && e.resource_name ? `${list}?search=${encodeURIComponent(e.resource_name)}` : list
}
const show = (x: unknown) => (x === undefined ? '' : typeof x === 'string' ? x : JSON.stringify(x, null, 1))

export function AuditDiff({ entry }: { entry: AuditEntry }) {
  const { t, language } = useI18n()
  const [onlyChanged, setOnlyChanged] = useState(true)
  const before = isRecord(entry.before) ? entry.before : entry.before === null || entry.before === undefined ? {} : { value: entry.before }
  const after = isRecord(entry.after) ? entry.after : entry.after === null || entry.after === undefined ? {} : { value: entry.after }
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
  const changed = (k: string) => show(before[k]) !== show(after[k])
  // Both sides present: a change, where the unchanged fields are noise; one side only: a creation or deletion, every field counts.
  const both = Object.keys(before).length > 0 && Object.keys(after).length > 0
  const rows = keys.filter((k) => !(both && onlyChanged) || changed(k))
  const orderBefore = ruleOrder(entry.before)
  const orderAfter = ruleOrder(entry.after)
  const link = objectLink(entry)
  // The name as it was at the event: the trail keeps it, whatever became of the object since.
  const name: ReactNode = entry.resource_name ? (
    <span data-testid="audit-resource-name">
      <b>{entry.resource_name}</b>
      {link && <> · <Anchor component={Link} href={link} size="sm" data-testid="audit-object-link">{link.includes('?') ? t.auditLink.openObject : t.auditNames.openList}</Anchor></>}
    </span>
  ) : null
  const meta: [string, ReactNode][] = [
    [t.admin.audit.at, when(entry.at, language)], [t.admin.audit.who, entry.actor_name], [t.admin.audit.action, actionWords(t.auditWords, entry.action) ? `${actionWords(t.auditWords, entry.action)} (${entry.action})` : entry.action],
    [t.admin.audit.resource, `${t.auditWords.resources[entry.resource_type] ?? entry.resource_type}${entry.resource_id ? ` ${entry.resource_id}` : ''}`], [t.auditNames.nameAtEvent, name], [t.admin.audit.outcome, t.admin.audit.outcomes[entry.outcome]],
    [t.admin.audit.reason, entry.reason], [t.admin.audit.ip, entry.ip], [t.admin.audit.userAgent, entry.user_agent], [t.admin.audit.requestId, entry.request_id],
  ]
  return (
    <Stack data-testid="audit-entry">
      <Table withRowBorders={false} verticalSpacing={2} layout="fixed">
        <Table.Tbody>
          {meta.filter(([, v]) => v).map(([k, v]) => (
            <Table.Tr key={k}><Table.Th w={170}>{k}</Table.Th><Table.Td style={{ overflowWrap: 'anywhere' }}>{v}</Table.Td></Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {orderBefore && orderAfter ? <AuditReorder before={orderBefore} after={orderAfter} /> : keys.length > 0 && (
        <>
          {both && <Switch label={t.admin.audit.onlyChanged} checked={onlyChanged} onChange={(e) => setOnlyChanged(e.currentTarget.checked)} />}
          <Text size="xs" c="dimmed">{t.admin.audit.masked}</Text>
          {/* Fixed columns, values wrapped: a long value (a certificate, a list) stays in the drawer. */}
          <Table withTableBorder withColumnBorders layout="fixed" data-testid="audit-diff">
              <Table.Thead>
                <Table.Tr><Table.Th w="26%">{t.admin.audit.field}</Table.Th><Table.Th>{t.admin.audit.before}</Table.Th><Table.Th>{t.admin.audit.after}</Table.Th></Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((k) => (
                  <Table.Tr key={k} data-field={k} data-changed={changed(k) || undefined}>
                    <Table.Td ff="monospace" fz="sm" style={WRAP}>{k}{changed(k) && both && <Badge ml={4} size="xs" color="orange" variant="light">{t.admin.audit.changed}</Badge>}</Table.Td>
                    <Table.Td bg={changed(k) && k in before ? 'var(--mantine-color-red-light)' : undefined}><Code block bg="transparent" style={WRAP}>{show(before[k])}</Code></Table.Td>
                    <Table.Td bg={changed(k) && k in after ? 'var(--mantine-color-green-light)' : undefined}><Code block bg="transparent" style={WRAP}>{show(after[k])}</Code></Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  )
}
