/**
 * A router of a few lines: the console's pages are flat paths, so the
 * History API and one hook are enough (no dependency). Links are real <a>
 * elements: keyboard, middle-click and "open in new tab" work.
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react'

const listeners = new Set<() => void>()

/**
 * A page holding unsaved work (the settings) asks before the console leaves it: `ask` resolves true
 * to leave. Links and the quick search go through navigate(); the browser's Back is put back first
 * (the address has already changed), then followed if the answer is yes. A reload or a closed tab is
 * the page's own beforeunload.
 */
/** Why the page is being left: by a link, Back or the quick search, or by the header's sign-out (worded apart). */
export type LeaveReason = 'leave' | 'sign-out'
let guard: { ask: (why: LeaveReason) => Promise<boolean>; at: string } | null = null
export function setLeaveGuard(ask: ((why: LeaveReason) => Promise<boolean>) | null): () => void {
  const mine = ask ? { ask, at: location.pathname + location.search } : null
  guard = mine
  return () => {
    if (guard === mine) guard = null
  }
}

window.addEventListener('popstate', () => {
  const g = guard
  if (g) {
    const to = location.pathname + location.search
    history.pushState(null, '', g.at)
    void g.ask('leave').then((ok) => ok && go(to))
    return
  }
  listeners.forEach((l) => l())
})

/**
 * Before an action that drops the page's unsaved work without a link (the sign-out): asks the page's
 * guard, if any; true to go on, and the guard is then released (the navigation that follows asks no more).
 */
export async function confirmLeave(why: LeaveReason): Promise<boolean> {
  const g = guard
  if (!g) return true
  const ok = await g.ask(why)
  if (ok && guard === g) guard = null
  return ok
}

export function navigate(to: string, o: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return
  const g = guard
  if (g) {
    void g.ask('leave').then((ok) => ok && go(to, o))
    return
  }
  go(to, o)
}

function go(to: string, o: { replace?: boolean } = {}): void {
  guard = null
  if (o.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  listeners.forEach((l) => l())
}

export function usePath(): string {
  const [p, setP] = useState(location.pathname)
  useEffect(() => {
    const l = () => setP(location.pathname)
    listeners.add(l)
    return () => void listeners.delete(l)
  }, [])
  return p
}

/**
 * A parameter of the address's query (`/devices?search=sw-core`), followed as it changes: the quick
 * search opens a record with it, also on the page already shown (only the query changes then).
 */
export function useSearchParam(name: string): string | null {
  const read = () => new URLSearchParams(location.search).get(name)
  const [v, setV] = useState(read)
  useEffect(() => {
    const l = () => setV(new URLSearchParams(location.search).get(name))
    listeners.add(l)
    return () => void listeners.delete(l)
  }, [name])
  return v
}

/**
 * The address's whole query (`?search=sw&sort_by=address`), followed as it changes: a list keeps its
 * state there (components/list-state.ts), and the quick search changes it on the page already shown.
 */
export function useQueryString(): string {
  // Read at each render (the address is the one source); the listener only asks for the render.
  const [, bump] = useState(0)
  useEffect(() => {
    const l = () => bump((n) => n + 1)
    listeners.add(l)
    return () => void listeners.delete(l)
  }, [])
  return location.search
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(href)
  }
  return <a href={href} onClick={click} {...rest} />
}

/**
 * The token a mailed link carries in its fragment (`#token=…`: a browser sends a fragment to no
 * server, so no access log, proxy or Referer holds it), read once; it then leaves the address bar.
 * Empty when the page was opened without one.
 */
export function useLinkToken(): string {
  const read = () => new URLSearchParams(location.hash.slice(1)).get('token') ?? ''
  const [token, setToken] = useState(read)
  useEffect(() => {
    // Also when the link is opened in a tab already on the page: only the fragment changes, nothing reloads.
    const take = () => {
      const found = read()
      if (found) setToken(found)
      if (location.hash) history.replaceState(history.state, '', location.pathname)
    }
    take()
    window.addEventListener('hashchange', take)
    return () => window.removeEventListener('hashchange', take)
  }, [])
  return token
}
