/**
 * What the list-and-dialog screens share (devices, device groups): the page
 * title with its add button, a row's edit and delete (asked again before it
 * is sent), and the frame of a form dialog (the alert for an error no input
 * shows, Cancel, and the submit button with its progress).
 */
import { ActionIcon, Button, Group, Modal, Stack, Title } from '@mantine/core'
import type { FormEvent, ReactNode } from 'react'
import { useI18n } from '../i18n'
import { ErrorAlert } from './errors'

/** The page's one heading; `add` (absent or false without the permission) is its button. */
export function PageTitle({ title, add }: { title: string; add?: { label: string; onClick(): void } | false }) {
  return (
    <Group justify="space-between">
      <Title order={1} size="h2">{title}</Title>
      {add && <Button onClick={add.onClick}>{add.label}</Button>}
    </Group>
  )
}

/** Edit and delete of the row named `name`; delete runs only once `confirm` is accepted. */
export function RowActions({ name, confirm, onEdit, onDelete }: { name: string; confirm: string; onEdit(): void; onDelete(): void }) {
  const { t } = useI18n()
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      <Button size="compact-sm" variant="subtle" onClick={onEdit} aria-label={`${t.common.edit} ${name}`}>{t.common.edit}</Button>
      <ActionIcon variant="subtle" color="red" aria-label={`${t.common.delete} ${name}`} onClick={() => window.confirm(confirm) && onDelete()}>✕</ActionIcon>
    </Group>
  )
}

/**
 * A form in a dialog: Enter submits, Escape closes; `fields` are the inputs
 * that show their own error (the alert shows any other); `editing` labels the
 * submit Save rather than Create.
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
          <Group justify="flex-end">
            <Button variant="default" onClick={p.onClose}>{t.common.cancel}</Button>
            <Button type="submit" loading={p.pending}>{p.editing ? t.common.save : t.common.create}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
