/**
 * A portal's logo: the current one (served to guests at /portal/{slug}/logo),
 * upload (PNG, JPEG or GIF up to 256 KiB; the server checks the type by the
 * file's first bytes and its size: a refusal shows under the input) and remove.
 */
import { Button, FileInput, Group, Image, Stack, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, putFile } from '../api/client'
import { useI18n } from '../i18n'
import type { Portal } from './portal-data'

const TYPES = ['image/png', 'image/jpeg', 'image/gif']

export function PortalBrandingLogo({ portal, readOnly }: { portal: Portal; readOnly: boolean }) {
  const { t } = useI18n()
  const p = t.portal
  const qc = useQueryClient()
  // Bumped after each change, so the browser asks for the new image rather than showing its cached one.
  const [version, setVersion] = useState(() => portal.updated_at)
  const [has, setHas] = useState(portal.has_logo)
  const upload = useMutation({
    mutationFn: (f: File) => putFile('/api/v1/captive-portal/portals/{portal_id}/logo', { portal_id: portal.id }, f, f.type || 'application/octet-stream'),
    onSuccess: async () => {
      setHas(true)
      setVersion(String(Date.now()))
      await qc.invalidateQueries({ queryKey: ['portal'] })
    },
  })
  const remove = useMutation({
    mutationFn: () => api.delete('/api/v1/captive-portal/portals/{portal_id}/logo', { params: { portal_id: portal.id } }),
    onSuccess: async () => {
      setHas(false)
      await qc.invalidateQueries({ queryKey: ['portal'] })
    },
  })
  const error = upload.error ?? remove.error
  return (
    <Stack gap="xs" data-testid="portal-logo">
      <Text size="sm" fw={500}>{p.logo}</Text>
      {has ? <Image src={`${portal.logo_url ?? `/portal/${encodeURIComponent(portal.slug)}/logo`}?v=${encodeURIComponent(version)}`} alt={p.logoAlt(portal.name)} h={64} w="auto" fit="contain" /> : <Text size="sm" c="dimmed">{p.logoNone}</Text>}
      {!readOnly && (
        <Group align="flex-end">
          <FileInput label={p.logoUpload} name="logo" description={p.logoHint} accept={TYPES.join(',')} clearable={false} value={null} w={280}
            onChange={(f) => f && upload.mutate(f)} error={error instanceof Error ? error.message : undefined} disabled={upload.isPending} />
          {has && <Button variant="default" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>{p.logoRemove}</Button>}
        </Group>
      )}
      {upload.isSuccess && <Text size="sm" role="status">{p.logoUploaded}</Text>}
    </Stack>
  )
}
