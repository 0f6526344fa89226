/**
 * The logs screen's live tail: every 5 seconds, the entries logged at or after a cursor (the newest
 * time seen), with the screen's filters; the new ones are kept newest first and marked new. Plain
 * polling, no websocket: the list's own route, `date_from` the cursor, oldest first. The cursor
 * starts at the newest entry the list showed (or now), so nothing already on screen comes back;
 * a pause stops the polls and keeps the cursor, so a resume fetches what was logged meanwhile.
 */
import { useEffect, useRef, useState } from 'react'
import { api } from '../api/client'
import type { LogEntry, LogPage } from './log-kinds'

export const TAIL_INTERVAL_MS = 5000
/** The most entries one poll brings; the next poll goes on from the newest of them. */
const PER_POLL = 100
/** The most tailed entries the screen keeps. */
const KEEP = 500

const getLogs = api.get as unknown as (path: string, o: { query: object }) => Promise<LogPage>

export interface LiveTail {
  /** Entries the tail brought, newest first. */
  rows: LogEntry[]
  error: unknown
}

/**
 * Tail `path` with `filters` while `running`; `start` is where the cursor begins when the tail is
 * switched on (`on`), and the entries already on screen (not new). A change of path or filters (the key) starts again.
 */
export function useLiveTail(path: string, filters: Record<string, unknown>, on: boolean, running: boolean, start: () => { at: string; ids: string[] }): LiveTail {
  const [rows, setRows] = useState<LogEntry[]>([])
  const [error, setError] = useState<unknown>(null)
  const cursor = useRef<string | null>(null)
  const seen = useRef(new Set<string>())
  const key = JSON.stringify([path, filters])
  const startRef = useRef(start)
  startRef.current = start

  // Switched on, or the kind or filters changed: a new tail from here.
  useEffect(() => {
    setRows([])
    setError(null)
    const from = on ? startRef.current() : null
    seen.current = new Set(from?.ids)
    cursor.current = from?.at ?? null
  }, [on, key])

  useEffect(() => {
    if (!on || !running) return
    let stop = false
    const poll = async () => {
      if (!cursor.current) return
      try {
        const page = await getLogs(`/api/v1/aaa/logs/${path}`, { query: { ...filters, date_from: cursor.current, sort_by: 'timestamp', sort_order: 'asc', page: 1, per_page: PER_POLL } })
        if (stop) return
        // date_from is inclusive: entries at the cursor's own time come back, and are known by id.
        const fresh = page.items.filter((e) => !seen.current.has(e.id))
        fresh.forEach((e) => seen.current.add(e.id))
        if (page.items.length) cursor.current = page.items[page.items.length - 1].timestamp
        if (fresh.length) setRows((old) => [...fresh.reverse(), ...old].slice(0, KEEP))
        setError(null)
      } catch (e) {
        if (!stop) setError(e)
      }
    }
    void poll()
    const timer = setInterval(() => void poll(), TAIL_INTERVAL_MS)
    return () => {
      stop = true
      clearInterval(timer)
    }
    // `filters` is in `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [on, running, key])

  return { rows, error }
}
