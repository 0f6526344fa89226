/**
 * On the deploys screen: the FreeRADIUS files of the active release (GET
 * /radius/config/preview), secrets masked; "Reveal secrets" asks again with
 * `reveal=true`, offered only to a user holding `config.reveal` (the server
 * refuses it to others with 403 anyway).
 */
import { Accordion, Button, Code, Group, Loader, Paper, Stack, Switch, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client'
import { useAuth } from '../auth'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'

export function RadiusConfigPreview() {
  const { t, language } = useI18n()
  const auth = useAuth()
  const [shown, setShown] = useState(false)
  const [reveal, setReveal] = useState(false)
  const q = useQuery({ queryKey: ['radius-config-preview', reveal], queryFn: () => api.get('/api/v1/radius/config/preview', { query: { reveal } }), enabled: shown, gcTime: 0 })
  return (
    <Paper withBorder p="md" data-testid="radius-preview">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">{t.config.radiusPreview}</Title>
          {!shown && <Button variant="light" onClick={() => setShown(true)}>{t.config.radiusPreviewShow}</Button>}
          {shown && auth.can('config.reveal') && <Switch label={t.config.reveal} checked={reveal} onChange={(e) => setReveal(e.currentTarget.checked)} />}
        </Group>
        {shown && q.isFetching && <Loader size="sm" aria-label={t.common.loading} />}
        <ErrorAlert error={q.error} />
        {q.data && !q.data.deployed && <Text c="dimmed">{q.data.detail}</Text>}
        {q.data?.deployed && (
          <>
            <Text size="sm">{t.config.release(q.data.release ?? '')} · {when(q.data.activated_at, language)} · <b>{reveal ? t.config.revealed : t.config.masked}</b></Text>
            <Accordion multiple variant="contained">
              {q.data.files.map((f) => (
                <Accordion.Item key={f.path} value={f.path}>
                  <Accordion.Control>{t.config.file(f.path, f.size, f.mode)}</Accordion.Control>
                  <Accordion.Panel><Code block style={{ maxHeight: 400, overflow: 'auto' }}>{f.content}</Code></Accordion.Panel>
                </Accordion.Item>
              ))}
            </Accordion>
          </>
        )}
      </Stack>
    </Paper>
  )
}
