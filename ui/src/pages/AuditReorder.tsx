/**
 * A reorder in the audit trail, read as an engineer reads a policy: which rule moved
 * from where to where, and the evaluation order before and after by rule name (the
 * names kept at the event, so a rule renamed or deleted since still reads as it was).
 */
import { Group, List, Stack, Text, Title } from '@mantine/core'
import { useI18n } from '../i18n'

export interface RuleOrder {
  ids: string[]
  names: string[]
}

const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string')

/** The order a reorder entry's snapshot holds, or null when it is not one (`rule_ids`, and `rule_names` from the same event). */
export function ruleOrder(snapshot: unknown): RuleOrder | null {
  if (!snapshot || typeof snapshot !== 'object') return null
  const s = snapshot as { rule_ids?: unknown; rule_names?: unknown }
  if (!isStrings(s.rule_ids)) return null
  // Entries written before the names were kept show the ids, as they are all that is known.
  return { ids: s.rule_ids, names: isStrings(s.rule_names) && s.rule_names.length === s.rule_ids.length ? s.rule_names : s.rule_ids }
}

/** The one rule whose move explains the whole change, if there is one: without it, both orders are the same. */
export function singleMove(before: string[], after: string[]): { id: string; from: number; to: number } | null {
  for (const id of before) {
    const from = before.indexOf(id)
    const to = after.indexOf(id)
    if (from === to || to < 0) continue
    const rest = (l: string[]) => l.filter((x) => x !== id).join('\n')
    if (rest(before) === rest(after)) return { id, from: from + 1, to: to + 1 }
  }
  return null
}

export function AuditReorder({ before, after }: { before: RuleOrder; after: RuleOrder }) {
  const { t } = useI18n()
  const w = t.auditNames
  const nameOf = (id: string) => after.names[after.ids.indexOf(id)] ?? before.names[before.ids.indexOf(id)] ?? id
  const move = singleMove(before.ids, after.ids)
  const changed = after.ids.filter((id, i) => before.ids[i] !== id).length
  const column = (label: string, o: RuleOrder) => (
    <Stack gap={4} style={{ flex: 1, minWidth: 200 }}>
      <Title order={3} size="h5">{label}</Title>
      <List type="ordered" size="sm" data-testid={`audit-order-${label}`}>
        {o.ids.map((id, i) => {
          const moved = (o === before ? after : before).ids[i] !== id
          return <List.Item key={id} fw={moved ? 700 : undefined}>{o.names[i]}</List.Item>
        })}
      </List>
    </Stack>
  )
  return (
    <Stack data-testid="audit-reorder">
      <Text fw={600}>{move ? w.moved(nameOf(move.id), move.from, move.to) : w.reordered(changed)}</Text>
      <Group align="flex-start" wrap="wrap">
        {column(w.orderBefore, before)}
        {column(w.orderAfter, after)}
      </Group>
    </Stack>
  )
}
