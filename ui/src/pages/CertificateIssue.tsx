/**
 * Issue a certificate under a CA and a template: from a CSR pasted in, or
 * with a key the server generates (for a device that cannot make a CSR).
 * A generated key is never shown: it leaves the server once, through the
 * one-time download link made right after (DownloadLink), and the dialog
 * says so before it closes. A refusal (a CSR the template does not allow…)
 * shows under its input.
 */
import { Alert, Button, Group, Modal, SegmentedControl, Select, Stack, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { DownloadLink } from './DownloadLink'
import { LEAF_KEY_ALGORITHMS, useTemplates, type Ca, type Certificate } from './pki-data'

const FIELDS = ['ca_id', 'template_id', 'csr', 'key_algorithm', 'subject', 'subject.CN', 'subject.O', 'san', ...Array.from({ length: 20 }, (_, i) => `san[${i}].value`)]
type SanType = 'dns' | 'ip' | 'email' | 'uri'
const PREFIX: Record<string, SanType> = { dns: 'dns', ip: 'ip', email: 'email', uri: 'uri' }

/** One name a line: `DNS:a.example.net`, `IP:10.0.0.1`, `email:…`, `URI:…`; a bare name is a DNS name. */
export function parseSans(text: string): { type: SanType; value: string }[] {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
    const m = /^([A-Za-z]+):(.+)$/.exec(l)
    const type = m && PREFIX[m[1].toLowerCase()]
    return type ? { type, value: m[2].trim() } : { type: 'dns' as const, value: l }
  })
}

export function CertificateIssue({ cas, onClose, onIssued }: { cas: Ca[]; onClose(): void; onIssued(c: Certificate): void }) {
  const { t } = useI18n()
  const qc = useQueryClient()
  const templates = useTemplates()
  const [mode, setMode] = useState<'csr' | 'generate'>('csr')
  // Once the key's link is made the key is off the server: the warning about it would be stale.
  const [linked, setLinked] = useState(false)
  const [v, setV] = useState({ ca: cas.length === 1 ? cas[0].id : null as string | null, template: null as string | null, csr: '', key: 'ECDSA-P256' as string, CN: '', O: '', san: '' })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const issue = useMutation({
    mutationFn: () => {
      const common = { ca_id: v.ca ?? '', template_id: v.template ?? '' }
      if (mode === 'csr') return api.post('/api/v1/pki/certificates', { body: { ...common, csr: v.csr } })
      const subject = { ...(v.CN && { CN: v.CN }), ...(v.O && { O: v.O }) } as { CN: string; O?: string }
      return api.post('/api/v1/pki/certificates/generate', { body: { ...common, key_algorithm: v.key as (typeof LEAF_KEY_ALGORITHMS)[number], subject, san: parseSans(v.san) } })
    },
    onSuccess: async (c) => {
      await qc.invalidateQueries({ queryKey: ['pki', 'certificates'] })
      // From a CSR the requester holds the key: done. A generated key waits for its one link, below.
      if (mode === 'csr') {
        onIssued(c)
        onClose()
      }
    },
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    issue.mutate()
  }
  const err = (...f: string[]) => f.map((x) => fieldError(issue.error, x)).find(Boolean)
  const tpl = templates.data?.find((x) => x.id === v.template)
  const generated = mode === 'generate' ? issue.data : undefined
  const close = () => {
    if (generated) onIssued(generated)
    onClose()
  }
  return (
    <Modal opened onClose={close} title={t.pki.certs.issue} size="lg">
      {generated ? (
        <Stack data-testid="issued-generated">
          <Alert color="green" role="status">{t.pki.issue.issued(generated.subject)}</Alert>
          {!linked && <Alert color="orange" title={t.pki.issue.keyWarningTitle}>{t.pki.issue.keyWarning}</Alert>}
          <DownloadLink certificate={generated} withKey onMade={() => setLinked(true)} />
          <Group justify="flex-end"><Button variant="default" onClick={close}>{t.pki.issue.done}</Button></Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate data-testid="issue-form">
          <Stack>
            <SegmentedControl value={mode} onChange={(m) => { setMode(m as 'csr' | 'generate'); issue.reset() }} data={[{ value: 'csr', label: t.pki.issue.fromCsr }, { value: 'generate', label: t.pki.issue.generate }]} />
            {/* A generated key's refusals by the template come at `csr` (the request the server made): no input here shows them, the alert does. */}
            <ErrorAlert error={issue.error} fields={mode === 'csr' ? FIELDS : FIELDS.filter((f) => f !== 'csr')} />
            <Group grow align="flex-start">
              <Select label={t.pki.ca} required searchable data={cas.map((c) => ({ value: c.id, label: c.name }))} value={v.ca} onChange={(x) => set('ca', x)} error={err('ca_id')} allowDeselect={false} data-autofocus />
              <Select label={t.pki.template} required searchable data={(templates.data ?? []).map((x) => ({ value: x.id, label: x.name }))} value={v.template} onChange={(x) => set('template', x)} error={err('template_id')} allowDeselect={false} />
            </Group>
            {tpl && <Text size="xs" c="dimmed" data-testid="template-summary">{t.pki.issue.templateSummary(tpl.validity_days, tpl.name_patterns.join(', '), tpl.san_types.join(', ') || t.common.none, tpl.extended_key_usage.join(', ') || t.common.none)}</Text>}
            {mode === 'csr' ? (
              <Textarea label={t.pki.issue.csr} name="csr" required autosize minRows={6} maxRows={14} ff="monospace" placeholder="-----BEGIN CERTIFICATE REQUEST-----" description={t.pki.issue.csrHint} value={v.csr} onChange={(e) => set('csr', e.currentTarget.value)} error={err('csr')} />
            ) : (
              <>
                <Group grow align="flex-start">
                  <TextInput label={t.pki.cn} name="subject.CN" value={v.CN} onChange={(e) => set('CN', e.currentTarget.value)} error={err('subject.CN', 'subject')} />
                  <TextInput label={t.pki.o} name="subject.O" value={v.O} onChange={(e) => set('O', e.currentTarget.value)} error={err('subject.O')} />
                </Group>
                <Textarea label={t.pki.san} name="san" autosize minRows={2} ff="monospace" placeholder={'sw1.example.net\nIP:10.0.0.1'} description={t.pki.issue.sanHint} value={v.san} onChange={(e) => set('san', e.currentTarget.value)} error={err('san', ...FIELDS.filter((f) => f.startsWith('san[')))} />
                <Select label={t.pki.keyAlgorithm} data={[...LEAF_KEY_ALGORITHMS]} value={v.key} onChange={(x) => set('key', x ?? 'ECDSA-P256')} allowDeselect={false} error={err('key_algorithm')} />
              </>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>{t.common.cancel}</Button>
              <Button type="submit" loading={issue.isPending}>{t.pki.issue.submit}</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  )
}
