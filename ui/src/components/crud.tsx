/**
 * What the list-and-dialog screens share (devices, device groups): the page
 * title with its add button, a row's edit and delete (asked again before it
 * is sent), and the frame of a form dialog (the alert for an error no input
 * shows, Cancel, and the submit button with its progress).
 */
import { ActionIcon, Button, Group, Modal, Pagination, Stack, Text, Title } from '@mantine/core'
import { useEffect, useState, type FormEvent, type ReactNode } from 'react'
import { allowedWords, fieldRule, loadRules, rulesNow } from '../api/rules'
import { useI18n } from '../i18n'
import { type RefReport, useAskDelete } from './DeleteAsk'
import { ErrorAlert } from './errors'

/**
 * What an input of a form's body allows, in words, from the operation's schema (`op`:
 * `POST /api/v1/device-groups`): the help a name-like input shows before anyone fails
 * ("Latin letters, digits and . _ -, starting with a letter or digit; no spaces; up to 64
 * characters"). Undefined until the rules have loaded, and for a field with no rule of note.
 */
export function useAllowed(op: string): (field: string) => string | undefined {
  const { language } = useI18n()
  const [rules, setRules] = useState(rulesNow)
  useEffect(() => {
    if (!rules) void loadRules().then(setRules)
  }, [rules])
  return (field) => (rules ? allowedWords(fieldRule(rules, op, field), rules, language) : undefined)
}

/** The page's one heading; `add` (absent or false without the permission) is its button. */
export function PageTitle({ title, add }: { title: string; add?: { label: string; onClick(): void } | false }) {
  return (
    <Group justify="space-between">
      <Title order={1} size="h2">{title}</Title>
      {add && <Button onClick={add.onClick}>{add.label}</Button>}
    </Group>
  )
}

/**
 * Edit and delete of the row named `name`. Delete is a ✕ that runs `onDelete` only once the
 * console's confirmation (Confirm.tsx, through DeleteAsk.ts) is accepted: `confirm` is its question
 * (by default "Delete <name>?"), `touches` what the list knows the delete touches, and `references`
 * the server's report of what refers to the row, read when the question is asked. `readOnly` leaves
 * a View button alone, for a reader.
 */
export function RowActions({ name, confirm, touches, references, onEdit, onDelete, readOnly = false }: { name: string; confirm?: string; touches?: string[]; references?: () => Promise<RefReport>; onEdit(): void; onDelete(): void; readOnly?: boolean }) {
  const { t } = useI18n()
  const askDelete = useAskDelete()
  const edit = readOnly ? t.config.view : t.common.edit
  const remove = async () => {
    if (await askDelete({ name, question: confirm ?? t.config.deleteQuestion(name), touches, references })) onDelete()
  }
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      <Button size="compact-sm" variant="subtle" onClick={onEdit} aria-label={`${edit} ${name}`}>{edit}</Button>
      {!readOnly && <ActionIcon variant="subtle" color="red" aria-label={`${t.common.delete} ${name}`} onClick={() => void remove()}>✕</ActionIcon>}
    </Group>
  )
}

/**
 * A form in a dialog: Enter submits, Escape closes; `fields` are the inputs
 * that show their own error (the alert shows any other); `editing` labels the
 * submit Save rather than Create; `readOnly` leaves only Close.
 */
export function FormDialog(p: {
  title: string
  testId: string
  error: unknown
  fields: string[]
  pending: boolean
  editing: boolean
  size?: string
  onClose(): void
  onSubmit(): void
  children: ReactNode
  /** What stands in the dialog below the form (actions of their own, outside the submit). */
  after?: ReactNode
  readOnly?: boolean
}) {
  const { t } = useI18n()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    p.onSubmit()
  }
  return (
    <Modal opened onClose={p.onClose} title={p.title} size={p.size}>
      <form onSubmit={submit} noValidate data-testid={p.testId}>
        <Stack>
          <ErrorAlert error={p.error} fields={p.fields} />
          {p.children}
          <DialogButtons editing={p.editing} pending={p.pending} onClose={p.onClose} readOnly={p.readOnly} />
        </Stack>
      </form>
      {p.after}
    </Modal>
  )
}

/**
 * Under a list: how many rows the filter matched and, past one page, the pager
 * (its arrows named for a screen reader). `total` replaces the count's text
 * where a screen words it otherwise (the logs' "at least").
 */
export function ListFooter({ data, page, onPage, total, testId }: {
  data: { total_by_filter: number; pages: number } | undefined
  page: number
  onPage(page: number): void
  total?: string
  testId?: string
}) {
  const { t } = useI18n()
  if (!data) return null
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed" data-testid={testId}>{total ?? t.common.total(data.total_by_filter)}</Text>
      <Pager pages={data.pages} page={page} onPage={onPage} />
    </Group>
  )
}

/** The pager alone (nothing for a single page), for a list that shows no count. */
export function Pager({ pages, page, onPage }: { pages: number; page: number; onPage(page: number): void }) {
  const { t } = useI18n()
  if (pages <= 1) return null
  return <Pagination value={page} onChange={onPage} total={pages} getControlProps={(c) => ({ 'aria-label': c === 'previous' ? t.common.previous : c === 'next' ? t.common.next : c })} />
}

/**
 * A form dialog's Cancel and submit (Save or Create, with its progress); for a
 * reader (`readOnly`) only Close.
 */
export function DialogButtons({ editing, pending, onClose, readOnly = false, mt }: { editing: boolean; pending: boolean; onClose(): void; readOnly?: boolean; mt?: string }) {
  const { t } = useI18n()
  return (
    <Group justify="flex-end" mt={mt}>
      <Button variant="default" onClick={onClose}>{readOnly ? t.config.close : t.common.cancel}</Button>
      {!readOnly && <Button type="submit" loading={pending}>{editing ? t.common.save : t.common.create}</Button>}
    </Group>
  )
}
