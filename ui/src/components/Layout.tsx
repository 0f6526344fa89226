/**
 * The frame of every signed-in page: the menu in sections (NavMenu.tsx; a drawer below 992 px
 * (Mantine's md), so a tablet in portrait keeps the width for tables), the header with the
 * quick search (Ctrl+K), the language switch and sign-out, and the footer with the platform version and edition (Community, Pro).
 */
import { AppShell, Burger, Button, Group, ScrollArea, Text, VisuallyHidden } from '@mantine/core'
import { useDisclosure, useMediaQuery } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import type { MouseEvent, ReactNode } from 'react'
import { readiness } from '../api/client'
import { useAuth } from '../auth'
import { useI18n } from '../i18n'
import { confirmLeave, Link } from '../router'
import { LanguageSwitch } from './LanguageSwitch'
import { NavMenu } from './NavMenu'
import { QuickSearch, QuickSearchKeys, useQuickSearchKey } from './QuickSearch'

export function Layout({ children }: { children: ReactNode }) {
  const { t } = useI18n()
  const auth = useAuth()
  const [opened, { toggle, close }] = useDisclosure()
  // Below md the closed menu is only moved off screen: inert keeps Tab and screen readers out of it.
  const narrow = useMediaQuery('(max-width: 62em)')
  const ready = useQuery({ queryKey: ['ready'], queryFn: readiness, staleTime: 60_000 })
  const [searching, { open: openSearch, close: closeSearch }] = useDisclosure()
  useQuickSearchKey(openSearch)
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'md', collapsed: { mobile: !opened } }} footer={{ height: 36 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <a href="#main" className="skip-link" onClick={skipToMain}>{t.app.skip}</a>
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="sm" aria-label={t.app.menu} />
            <Text fw={700} size="lg">{t.app.title}</Text>
          </Group>
          <Group wrap="nowrap" gap="sm">
            <Button variant="default" size="xs" onClick={openSearch} aria-keyshortcuts="Control+K Meta+K" data-testid="quick-search-open" rightSection={<Text span visibleFrom="sm" size="xs"><QuickSearchKeys /></Text>}>
              {t.menu.search.open}
            </Button>
            <LanguageSwitch />
            <Text size="sm" visibleFrom="sm" component={Link} href="/account" data-testid="whoami" c="inherit" td="none">{auth.me?.username}</Text>
            {/* Unsaved work (the settings) asks first: cancel keeps the session and the edits. */}
            <Button variant="default" size="xs" onClick={() => void confirmLeave('sign-out').then((ok) => (ok ? auth.signOut() : undefined))} data-testid="sign-out">{t.app.signOut}</Button>
          </Group>
        </Group>
      </AppShell.Header>
      {/* The menu scrolls on its own, between the header and the footer: at 1280×800, in Russian, nothing is under the footer. */}
      <AppShell.Navbar p="xs" component="nav" aria-label={t.app.menu} inert={narrow && !opened}>
        <AppShell.Section grow component={ScrollArea} type="auto" offsetScrollbars="y" data-testid="menu-scroll">
          <NavMenu onNavigate={close} />
        </AppShell.Section>
      </AppShell.Navbar>
      <QuickSearch opened={searching} onClose={closeSearch} />
      <AppShell.Main id="main" tabIndex={-1}>{children}</AppShell.Main>
      <AppShell.Footer px="md">
        <Group h="100%" justify="space-between">
          {/* The plugins and their versions on hover: the edition is a list of plugins (system info shows them too). */}
          <Text size="xs" c="dimmed" data-testid="footer-version" title={ready.data?.plugins.map((p) => `${p.id} ${p.version}`).join(', ')}>
            {ready.data ? t.app.version(ready.data.version, ready.data.edition.name) : <VisuallyHidden>{t.common.loading}</VisuallyHidden>}
          </Text>
          {auth.me?.docs_enabled && <Text size="xs" c="dimmed" component="a" href="/docs" visibleFrom="sm">API /api/v1</Text>}
        </Group>
      </AppShell.Footer>
    </AppShell>
  )
}

/**
 * The skip link moves the focus to the page's content itself: following `#main` would leave the
 * hash in the URL, and a second use on the same screen would not move the focus at all.
 */
function skipToMain(e: MouseEvent<HTMLAnchorElement>) {
  e.preventDefault()
  document.getElementById('main')?.focus()
}
