/**
 * The actions on a list's selected rows (ListTable.tsx's selection): a bar over the table that
 * says how many are selected and offers the screen's actions (delete, move to a group, enable,
 * disable, a CoA…). An action runs the route of one row for each selected row, one after the
 * other (the API has no bulk routes: each change is checked and audited as if made by hand), and
 * ends with one summary: how many were done, and each failure with the row's name and the
 * server's reason. A destructive action asks first in the console's confirmation (Confirm.tsx),
 * naming how many and which; a move asks for the group in a small dialog.
 */
import { Alert, Button, Group, List, Loader, Modal, Paper, Stack, Text } from '@mantine/core'
import { useState, type ReactNode } from 'react'
import { ApiError } from '../api/client'
import { useI18n } from '../i18n'
import { useConfirm, type ConfirmOptions } from './Confirm'
import type { Selection } from './ListTable'
import { refLine, type RefReport } from './DeleteAsk'
import type { Messages } from '../i18n/en'

export interface BulkAction<T> {
  label: string
  color?: string
  /** Asked before it runs (the rows' names are listed under the question). */
  confirm?: (rows: T[]) => Omit<ConfirmOptions, 'touches' | 'confirmLabel'>
  /** Chosen before it runs: the picker of a target (a group), given its value and setter. */
  choose?: { title: (n: number) => string; confirmLabel: string; field: ChooseField }
  /**
   * What refers to each row (its GET …/references), read when the question is asked: the rows the
   * server would refuse to delete are named with what holds them, and what each delete clears is listed.
   */
  references?: (row: T) => Promise<RefReport>
  /** One row's change; `target` is what `choose` picked. */
  run(row: T, target: string | null): Promise<unknown>
}

/** A picker drawn in the move dialog: its value and setter. */
export type ChooseField = (value: string | null, onChange: (v: string | null) => void) => ReactNode

interface Outcome { label: string; ok: number; all: number; failures: { name: string; reason: string }[] }

/** How many names the confirmation lists before "… and N more". */
const LISTED = 10

