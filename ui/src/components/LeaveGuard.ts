/**
 * A page with unsaved work warns before it is left: the in-app confirmation (useConfirm) for a link,
 * the quick search, Back or the header's sign-out (router.tsx's leave guard; `question` gets the reason,
 * to word a sign-out as one), and the browser's own question for a reload or a closed tab (beforeunload,
 * which a page may not word itself).
 */
import { useEffect, useRef } from 'react'
import { type LeaveReason, setLeaveGuard } from '../router'
import { type ConfirmOptions, useConfirm } from './Confirm'

export function useLeaveGuard(unsaved: boolean, question: (why: LeaveReason) => ConfirmOptions): void {
  const ask = useConfirm()
  // The question of the latest render (the sections changed since the guard was set).
  const latest = useRef(question)
  latest.current = question
  useEffect(() => {
    if (!unsaved) return
    const onUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault()
      e.returnValue = ''
    }
    window.addEventListener('beforeunload', onUnload)
    const release = setLeaveGuard((why) => ask(latest.current(why)))
    return () => {
      window.removeEventListener('beforeunload', onUnload)
      release()
    }
  }, [unsaved, ask])
}
