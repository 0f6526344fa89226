/**
 * Ordered rules with a protected default rule last (the AAA and the NAC
 * policy): a rule moves by drag and drop onto another row, by Alt+↑ / Alt+↓ on
 * its focused row, or by its ↑ ↓ buttons. Every move hands the whole new order
 * to `onMove` (the reorder routes take the complete list, never a delta), and
 * a move past the default rule or off the list is ignored here, before the
 * server would refuse it.
 */
import { ActionIcon, Badge, Button, Group, Table } from '@mantine/core'
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react'
import { useI18n } from '../i18n'
import { useConfirm } from './Confirm'

interface Ordered {
  id: string
  is_default: boolean
}

/** Badge styles that show a name whole (Mantine cuts a badge's label at its width). */
export const NOCUT = { label: { overflow: 'visible' } }

export function useRuleOrder<R extends Ordered>(list: R[], movable: boolean, onMove: (ids: string[], id: string) => void) {
  const [dragged, setDragged] = useState<string | null>(null)
  // A browser blurs an element its row takes along when React moves the row: what had the focus in
  // the moved row (the row itself, or its ↑ / ↓ button) gets it back once the list is redrawn.
  // The list is a new array at every render: wait for the one that has the rule at its new place.
  const refocus = useRef<{ id: string; label: string | null; to: number } | null>(null)
  useEffect(() => {
    const r = refocus.current
    if (!r || list.findIndex((x) => x.id === r.id) !== r.to) return
    const row = document.querySelector<HTMLElement>(`tr[data-rule-id="${CSS.escape(r.id)}"]`)
    // Rows take no focus while the move is being saved (not movable): wait for it.
    if (!row || !movable) return
    refocus.current = null
    if (row.contains(document.activeElement)) return
    const button = r.label ? row.querySelector<HTMLButtonElement>(`button[aria-label="${CSS.escape(r.label)}"]:not([disabled])`) : null
    ;(button ?? row).focus()
  }, [list, movable])
  const move = (id: string, to: number) => {
    const ids = list.map((r) => r.id)
    const from = ids.indexOf(id)
    const last = list.findIndex((r) => r.is_default)
    if (from < 0 || to < 0 || (last >= 0 && to >= last) || to >= ids.length || from === to) return
    const active = document.activeElement
    const row = active?.closest<HTMLElement>('tr[data-rule-id]')
    if (row?.dataset.ruleId === id) refocus.current = { id, label: active === row ? null : active?.getAttribute('aria-label') ?? null, to }
    ids.splice(to, 0, ...ids.splice(from, 1))
    onMove(ids, id)
  }
  const drop = (e: DragEvent, to: number) => {
    e.preventDefault()
    if (dragged) move(dragged, to)
    setDragged(null)
  }
  const key = (e: KeyboardEvent, id: string, i: number) => {
    if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return
    e.preventDefault()
    move(id, e.key === 'ArrowUp' ? i - 1 : i + 1)
  }
  /** What a row needs to be dragged, dropped on and moved from the keyboard. */
  const rowProps = (r: R, i: number) => {
    const can = movable && !r.is_default
    return {
      'data-rule-id': r.id,
      draggable: can,
      tabIndex: can ? 0 : undefined,
      onDragStart: (e: DragEvent) => {
        setDragged(r.id)
        e.dataTransfer.effectAllowed = 'move'
        e.dataTransfer.setData('text/plain', r.id)
      },
      onDragOver: (e: DragEvent) => can && e.preventDefault(),
      onDrop: (e: DragEvent) => drop(e, i),
      onKeyDown: (e: KeyboardEvent) => can && key(e, r.id, i),
      cursor: can ? 'grab' : undefined,
    }
  }
  return { move, rowProps }
}

/** A rule's ↑ ↓ buttons (none on the default rule). */
export function MoveButtons({ name, index, count, disabled, onMove }: { name: string; index: number; count: number; disabled: boolean; onMove(to: number): void }) {
  const { t } = useI18n()
  return (
    <>
      <ActionIcon variant="subtle" size="sm" disabled={disabled || index === 0} aria-label={`${t.policy.up} ${name}`} onClick={() => onMove(index - 1)}>↑</ActionIcon>
      <ActionIcon variant="subtle" size="sm" disabled={disabled || index >= count - 2} aria-label={`${t.policy.down} ${name}`} onClick={() => onMove(index + 1)}>↓</ActionIcon>
    </>
  )
}

/** A rule's name cell, with its "default" and "disabled" badges. */
export function RuleNameCell({ rule }: { rule: { name: string; is_default: boolean; enabled: boolean } }) {
  const { t } = useI18n()
  return (
    <Table.Td fw={500}>{rule.name} {rule.is_default && <Badge size="xs" tt="none" styles={NOCUT} variant="light">{t.policy.default}</Badge>}{!rule.enabled && <Badge size="xs" tt="none" styles={NOCUT} color="gray">{t.policy.disabled}</Badge>}</Table.Td>
  )
}

/**
 * A rule row's last cell, empty for a reader: ↑ ↓, edit, and delete (asked
 * again before it is sent); the default rule neither moves nor goes.
 */
export function RuleRowActions({ rule, index, count, movable, canWrite, onMove, onEdit, onDelete }: {
  rule: { name: string; is_default: boolean }
  index: number
  count: number
  movable: boolean
  canWrite: boolean
  onMove(to: number): void
  onEdit(): void
  onDelete(): void
}) {
  const { t } = useI18n()
  const ask = useConfirm()
  return (
    <Table.Td>
      {canWrite && (
        <Group gap={2} wrap="nowrap" justify="flex-end">
          {!rule.is_default && <MoveButtons name={rule.name} index={index} count={count} disabled={!movable} onMove={onMove} />}
          <Button size="compact-sm" variant="subtle" aria-label={`${t.common.edit} ${rule.name}`} onClick={onEdit}>{t.common.edit}</Button>
          {!rule.is_default && <ActionIcon variant="subtle" color="red" size="sm" aria-label={`${t.common.delete} ${rule.name}`} onClick={() => void ask({ title: t.confirm.title(t.common.delete, rule.name), message: t.policy.deleteConfirm(rule.name), confirmLabel: t.common.delete }).then((ok) => ok && onDelete())}>✕</ActionIcon>}
        </Group>
      )}
    </Table.Td>
  )
}
