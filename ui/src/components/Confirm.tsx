/**
 * The console's one confirmation: every destructive action (a delete, a
 * revoke, a CoA, a deploy, a rollback…) asks here before it is sent, never
 * through the browser's `confirm()`, which a browser may suppress (a page
 * that asked too often gets "prevent this page from creating dialogs", and
 * then every later question answers false without being shown).
 *
 * `const confirm = useConfirm()`, then `if (await confirm({...})) mutate()`:
 * the dialog names the action (title), asks (message) and lists what it
 * touches (the references of an object, the session a CoA cuts, the release a
 * rollback replaces). The confirm button has the focus, so Enter confirms;
 * Escape, the ✕ and a click outside cancel. One dialog at a time: a second
 * question asked while one is open answers the first with false.
 */
import { Alert, Button, Group, List, Modal, Stack, Text } from '@mantine/core'
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react'
import { useI18n } from '../i18n'

export interface ConfirmOptions {
  /** What is about to happen, with the object's name: the dialog's accessible name. */
  title: string
  /** The question, with its consequence. */
  message: ReactNode
  /** What the action touches, one line each; shown under the question when not empty. */
  touches?: string[]
  /** What keeps the action from succeeding (the references a delete is refused for), one line each, in a warning above the touches. */
  blocking?: { title: string; lines: string[] }
  /** The confirm button's label: the action's verb (Delete, Revoke, Roll back…). */
  confirmLabel: string
  /** Red confirm button (default): the action loses something. */
  danger?: boolean
}

type Ask = (o: ConfirmOptions) => Promise<boolean>
const Ctx = createContext<Ask | null>(null)

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const { t } = useI18n()
  const [open, setOpen] = useState<ConfirmOptions | null>(null)
  // The pending question's answer; a ref, so that a StrictMode double render cannot answer it twice.
  const answer = useRef<((ok: boolean) => void) | null>(null)
  const ask = useCallback<Ask>((o) => {
    answer.current?.(false)
    return new Promise<boolean>((resolve) => {
      answer.current = resolve
      setOpen(o)
    })
  }, [])
  const close = (ok: boolean) => {
    const resolve = answer.current
    answer.current = null
    setOpen(null)
    resolve?.(ok)
  }
  // Escape cancels this dialog only. Mantine's modals each close on an Escape seen by the window, so one
  // asked from within a form dialog (the user's MFA reset) would close that dialog too; a key whose target
  // is marked data-mantine-stop-propagation is left alone by them, and every focusable part of this
  // dialog is marked, so Escape is handled here instead.
  const opened = open !== null
  useEffect(() => {
    if (!opened) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.isComposing) close(false)
    }
    window.addEventListener('keydown', onKey, { capture: true })
    return () => window.removeEventListener('keydown', onKey, { capture: true })
  })
  const mark = { 'data-mantine-stop-propagation': 'true' }
  return (
    <Ctx.Provider value={ask}>
      {children}
      {/* Above a form dialog (the user's dialog asks before its MFA reset). */}
      <Modal opened={opened} onClose={() => close(false)} closeOnEscape={false} title={open?.title} zIndex={400} attributes={{ content: { ...mark, 'data-testid': 'confirm-dialog' }, close: mark }}>
        {open && (
          <Stack>
            <Text data-testid="confirm-message">{open.message}</Text>
            {open.blocking && open.blocking.lines.length > 0 && (
              <Alert color="yellow" title={open.blocking.title} data-testid="confirm-blocking">
                <List size="sm" spacing={2}>
                  {open.blocking.lines.map((x) => <List.Item key={x}>{x}</List.Item>)}
                </List>
              </Alert>
            )}
            {open.touches && open.touches.length > 0 && (
              <Stack gap={4} data-testid="confirm-touches">
                <Text size="sm" fw={600}>{t.confirm.touches}</Text>
                <List size="sm" spacing={2}>
                  {open.touches.map((x) => <List.Item key={x}>{x}</List.Item>)}
                </List>
              </Stack>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => close(false)} data-testid="confirm-cancel" {...mark}>{t.common.cancel}</Button>
              <Button color={open.danger === false ? undefined : 'red'} onClick={() => close(true)} data-autofocus data-testid="confirm-ok" {...mark}>{open.confirmLabel}</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Ctx.Provider>
  )
}

/** The confirmation of this console: resolves true when confirmed, false when cancelled. */
export function useConfirm(): Ask {
  const ask = useContext(Ctx)
  if (!ask) throw new Error('useConfirm outside ConfirmProvider')
  return ask
}
