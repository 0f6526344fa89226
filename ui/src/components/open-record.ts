/**
 * `?open=<id>` on a screen without a page per record (device and user groups, AAA and NAC policy
 * rules, certificates): the quick search's way to open a record itself. Once the screen has the
 * record, `show` opens it (its dialog or drawer; a user who may only read gets the row scrolled to
 * and marked), and the parameter leaves the address (replaced, so Back does not reopen it).
 */
import { useEffect, useState } from 'react'
import { navigate, useSearchParam } from '../router'

export const OPEN_PARAM = 'open'

/**
 * `find(id)` answers the record once the screen has loaded it (undefined until then); the id of the
 * record opened last comes back, for the row's mark (`data-opened` on the row whose `data-record-id`, or a rule's `data-rule-id`, is it).
 */
export function useOpenRecord<T>(find: (id: string) => T | undefined, show: (record: T) => void): string | null {
  const wanted = useSearchParam(OPEN_PARAM)
  const [opened, setOpened] = useState<string | null>(null)
  useEffect(() => {
    if (!wanted) return
    const record = find(wanted)
    if (record === undefined) return
    const next = new URLSearchParams(location.search)
    next.delete(OPEN_PARAM)
    const rest = next.toString()
    navigate(location.pathname + (rest ? `?${rest}` : ''), { replace: true })
    setOpened(wanted)
    show(record)
    requestAnimationFrame(() => document.querySelector(`[data-record-id="${CSS.escape(wanted)}"], [data-rule-id="${CSS.escape(wanted)}"]`)?.scrollIntoView({ block: 'center' }))
  })
  return opened
}
