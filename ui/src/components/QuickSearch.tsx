/**
 * The quick search (Ctrl+K or ⌘K, or the header's button): the screens of the menu by their label in
 * the language shown, and the records whose lists search by text, of the kinds the user may read
 * (quick-search-sources.ts: devices, device groups, users, user groups, AAA and NAC policy rules,
 * endpoints, NAC sessions, guests, certificates). ↑/↓ choose, Enter opens, Escape closes. A record
 * opens itself (its screen's dialog or drawer) or its list filtered to it: the lists have no page per record.
 * A small dialog of its own: no dependency for what a list and an input do.
 */
import { Kbd, Loader, Modal, Stack, Text, TextInput, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useQueries } from '@tanstack/react-query'
import { useEffect, useId, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useAuth, usePluginRuns } from '../auth'
import { useI18n } from '../i18n'
import { navigate } from '../router'
import { useMenu } from './menu-data'
import { quickSearchSources, uniqueHits, type Hit } from './quick-search-sources'

/** Calls `open` on Ctrl+K (⌘K on a Mac), from anywhere in the console, even from inside an input. */
export function useQuickSearchKey(open: () => void): void {
  useEffect(() => {
    const key = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        open()
      }
    }
    window.addEventListener('keydown', key)
    return () => window.removeEventListener('keydown', key)
  }, [open])
}

/** The records matching `q`, of the kinds the user may read: one list request per kind, in parallel. */
function useRecords(q: string): { hits: Hit[]; loading: boolean } {
  const { t } = useI18n()
  const auth = useAuth()
  const runs = usePluginRuns()
  const on = q.length >= 2
  const sources = quickSearchSources(t, (p) => auth.can(p), runs)
  const results = useQueries({
    queries: sources.map((src) => ({ queryKey: ['quick-search', src.key, q, t.find.disabled], queryFn: () => src.find(q), enabled: on && src.allowed })),
  })
  if (!on) return { hits: [], loading: false }
  return { hits: uniqueHits(results.flatMap((r) => r.data ?? [])), loading: results.some((r) => r.isFetching) }
}

export function QuickSearch({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useI18n()
  const s = t.menu.search
  const menu = useMenu()
  const [text, setText] = useState('')
  // The records are asked for once typing pauses: not one request per key.
  const [debounced] = useDebouncedValue(text.trim(), 250)
  const [active, setActive] = useState(0)
  const listId = useId()
  const screens = useMemo<Hit[]>(() => {
    const q = text.trim().toLocaleLowerCase()
    if (!q) return []
    const all = [
      ...menu.top.map((e) => ({ ...e, detail: '' })),
      ...menu.sections.flatMap((sec) => sec.entries.map((e) => ({ ...e, detail: sec.label }))),
      ...menu.bottom.map((e) => ({ ...e, detail: '' })),
    ]
    return all.filter((e) => e.label.toLocaleLowerCase().includes(q) || e.detail.toLocaleLowerCase().includes(q)).map((e) => ({ ...e, kind: 'screen' as const }))
  }, [text, menu])
  const records = useRecords(debounced)
  const hits = [...screens, ...records.hits]
  useEffect(() => setActive(0), [text, records.hits.length])
  const close = () => {
    setText('')
    onClose()
  }
  const open = (h: Hit | undefined) => {
    if (!h) return
    close()
    navigate(h.href)
  }
  const keys = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (hits.length) setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : hits.length - 1)) % hits.length)
    } else if (e.key === 'Enter') {
      e.preventDefault()
      open(hits[active])
    }
  }
  const optionId = (i: number) => `${listId}-${i}`
  const row = (h: Hit, i: number) => (
    <UnstyledButton
      key={`${h.kind}:${h.href}`}
      id={optionId(i)}
      role="option"
      aria-selected={i === active}
      tabIndex={-1}
      className="quick-search-hit"
      data-kind={h.kind}
      onMouseEnter={() => setActive(i)}
      onClick={() => open(h)}
    >
      <Text size="sm" span>{h.label}</Text>
      {h.detail && <Text size="xs" span className="quick-search-detail">{h.detail}</Text>}
    </UnstyledButton>
  )
  const group = (key: string, label: string, rows: ReactNode[]) => (
    <div role="group" aria-labelledby={`${listId}-${key}`}>
      <Text id={`${listId}-${key}`} size="xs" fw={700} className="quick-search-heading">{label}</Text>
      {rows}
    </div>
  )
  return (
    <Modal opened={opened} onClose={close} title={s.title} size="lg" data-testid="quick-search" closeButtonProps={{ 'aria-label': t.config.close }}>
      <Stack gap="xs">
        <TextInput
          data-autofocus
          aria-label={s.label}
          placeholder={t.find.placeholder}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          onKeyDown={keys}
          role="combobox"
          aria-expanded={hits.length > 0}
          aria-controls={hits.length > 0 ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={hits.length ? optionId(active) : undefined}
          rightSection={records.loading ? <Loader size="xs" aria-label={s.searching} /> : undefined}
        />
        {hits.length > 0 && (
          <div id={listId} role="listbox" aria-label={s.label} className="quick-search-list">
            {screens.length > 0 && group('screens', s.screens, screens.map((h, i) => row(h, i)))}
            {records.hits.length > 0 && group('records', s.records, records.hits.map((h, i) => row(h, screens.length + i)))}
          </div>
        )}
        {text.trim() && !hits.length && !records.loading && <Text size="sm" role="status">{s.nothing}</Text>}
        <Text size="xs" className="quick-search-detail">{s.hint}</Text>
      </Stack>
    </Modal>
  )
}

/** The shortcut as a Mac or anything else shows it. */
export function QuickSearchKeys() {
  const mac = /Mac|iPhone|iPad/.test(navigator.platform)
  return <><Kbd size="xs">{mac ? '⌘' : 'Ctrl'}</Kbd>+<Kbd size="xs">K</Kbd></>
}