export function BulkBar<T extends { id: string }>({ sel, name, actions, onDone }: { sel: Selection<T>; name(row: T): string; actions: (BulkAction<T> | false)[]; onDone(): void | Promise<unknown> }) {
  const { t } = useI18n()
  const ask = useConfirm()
  const [progress, setProgress] = useState<{ done: number; all: number } | null>(null)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [choosing, setChoosing] = useState<BulkAction<T> | null>(null)
  const [target, setTarget] = useState<string | null>(null)
  const rows = sel.rows
  const reason = (e: unknown) => (e instanceof ApiError && e.status === 0 ? t.common.network : e instanceof Error ? e.message : String(e))

  const execute = async (a: BulkAction<T>, picked: string | null) => {
    const todo = [...rows]
    const failures: { row: T; reason: string }[] = []
    setOutcome(null)
    setProgress({ done: 0, all: todo.length })
    for (const [i, row] of todo.entries()) {
      try {
        await a.run(row, picked)
      } catch (e) {
        failures.push({ row, reason: reason(e) })
      }
      setProgress({ done: i + 1, all: todo.length })
    }
    await onDone()
    setProgress(null)
    // The rows that failed stay selected, to retry or to look at.
    sel.set(failures.map((f) => f.row))
    setOutcome({ label: a.label, ok: todo.length - failures.length, all: todo.length, failures: failures.map((f) => ({ name: name(f.row), reason: f.reason })) })
  }

  const start = async (a: BulkAction<T>) => {
    if (a.choose) {
      setTarget(null)
      setChoosing(a)
      return
    }
    if (a.confirm) {
      const capped = (xs: string[]) => (xs.length > LISTED ? [...xs.slice(0, LISTED), t.table.more(xs.length - LISTED)] : xs)
      const touches = capped(rows.map(name))
      const blocking: string[] = []
      if (a.references) {
        // One request a selected row (at most a page), side by side: what holds now, not what a list showed.
        const reports = await Promise.all(rows.map((r) => a.references!(r).catch(() => null)))
        const clearing: string[] = []
        for (const [i, report] of reports.entries()) {
          if (!report) continue
          if (report.blocking.length) blocking.push(`${name(rows[i])}: ${report.blocking.map((r) => refLine(t, r)).join(', ')}`)
          clearing.push(...report.auto_clearing.map((r) => `${name(rows[i])}: ${t.refs.clearing(refLine(t, r))}`))
        }
        touches.push(...capped(clearing))
        if (reports.includes(null)) touches.push(t.refs.unread)
      }
      if (!(await ask({ ...a.confirm(rows), touches, blocking: { title: t.refs.blocking, lines: capped(blocking) }, confirmLabel: a.label }))) return
    }
    await execute(a, null)
  }

  const shown = actions.filter((a): a is BulkAction<T> => a !== false)
  return (
    <Stack gap="xs">
      {rows.length > 0 && shown.length > 0 && (
        <Paper withBorder p="xs" role="toolbar" aria-label={t.table.bulkActions} data-testid="bulk-bar">
          <Group gap="xs">
            <Text size="sm" fw={600} data-testid="bulk-count">{t.table.selected(rows.length)}</Text>
            {shown.map((a) => (
              <Button key={a.label} size="compact-sm" variant="light" color={a.color} disabled={progress !== null} onClick={() => void start(a)}>{a.label}</Button>
            ))}
            <Button size="compact-sm" variant="subtle" color="gray" disabled={progress !== null} onClick={() => sel.set([])}>{t.table.clear}</Button>
          </Group>
        </Paper>
      )}
      {progress && (
        <Group gap="xs" role="status"><Loader size="xs" /><Text size="sm">{t.table.working(progress.done, progress.all)}</Text></Group>
      )}
      {outcome && !progress && (
        <Alert color={outcome.failures.length ? 'red' : 'green'} role="status" data-testid="bulk-result" withCloseButton onClose={() => setOutcome(null)} closeButtonLabel={t.config.close}>
          <Text size="sm">{t.table.done(outcome.label, outcome.ok, outcome.all)}</Text>
          {outcome.failures.length > 0 && (
            <>
              <Text size="sm" fw={600} mt={4}>{t.table.failed(outcome.failures.length)}</Text>
              <List size="sm">{outcome.failures.map((f) => <List.Item key={f.name}>{`${f.name}: ${f.reason}`}</List.Item>)}</List>
            </>
          )}
        </Alert>
      )}
      {choosing?.choose && (
        <Modal opened onClose={() => setChoosing(null)} title={choosing.choose.title(rows.length)}>
          <form onSubmit={(e) => { e.preventDefault(); const a = choosing; setChoosing(null); void execute(a, target) }} data-testid="bulk-choose">
            <Stack>
              {choosing.choose.field(target, setTarget)}
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setChoosing(null)}>{t.common.cancel}</Button>
                <Button type="submit" disabled={!target}>{choosing.choose.confirmLabel}</Button>
              </Group>
            </Stack>
          </form>
        </Modal>
      )}
    </Stack>
  )
}

/** The actions most lists share, worded once. */
export const bulkActions = {
  /** Delete, asked first: "Delete the selected (3)", the names listed. */
  remove: <T,>(t: Messages, run: (row: T) => Promise<unknown>, references?: (row: T) => Promise<RefReport>): BulkAction<T> => ({
    label: t.common.delete, color: 'red', run, references,
    confirm: (rows) => ({ title: t.table.deleteTitle(rows.length), message: t.table.deleteQuestion(rows.length) }),
  }),
  /** Enable or disable (a reversible change: not asked). */
  enabled: <T,>(t: Messages, on: boolean, run: (row: T, on: boolean) => Promise<unknown>): BulkAction<T> => ({
    label: on ? t.table.enable : t.table.disable, run: (row) => run(row, on),
  }),
  /** Move to the group chosen in `field` (the screen's group picker). */
  move: <T,>(t: Messages, field: ChooseField, run: (row: T, group: string) => Promise<unknown>): BulkAction<T> => ({
    label: t.table.moveToGroup, choose: { title: t.table.moveTitle, confirmLabel: t.table.move, field }, run: (row, g) => run(row, g!),
  }),
}
