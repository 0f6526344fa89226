/**
 * An editable list of name/value pairs (TACACS+ shell or service attributes,
 * RADIUS reply attributes), in the order they are sent. `at` is the list's
 * field in the API (`shell_attributes`, `services[0].attributes`): a refusal
 * at `at[i].name` or `at[i].value` shows under that input.
 */
import { ActionIcon, Button, Checkbox, Group, Stack, Text, TextInput } from '@mantine/core'
import { fieldError } from '../components/errors'
import { useI18n } from '../i18n'

export type Pair = { name: string; value: string; optional?: boolean }

export function AttributeRows<P extends Pair>(o: { at: string; rows: P[]; onChange(rows: P[]): void; error: unknown; blank: P; optional?: boolean; names?: string[]; label: string }) {
  const { t } = useI18n()
  const set = (i: number, p: Partial<P>) => o.onChange(o.rows.map((r, j) => (j === i ? { ...r, ...p } : r)))
  const listId = o.names ? `${o.at}-names` : undefined
  return (
    <Stack gap={4} role="group" aria-label={o.label}>
      <Text size="sm" fw={500}>{o.label}</Text>
      {o.names && <datalist id={listId}>{o.names.map((n) => <option key={n} value={n} />)}</datalist>}
      {o.rows.length === 0 && <Text size="sm" c="dimmed">{t.config.noAttributes}</Text>}
      {o.rows.map((r, i) => (
        <Group key={i} align="flex-start" wrap="nowrap" data-testid="attribute">
          <TextInput aria-label={t.config.attrName} placeholder={t.config.attrName} name={`${o.at}[${i}].name`} list={listId} value={r.name} onChange={(e) => set(i, { name: e.currentTarget.value } as Partial<P>)} error={fieldError(o.error, `${o.at}[${i}].name`)} style={{ flex: 1 }} ff="monospace" />
          <TextInput aria-label={t.config.attrValue} placeholder={t.config.attrValue} name={`${o.at}[${i}].value`} value={r.value} onChange={(e) => set(i, { value: e.currentTarget.value } as Partial<P>)} error={fieldError(o.error, `${o.at}[${i}].value`)} style={{ flex: 1 }} ff="monospace" />
          {o.optional && <Checkbox mt={8} label={t.config.optional} checked={!!r.optional} onChange={(e) => set(i, { optional: e.currentTarget.checked || undefined } as Partial<P>)} />}
          <ActionIcon variant="subtle" color="red" mt={4} aria-label={t.config.removeAttribute(i + 1)} onClick={() => o.onChange(o.rows.filter((_, j) => j !== i))}>✕</ActionIcon>
        </Group>
      ))}
      <Button size="compact-sm" variant="subtle" w="fit-content" onClick={() => o.onChange([...o.rows, { ...o.blank }])}>{t.config.addAttribute}</Button>
    </Stack>
  )
}
