/**
 * The guest's landing page as the server renders it for this portal
 * (GET /captive-portal/portals/{id}/preview?lang=), in English or Russian.
 * The HTML is fetched with the session (its cookie) and shown in a frame that is
 * sandboxed with nothing allowed: no script runs in it, it has no origin (so
 * it reaches neither the console's storage nor its token), and its forms do
 * not submit. Whatever an administrator typed into the texts is the
 * server's to escape; the console never inserts that HTML into its own page.
 */
import { Button, Group, Loader, SegmentedControl, Stack, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { fetchText } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useI18n, type Language } from '../i18n'
import type { Portal } from './portal-data'

export function PortalPreview({ portal }: { portal: Portal }) {
  const { t, language } = useI18n()
  const p = t.portal
  const [lang, setLang] = useState<Language>(language)
  const html = useQuery({
    queryKey: ['portal', 'preview', portal.id, lang],
    queryFn: () => fetchText('/api/v1/captive-portal/portals/{portal_id}/preview', { portal_id: portal.id }, { lang }),
    staleTime: 0,
  })
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <SegmentedControl aria-label={t.lang.label} value={lang} onChange={(x) => setLang(x as Language)} data={(['en', 'ru'] as const).map((l) => ({ value: l, label: t.lang[l] }))} />
        <Button variant="default" size="xs" loading={html.isFetching} onClick={() => void html.refetch()}>{p.previewRefresh}</Button>
      </Group>
      <Text size="xs" c="dimmed">{p.previewNote}</Text>
      <ErrorAlert error={html.error} />
      {html.isPending && <Loader size="sm" aria-label={t.common.loading} />}
      {html.data !== undefined && (
        // A phone-sized frame: the page is made for one. sandbox="" allows nothing (scripts, forms, same origin).
        <iframe data-testid="portal-preview" title={p.previewTitle(portal.name, t.lang[lang])} sandbox="" srcDoc={html.data}
          style={{ width: 390, maxWidth: '100%', height: 640, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 8, alignSelf: 'center', background: 'white' }} />
      )}
    </Stack>
  )
}
