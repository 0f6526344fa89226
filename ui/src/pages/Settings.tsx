/**
 * Settings: every setting of the platform and its loaded plugins (GET /settings), in sections a network
 * engineer reads (sign-in, lockout, directory, second factor, mail, TACACS+, RADIUS, NAC, certificates,
 * logs, deploys…; a plugin the console has no words for gets its own), folded, with a search over the
 * label, key and description in the screen's language. Each setting is edited as a draft kept here, so a
 * folded section or a search keeps what was typed; each section saves its own changes at once
 * (SettingsSection). While anything is unsaved, leaving the page asks first (LeaveGuard).
 */
import { Accordion, Stack, Text, TextInput, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useRef, useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useLeaveGuard } from '../components/LeaveGuard'
import { useI18n } from '../i18n'
import { SettingsSection } from './SettingsSection'
import { isChanged, matches, sectionsOf } from './settings-model'

export function Settings() {
  const { t } = useI18n()
  const auth = useAuth()
  const list = useQuery({ queryKey: ['settings'], queryFn: () => api.get('/api/v1/settings') })
  // `?search=<key>`: the audit trail's link to a changed setting lands on it.
  const [search, setSearch] = useState(() => new URLSearchParams(location.search).get('search') ?? '')
  const [open, setOpen] = useState<string[]>([])
  const [drafts, setDrafts] = useState<Record<string, unknown>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const sections = useMemo(() => sectionsOf(t.settings, list.data ?? []), [t, list.data])
  const shown = sections.map((s) => ({ section: s, shown: search.trim() ? s.settings.filter((x) => matches(t.settings, x, search)) : s.settings })).filter((x) => x.shown.length > 0)
  const unsaved = sections.filter((s) => s.settings.some((x) => Object.hasOwn(drafts, x.key) && isChanged(x, drafts[x.key])))

  useLeaveGuard(unsaved.length > 0, (why) => {
    const names = unsaved.map((s) => s.title).join(', ')
    return why === 'sign-out'
      ? { title: t.guard.signOutTitle, message: t.guard.signOutMessage(names), confirmLabel: t.guard.signOut }
      : { title: t.settings.leaveTitle, message: t.settings.leaveMessage(names), confirmLabel: t.settings.leave }
  })

  const searchFor = (v: string) => {
    setSearch(v)
    // A search opens every section it finds something in.
    if (v.trim()) setOpen(sections.filter((s) => s.settings.some((x) => matches(t.settings, x, v))).map((s) => s.id))
  }
  // A search given in the address opens its sections once the settings have come (once: the user folds them after).
  const linked = useRef(false)
  useEffect(() => {
    if (linked.current || sections.length === 0) return
    linked.current = true
    if (search.trim()) searchFor(search)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the first arrival of the settings matters
  }, [sections])
  const without = <T,>(o: Record<string, T>, keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)))

  return (
    <Stack>
      <Title order={1} size="h2">{t.settings.title}</Title>
      <ErrorAlert error={list.error} />
      <TextInput type="search" label={t.settings.search} placeholder={t.settings.searchPlaceholder} value={search} onChange={(e) => searchFor(e.currentTarget.value)} maw={480} data-testid="settings-search" />
      {list.data && shown.length === 0 && <Text c="dimmed" role="status">{t.settings.noMatch}</Text>}
      <Accordion multiple variant="separated" value={open} onChange={setOpen} chevronPosition="left">
        {shown.map(({ section, shown: rows }) => (
          <SettingsSection
            key={section.id}
            section={section}
            shown={rows}
            drafts={drafts}
            errors={errors}
            canWrite={auth.can('settings.write')}
            onChange={(key, d) => {
              setDrafts((x) => ({ ...x, [key]: d }))
              setErrors((x) => without(x, [key]))
            }}
            onSaved={(saved, refused) => {
              setDrafts((x) => without(x, saved))
              setErrors((x) => ({ ...without(x, saved), ...refused }))
            }}
            onDiscard={(keys) => {
              setDrafts((x) => without(x, keys))
              setErrors((x) => without(x, keys))
            }}
          />
        ))}
      </Accordion>
    </Stack>
  )
}
