/**
 * The menu: the dashboard, the sections (components/menu-data.ts) and the user's account. A section
 * is a button that opens or closes its links; what the user opened or closed is kept in
 * localStorage, and the section of the page shown is opened on each navigation, so the link
 * to where one is stays in sight. Closed links are `hidden`: out of the tab order and of screen readers.
 */
import { AccordionChevron, NavLink, UnstyledButton } from '@mantine/core'
import { useEffect, useState } from 'react'
import { Link, usePath } from '../router'
import { isCurrent, useMenu, type MenuEntry } from './menu-data'
import { MENU_STATE_KEY, type SectionId } from './menu-ids'

type Opened = Partial<Record<SectionId, boolean>>

function stored(): Opened {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(MENU_STATE_KEY) ?? '{}')
    return v && typeof v === 'object' ? (v as Opened) : {}
  } catch {
    return {}
  }
}

export function NavMenu({ onNavigate }: { onNavigate(): void }) {
  const menu = useMenu()
  const path = usePath()
  const [opened, setOpened] = useState<Opened>(stored)
  const set = (id: SectionId, open: boolean) =>
    setOpened((o) => {
      const next = { ...o, [id]: open }
      localStorage.setItem(MENU_STATE_KEY, JSON.stringify(next))
      return next
    })
  const current = menu.sections.find((s) => s.entries.some((e) => isCurrent(path, e.href)))?.id
  // Also when the section appears later (a plugin's pages are listed once the extensions load).
  useEffect(() => {
    if (current) set(current, true)
  }, [current, path])
  const link = (e: MenuEntry) => (
    <NavLink key={e.href} component={Link} href={e.href} label={e.label} active={isCurrent(path, e.href)} aria-current={isCurrent(path, e.href) ? 'page' : undefined} onClick={onNavigate} />
  )
  return (
    <>
      {menu.top.map(link)}
      {menu.sections.map((s) => {
        const open = !!opened[s.id]
        const id = `menu-section-${s.id}`
        return (
          <div key={s.id} data-menu-section={s.id}>
            <UnstyledButton className="menu-section" aria-expanded={open} aria-controls={id} onClick={() => set(s.id, !open)}>
              <span>{s.label}</span>
              <AccordionChevron className="menu-chevron" data-open={open || undefined} aria-hidden />
            </UnstyledButton>
            <div id={id} role="group" aria-label={s.label} hidden={!open} className="menu-links">
              {s.entries.map(link)}
            </div>
          </div>
        )
      })}
      {menu.bottom.map(link)}
    </>
  )
}
