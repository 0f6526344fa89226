/**
 * A captive portal's dialog, in tabs: general (name, slug, methods), access
 * (the NAS and SSIDs it serves, the endpoint groups it gives, durations,
 * device limit, onboarding), registration (the self-registration fields, the
 * sponsors), branding (colours, texts per language, terms, the logo) and, for
 * a saved portal, the preview of the guest's landing page. An error the
 * server puts at a field opens the tab holding that input.
 */
import { ActionIcon, Button, Checkbox, ColorInput, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Tabs, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { api, ApiError } from '../api/client'
import { FormDialog, useAllowed } from '../components/crud'
import { SearchSelect } from '../components/SearchSelect'
import { useI18n } from '../i18n'
import { endpointGroupPicker, userGroupPicker } from './pickers'
import { PortalBrandingLogo } from './PortalLogo'
import { PortalPreview } from './PortalPreview'
import { lines, METHODS, type Portal } from './portal-data'

type Method = (typeof METHODS)[number]
type Field = { name: string; en: string; ru: string; required: boolean }
type Texts = { title: string; welcome: string; terms: string }

const TAB_OF: [RegExp, string][] = [
  [/^(nas_ips|ssids|accept_unsigned_redirect|guest_endpoint_group_id|byod_endpoint_group_id|guest_minutes|byod_days|byod_device_limit|byod_onboarding)/, 'access'],
  [/^(self_registration_fields|sponsor_)/, 'guests'],
  [/^branding/, 'branding'],
]
const tabOf = (field: string) => TAB_OF.find(([re]) => re.test(field))?.[1] ?? 'general'

function initial(p: Portal | null) {
  const texts = (l: 'en' | 'ru'): Texts => ({ title: p?.branding.texts?.[l]?.title ?? '', welcome: p?.branding.texts?.[l]?.welcome ?? '', terms: p?.branding.texts?.[l]?.terms ?? '' })
  return {
    name: p?.name ?? '', slug: p?.slug ?? '', description: p?.description ?? '', enabled: p?.enabled ?? true,
    methods: (p?.methods ?? ['hotspot']) as Method[],
    nas_ips: (p?.nas_ips ?? []).join('\n'), ssids: (p?.ssids ?? []).join('\n'), accept_unsigned_redirect: p?.accept_unsigned_redirect ?? false,
    guest_endpoint_group_id: p?.guest_endpoint_group_id ?? null, byod_endpoint_group_id: p?.byod_endpoint_group_id ?? null,
    guest_minutes: p?.guest_minutes ?? 480, byod_days: (p?.byod_days ?? '') as number | '', byod_device_limit: p?.byod_device_limit ?? 3,
    byod_onboarding: (p?.byod_onboarding ?? 'none') as 'none' | 'certificate',
    fields: (p?.self_registration_fields ?? []).map((f): Field => ({ name: f.name, en: f.label.en, ru: f.label.ru ?? '', required: f.required })),
    sponsor_domains: (p?.sponsor_domains ?? []).join('\n'), sponsor_group_id: p?.sponsor_group_id ?? null, sponsor_link_minutes: p?.sponsor_link_minutes ?? 60,
    primary_colour: p?.branding.primary_colour ?? '', background_colour: p?.branding.background_colour ?? '',
    texts: { en: texts('en'), ru: texts('ru') },
  }
}

export function PortalForm({ portal, readOnly, onClose }: { portal: Portal | null; readOnly: boolean; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/captive-portal/portals')
  const p = t.portal
  const qc = useQueryClient()
  const [v, setV] = useState(() => initial(portal))
  const [tab, setTab] = useState<string | null>('general')
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const setText = (l: 'en' | 'ru', k: keyof Texts, x: string) => setV((o) => ({ ...o, texts: { ...o.texts, [l]: { ...o.texts[l], [k]: x } } }))
  const setField = (i: number, f: Partial<Field>) => setV((o) => ({ ...o, fields: o.fields.map((x, j) => (j === i ? { ...x, ...f } : x)) }))
  const save = useMutation({
    mutationFn: async () => {
      const texts = (l: 'en' | 'ru') => {
        const x = v.texts[l]
        return { title: x.title || undefined, welcome: x.welcome || undefined, terms: x.terms || undefined }
      }
      const body = {
        name: v.name, slug: v.slug, description: v.description || null, enabled: v.enabled, methods: v.methods,
        nas_ips: lines(v.nas_ips), ssids: lines(v.ssids), accept_unsigned_redirect: v.accept_unsigned_redirect,
        guest_endpoint_group_id: v.guest_endpoint_group_id, byod_endpoint_group_id: v.byod_endpoint_group_id,
        guest_minutes: Number(v.guest_minutes), byod_days: v.byod_days === '' ? null : Number(v.byod_days), byod_device_limit: Number(v.byod_device_limit), byod_onboarding: v.byod_onboarding,
        self_registration_fields: v.fields.map((f) => ({ name: f.name, label: f.ru ? { en: f.en, ru: f.ru } : { en: f.en }, required: f.required })),
        sponsor_domains: lines(v.sponsor_domains), sponsor_group_id: v.sponsor_group_id, sponsor_link_minutes: Number(v.sponsor_link_minutes),
        branding: { primary_colour: v.primary_colour.toLowerCase() || undefined, background_colour: v.background_colour.toLowerCase() || undefined, texts: { en: texts('en'), ru: texts('ru') } },
      }
      if (portal) await api.patch('/api/v1/captive-portal/portals/{portal_id}', { params: { portal_id: portal.id }, body })
      else await api.post('/api/v1/captive-portal/portals', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['portal'] })
      onClose()
    },
  })
  const error = save.error instanceof ApiError ? save.error : null
  // The server's field names an input on another tab: show that tab, so the message is seen where it belongs.
  useEffect(() => {
    if (error?.field) setTab(tabOf(error.field))
  }, [error])
  /** The message for the input `name` (also for its items: `nas_ips[2]`, `branding.texts.en.title`). */
  const err = (name: string) => (error?.field && (error.field === name || error.field.startsWith(name + '[') || error.field.startsWith(name + '.')) ? error.message : undefined)
  const shown = error?.field && tabOf(error.field) ? [error.field] : []
  const texts = (l: 'en' | 'ru') => (
    <Stack gap="xs" key={l}>
      <Title order={3} size="h5">{p.texts(t.lang[l])}</Title>
      <TextInput label={p.title} name={`title_${l}`} readOnly={readOnly} value={v.texts[l].title} onChange={(e) => setText(l, 'title', e.currentTarget.value)} error={err(`branding.texts.${l}.title`)} />
      <Textarea label={p.welcome} name={`welcome_${l}`} readOnly={readOnly} autosize minRows={2} value={v.texts[l].welcome} onChange={(e) => setText(l, 'welcome', e.currentTarget.value)} error={err(`branding.texts.${l}.welcome`)} />
      <Textarea label={p.terms} name={`terms_${l}`} readOnly={readOnly} autosize minRows={3} maxRows={10} value={v.texts[l].terms} onChange={(e) => setText(l, 'terms', e.currentTarget.value)} error={err(`branding.texts.${l}.terms`)} />
    </Stack>
  )
  return (
    <FormDialog title={portal ? (readOnly ? portal.name : p.editPortal) : p.addPortal} testId="portal-form" size="xl" error={save.error} fields={shown} pending={save.isPending} editing={!!portal} readOnly={readOnly} onClose={onClose} onSubmit={() => save.mutate()}>
      <Tabs value={tab} onChange={setTab} keepMounted>
        <Tabs.List>
          {(['general', 'access', 'guests', 'branding'] as const).map((x) => <Tabs.Tab key={x} value={x}>{p.tabs[x]}</Tabs.Tab>)}
          <Tabs.Tab value="preview" disabled={!portal}>{p.preview}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="general" pt="sm">
          <Stack>
            <TextInput label={p.name} name="name" description={allowed('name')} required readOnly={readOnly} data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
            <TextInput label={p.slug} name="slug" required readOnly={readOnly} description={p.slugHint(v.slug)} value={v.slug} onChange={(e) => set('slug', e.currentTarget.value)} error={err('slug')} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
            <Textarea label={p.description} name="description" readOnly={readOnly} autosize minRows={2} value={v.description} onChange={(e) => set('description', e.currentTarget.value)} error={err('description')} />
            <Switch label={p.enabled} name="enabled" disabled={readOnly} checked={v.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
            <Checkbox.Group label={p.methodsLabel} value={v.methods} onChange={(x) => set('methods', x as Method[])} error={err('methods')}>
              <Stack gap={6} mt={6}>{METHODS.map((m) => <Checkbox key={m} value={m} name="methods" label={p.methods[m]} disabled={readOnly} />)}</Stack>
            </Checkbox.Group>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="access" pt="sm">
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Textarea label={p.nasIps} name="nas_ips" readOnly={readOnly} description={p.nasIpsHint} autosize minRows={2} value={v.nas_ips} onChange={(e) => set('nas_ips', e.currentTarget.value)} error={err('nas_ips')} />
              <Textarea label={p.ssids} name="ssids" readOnly={readOnly} description={p.ssidsHint} autosize minRows={2} value={v.ssids} onChange={(e) => set('ssids', e.currentTarget.value)} error={err('ssids')} />
            </SimpleGrid>
            <Switch label={p.acceptUnsigned} description={p.acceptUnsignedHint} disabled={readOnly} checked={v.accept_unsigned_redirect} onChange={(e) => set('accept_unsigned_redirect', e.currentTarget.checked)} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <SearchSelect label={p.guestGroup} name="guest_endpoint_group_id" placeholder={p.noGroup} clearable disabled={readOnly} source={endpointGroupPicker} value={v.guest_endpoint_group_id} onChange={(x) => set('guest_endpoint_group_id', x)} error={err('guest_endpoint_group_id')} />
              <NumberInput label={p.guestMinutes} name="guest_minutes" readOnly={readOnly} min={1} value={v.guest_minutes} onChange={(x) => set('guest_minutes', Number(x) || 0)} error={err('guest_minutes')} />
              <SearchSelect label={p.byodGroup} name="byod_endpoint_group_id" placeholder={p.noGroup} clearable disabled={readOnly} source={endpointGroupPicker} value={v.byod_endpoint_group_id} onChange={(x) => set('byod_endpoint_group_id', x)} error={err('byod_endpoint_group_id')} />
              <NumberInput label={p.byodDays} name="byod_days" readOnly={readOnly} description={p.byodDaysHint} min={1} value={v.byod_days} onChange={(x) => set('byod_days', x === '' ? '' : Number(x))} error={err('byod_days')} />
              <NumberInput label={p.deviceLimit} name="byod_device_limit" readOnly={readOnly} min={1} value={v.byod_device_limit} onChange={(x) => set('byod_device_limit', Number(x) || 0)} error={err('byod_device_limit')} />
              <Select label={p.onboarding} name="byod_onboarding" readOnly={readOnly} allowDeselect={false} value={v.byod_onboarding} onChange={(x) => set('byod_onboarding', (x ?? 'none') as 'none')} error={err('byod_onboarding')}
                data={(['none', 'certificate'] as const).map((x) => ({ value: x, label: p.onboardingValues[x] }))} />
            </SimpleGrid>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="guests" pt="sm">
          <Stack>
            <Textarea label={p.sponsorDomains} name="sponsor_domains" readOnly={readOnly} description={p.sponsorDomainsHint} autosize minRows={2} value={v.sponsor_domains} onChange={(e) => set('sponsor_domains', e.currentTarget.value)} error={err('sponsor_domains')} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <SearchSelect label={p.sponsorGroup} name="sponsor_group_id" placeholder={p.noGroup} clearable disabled={readOnly} source={userGroupPicker} value={v.sponsor_group_id} onChange={(x) => set('sponsor_group_id', x)} error={err('sponsor_group_id')} />
              <NumberInput label={p.sponsorLinkMinutes} name="sponsor_link_minutes" readOnly={readOnly} min={1} value={v.sponsor_link_minutes} onChange={(x) => set('sponsor_link_minutes', Number(x) || 0)} error={err('sponsor_link_minutes')} />
            </SimpleGrid>
            <Title order={3} size="h5">{p.fields}</Title>
            {v.fields.map((f, i) => (
              <Group key={i} align="flex-end" wrap="nowrap" data-field-row={i}>
                <TextInput label={p.fieldName} name={`field_name_${i}`} readOnly={readOnly} w={140} value={f.name} onChange={(e) => setField(i, { name: e.currentTarget.value })} error={err(`self_registration_fields[${i}].name`) ?? err(`self_registration_fields[${i}]`)} />
                <TextInput label={p.fieldLabelEn} name={`field_en_${i}`} readOnly={readOnly} flex={1} value={f.en} onChange={(e) => setField(i, { en: e.currentTarget.value })} error={err(`self_registration_fields[${i}].label`)} />
                <TextInput label={p.fieldLabelRu} name={`field_ru_${i}`} readOnly={readOnly} flex={1} value={f.ru} onChange={(e) => setField(i, { ru: e.currentTarget.value })} />
                <Checkbox label={p.fieldRequired} disabled={readOnly} mb={8} checked={f.required} onChange={(e) => setField(i, { required: e.currentTarget.checked })} />
                {!readOnly && <ActionIcon variant="subtle" color="red" mb={4} aria-label={p.removeField(f.name)} onClick={() => set('fields', v.fields.filter((_, j) => j !== i))}>✕</ActionIcon>}
              </Group>
            ))}
            {err('self_registration_fields') && !v.fields.length && <Text c="red" size="sm">{err('self_registration_fields')}</Text>}
            {!readOnly && <Group><Button variant="light" size="compact-sm" onClick={() => set('fields', [...v.fields, { name: '', en: '', ru: '', required: false }])}>{p.addField}</Button></Group>}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="branding" pt="sm">
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <ColorInput label={p.primaryColour} name="primary_colour" readOnly={readOnly} format="hex" value={v.primary_colour} onChange={(x) => set('primary_colour', x)} error={err('branding.primary_colour')} />
              <ColorInput label={p.backgroundColour} name="background_colour" readOnly={readOnly} format="hex" value={v.background_colour} onChange={(x) => set('background_colour', x)} error={err('branding.background_colour')} />
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, md: 2 }}>{texts('en')}{texts('ru')}</SimpleGrid>
            {portal ? <PortalBrandingLogo portal={portal} readOnly={readOnly} /> : <Text size="sm" c="dimmed">{p.logoAfterSave}</Text>}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="preview" pt="sm">
          {portal && tab === 'preview' ? <PortalPreview portal={portal} /> : <Text size="sm" c="dimmed">{p.previewAfterSave}</Text>}
        </Tabs.Panel>
      </Tabs>
    </FormDialog>
  )
}
