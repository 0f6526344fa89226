/**
 * The question before a delete, in the console's one confirmation (Confirm.tsx), with what the
 * server says refers to the object: the references it refuses the delete for (409 while they exist)
 * in a warning, and those the delete clears by itself in the list of what it touches. The report is
 * read when the question is asked, so it is what holds now, not what a list showed a while ago.
 */
import { useConfirm } from './Confirm'
import { useI18n } from '../i18n'
import type { Messages } from '../i18n/en'

export type Ref = { type: string; id: string; name: string }
export type RefReport = { blocking: Ref[]; auto_clearing: Ref[] }

/** A reference in words: its kind in the screen's language and its name ("AAA policy rule NOC"). */
export const refLine = (t: Messages, r: Ref): string => `${t.refs.types[r.type] ?? r.type} ${r.name}`

/** At most this many references of each kind are listed; the rest are counted ("… and 3 more"). */
const LISTED = 10

export interface DeleteQuestion {
  /** The object's name, in the title. */
  name: string
  /** The question, with its consequence. */
  question: string
  /** The server's reference report (GET …/references); absent where the API has none for the kind. */
  references?: () => Promise<RefReport>
  /** What the list itself knows the delete touches (the devices in a group…). */
  touches?: string[]
}

/** Resolves true when the delete is confirmed. */
export function useAskDelete(): (q: DeleteQuestion) => Promise<boolean> {
  const ask = useConfirm()
  const { t } = useI18n()
  const line = (r: Ref) => refLine(t, r)
  const capped = (xs: string[]) => (xs.length > LISTED ? [...xs.slice(0, LISTED), t.table.more(xs.length - LISTED)] : xs)
  return async (q) => {
    const touches = [...(q.touches ?? [])]
    let blocking: string[] = []
    if (q.references) {
      const report = await q.references().catch(() => null)
      if (!report) touches.push(t.refs.unread)
      else {
        blocking = capped(report.blocking.map(line))
        touches.push(...capped(report.auto_clearing.map((r) => t.refs.clearing(line(r)))))
        if (!report.blocking.length && !report.auto_clearing.length) touches.push(t.refs.none)
      }
    }
    return ask({
      title: t.confirm.title(t.common.delete, q.name),
      message: q.question,
      touches,
      blocking: { title: t.refs.blocking, lines: blocking },
      confirmLabel: t.common.delete,
    })
  }
}
