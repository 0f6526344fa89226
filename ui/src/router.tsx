/**
 * A router of a few lines: the console's pages are flat paths, so the
 * History API and one hook are enough (no dependency). Links are real <a>
 * elements: keyboard, middle-click and "open in new tab" work.
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react'

const listeners = new Set<() => void>()
window.addEventListener('popstate', () => listeners.forEach((l) => l()))

export function navigate(to: string, o: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return
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

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(href)
  }
  return <a href={href} onClick={click} {...rest} />
}
