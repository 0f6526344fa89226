/**
 * Make a CA (a self-signed root, or an issuing CA signed by a root made
 * here: the API's two kinds), its key generated on the server; or import
 * one (its PEM chain and unencrypted key, checked by the server). A
 * refusal shows under its input (`subject.CN`, `parent_id`, `private_key`…).
 */
import { Button, Group, Modal, NumberInput, SegmentedControl, Select, Stack, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { CA_KEY_ALGORITHMS, type Ca } from './pki-data'
import { useAllowed } from '../components/crud'

const FIELDS = ['name', 'subject', 'subject.CN', 'subject.O', 'subject.OU', 'subject.C', 'key_algorithm', 'validity_days', 'parent_id', 'certificate_chain', 'private_key']

export function CaForm({ roots, onClose, onCreated }: { roots: Ca[]; onClose(): void; onCreated(ca: Ca): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/pki/cas')
  const qc = useQueryClient()
  const [mode, setMode] = useState<'create' | 'import'>('create')
  const [v, setV] = useState({ name: '', CN: '', O: '', OU: '', C: '', key: 'ECDSA-P256' as string, days: 3650 as number | string, parent: null as string | null, chain: '', privateKey: '' })
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((o) => ({ ...o, [k]: x }))
  const save = useMutation({
    mutationFn: () => {
      if (mode === 'import') return api.post('/api/v1/pki/cas/import', { body: { name: v.name, certificate_chain: v.chain, private_key: v.privateKey } })
      // Empty attributes are left out: the API refuses an empty one.
      const subject = { CN: v.CN, ...(v.O && { O: v.O }), ...(v.OU && { OU: v.OU }), ...(v.C && { C: v.C }) }
      return api.post('/api/v1/pki/cas', { body: { name: v.name, subject, key_algorithm: v.key as (typeof CA_KEY_ALGORITHMS)[number], validity_days: Number(v.days), parent_id: v.parent } })
    },
    onSuccess: async (ca) => {
      await qc.invalidateQueries({ queryKey: ['pki', 'cas'] })
      onCreated(ca)
      onClose()
    },
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    save.mutate()
  }
  const err = (f: string) => fieldError(save.error, f)
  return (
    <Modal opened onClose={onClose} title={t.pki.cas.add} size="lg">
      <form onSubmit={submit} noValidate data-testid="ca-form">
        <Stack>
          <SegmentedControl value={mode} onChange={(m) => { setMode(m as 'create' | 'import'); save.reset() }} data={[{ value: 'create', label: t.pki.cas.modeCreate }, { value: 'import', label: t.pki.cas.modeImport }]} />
          <ErrorAlert error={save.error} fields={FIELDS} />
          <TextInput label={t.pki.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} />
          {mode === 'create' ? (
            <>
              <Select label={t.pki.cas.parent} data={[{ value: '', label: t.pki.cas.selfSigned }, ...roots.map((r) => ({ value: r.id, label: r.name }))]} value={v.parent ?? ''} onChange={(x) => set('parent', x || null)} error={err('parent_id')} allowDeselect={false}
                description={v.parent ? t.pki.cas.issuingHint : t.pki.cas.rootHint} />
              <Group grow align="flex-start">
                <TextInput label={t.pki.cn} name="subject.CN" required value={v.CN} onChange={(e) => set('CN', e.currentTarget.value)} error={err('subject.CN') ?? err('subject')} />
                <TextInput label={t.pki.o} name="subject.O" value={v.O} onChange={(e) => set('O', e.currentTarget.value)} error={err('subject.O')} />
              </Group>
              <Group grow align="flex-start">
                <TextInput label={t.pki.ou} name="subject.OU" value={v.OU} onChange={(e) => set('OU', e.currentTarget.value)} error={err('subject.OU')} />
                <TextInput label={t.pki.c} name="subject.C" placeholder="NL" maxLength={2} value={v.C} onChange={(e) => set('C', e.currentTarget.value.toUpperCase())} error={err('subject.C')} />
              </Group>
              <Group grow align="flex-start">
                <Select label={t.pki.keyAlgorithm} data={[...CA_KEY_ALGORITHMS]} value={v.key} onChange={(x) => set('key', x ?? 'ECDSA-P256')} allowDeselect={false} error={err('key_algorithm')} />
                <NumberInput label={t.pki.validityDays} name="validity_days" min={1} max={36500} value={v.days} onChange={(x) => set('days', x)} error={err('validity_days')} />
              </Group>
              <Text size="xs" c="dimmed">{t.pki.cas.keyHint}</Text>
            </>
          ) : (
            <>
              <Textarea label={t.pki.cas.chain} name="certificate_chain" required autosize minRows={4} maxRows={10} ff="monospace" placeholder="-----BEGIN CERTIFICATE-----" value={v.chain} onChange={(e) => set('chain', e.currentTarget.value)} error={err('certificate_chain')} />
              <Textarea label={t.pki.cas.privateKey} name="private_key" required autosize minRows={4} maxRows={10} ff="monospace" placeholder="-----BEGIN PRIVATE KEY-----" description={t.pki.cas.privateKeyHint} value={v.privateKey} onChange={(e) => set('privateKey', e.currentTarget.value)} error={err('private_key')} />
            </>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>{t.common.cancel}</Button>
            <Button type="submit" loading={save.isPending}>{mode === 'import' ? t.pki.cas.import : t.common.create}</Button>
          </Group>
          {save.isPending && mode === 'create' && v.key.startsWith('RSA') && <Text size="sm" c="dimmed" role="status">{t.pki.cas.generating}</Text>}
        </Stack>
      </form>
    </Modal>
  )
}
