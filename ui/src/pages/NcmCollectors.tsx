/**
 * Configuration collectors: each one's state, last contact and address, the release it runs and
 * whether it speaks this core's contract (a mismatch names what it sent: nothing from it is stored).
 * "Add collector" answers a one-time enrollment token, shown once with the command to run on the
 * collector's host; "New token" re-enrolls one (new keys); revoke and delete end its access, one
 * at a time (no bulk action). Searched, sorted by name or last contact, paged, all in the address.
 */
import { Alert, Badge, Button, Code, CopyButton, Group, Modal, Stack, Table, Text, TextInput, Textarea, Tooltip } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useAuth } from '../auth'
import { FormDialog, PageTitle, useAllowed } from '../components/crud'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { when } from './format'
import { type Collector, createCollector, deleteCollector, type Enrollment, enrollCommand, newEnrollmentToken, NEUTRAL, REMOVED, revokeCollector, STATE_COLOR, useCollectorPage } from './ncm-data'
import { useListState } from '../components/list-state'
import { SortTh, TableFooter } from '../components/ListTable'
import { useConfirm } from '../components/Confirm'

export function NcmCollectors() {
  const { t, language } = useI18n()
  const ask = useConfirm()
  const n = t.ncm
  const auth = useAuth()
  const qc = useQueryClient()
  const canManage = auth.can('ncm.collectors.manage')
  // Page, size, sort and search in the address (the route's names).
  const state = useListState({ sorts: ['name', 'last_contact_at'] as const, sort: 'name' })
  const list = useCollectorPage(state.query)
  const [adding, setAdding] = useState(false)
  const [token, setToken] = useState<Enrollment | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['ncm', 'collectors'] })
  const act = useMutation({
    mutationFn: async (o: { c: Collector; what: 'token' | 'revoke' | 'delete' }) => {
      if (o.what === 'token') return newEnrollmentToken(o.c)
      if (o.what === 'revoke') await revokeCollector(o.c.id)
      else await deleteCollector(o.c.id)
      return null
    },
    onSuccess: async (r) => {
      if (r) setToken(r)
      await refresh()
    },
  })
  return (
    <Stack>
      <PageTitle title={n.collectors} add={canManage && { label: n.add, onClick: () => setAdding(true) }} />
      <Text size="sm" c="dimmed">{n.collectorsHint}</Text>
      <TextInput aria-label={t.common.search} placeholder={t.common.search} type="search" value={state.search} onChange={(e) => state.setSearch(e.currentTarget.value)} w={320} maw="100%" />
      <ErrorAlert error={list.error ?? act.error} />
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label={n.collectors} data-testid="ncm-collectors">
          <Table.Thead>
            <Table.Tr>
              <SortTh list={state} sort="name">{n.name}</SortTh><Table.Th>{n.state}</Table.Th><SortTh list={state} sort="last_contact_at">{n.lastContact}</SortTh><Table.Th>{n.address}</Table.Th>
              <Table.Th>{n.release}</Table.Th><Table.Th>{n.contract}</Table.Th>{canManage && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((c) => (
              <Table.Tr key={c.id} data-collector={c.name}>
                <Table.Td fw={500}>
                  {c.name}
                  {c.description && <Text size="xs" c="dimmed">{c.description}</Text>}
                </Table.Td>
                <Table.Td><Badge variant="filled" color={c.removed ? NEUTRAL : (STATE_COLOR[c.state] ?? NEUTRAL)} data-testid="collector-state">{c.removed ? n.deleted : (n.states[c.state] ?? c.state)}</Badge></Table.Td>
                <Table.Td>{when(c.last_contact_at, language)}</Table.Td>
                <Table.Td ff="monospace">{c.last_address ?? t.common.none}</Table.Td>
                <Table.Td ff="monospace">{c.release ?? t.common.none}</Table.Td>
                <Table.Td>
                  <Badge variant="filled" color={STATE_COLOR[c.contract_state] ?? NEUTRAL} data-testid="collector-contract">{n.contracts[c.contract_state] ?? c.contract_state}</Badge>
                  {c.contract_state === 'mismatch' && c.contract_seen && <Text size="xs" c={REMOVED}>{n.contractSeen(c.contract_seen)}</Text>}
                  {c.last_refusal_code && <Text size="xs" c="dimmed">{n.refused(c.last_refusal_code)} ({when(c.last_refusal_at, language)})</Text>}
                </Table.Td>
                {canManage && (
                  <Table.Td>
                    {!c.removed && <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-sm" variant="subtle" onClick={() => act.mutate({ c, what: 'token' })} aria-label={`${n.newToken} ${c.name}`}>{n.newToken}</Button>
                      {c.state !== 'revoked' && (
                        <Button size="compact-sm" variant="subtle" color="red" aria-label={`${n.revoke} ${c.name}`} onClick={() => void ask({ title: t.confirm.title(n.revoke, c.name), message: n.revokeQuestion(c.name), confirmLabel: n.revoke }).then((ok) => ok && act.mutate({ c, what: 'revoke' }))}>{n.revoke}</Button>
                      )}
                      <Button size="compact-sm" variant="subtle" color="red" aria-label={`${t.common.delete} ${c.name}`} onClick={() => void ask({ title: t.confirm.title(t.common.delete, c.name), message: n.deleteQuestion(c.name), confirmLabel: t.common.delete }).then((ok) => ok && act.mutate({ c, what: 'delete' }))}>{t.common.delete}</Button>
                    </Group>}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data && list.data.items.length === 0 && <Text c="dimmed">{state.q ? t.common.nothingFound : n.empty}</Text>}
      <TableFooter list={state} data={list.data} testId="ncm-collectors-total" />
      {adding && (
        <AddCollector
          onClose={() => setAdding(false)}
          onCreated={async (e) => {
            setAdding(false)
            setToken(e)
            await refresh()
          }}
        />
      )}
      {token && <TokenDialog enrollment={token} onClose={() => setToken(null)} />}
    </Stack>
  )
}

function AddCollector({ onClose, onCreated }: { onClose(): void; onCreated(e: Enrollment): void }) {
  const { t } = useI18n()
  const n = t.ncm
  const allowed = useAllowed('POST /api/v1/ncm/collectors')
  const [v, setV] = useState({ name: '', description: '' })
  const save = useMutation({ mutationFn: () => createCollector({ name: v.name, description: v.description || null }), onSuccess: onCreated })
  return (
    <FormDialog title={n.add} testId="collector-form" error={save.error} fields={['name', 'description']} pending={save.isPending} editing={false} onClose={onClose} onSubmit={() => save.mutate()}>
      <TextInput label={n.name} name="name" description={allowed('name')} required data-autofocus value={v.name} onChange={(e) => setV({ ...v, name: e.currentTarget.value })} error={fieldError(save.error, 'name')} />
      <Textarea label={n.description} name="description" autosize minRows={1} value={v.description} onChange={(e) => setV({ ...v, description: e.currentTarget.value })} error={fieldError(save.error, 'description')} />
    </FormDialog>
  )
}

/** The token, once: it is kept only hashed on the server, so closing this dialog loses it. */
function TokenDialog({ enrollment, onClose }: { enrollment: Enrollment; onClose(): void }) {
  const { t, language } = useI18n()
  const n = t.ncm
  const command = enrollCommand(enrollment.enrollment_token, enrollment.collector.name)
  return (
    <Modal opened onClose={onClose} title={`${n.tokenTitle}: ${enrollment.collector.name}`} size="xl" closeButtonProps={{ 'aria-label': t.config.close }}>
      <Stack data-testid="enrollment-token">
        <Alert color="yellow">{n.tokenOnce}</Alert>
        <Code block tabIndex={0} aria-label={n.tokenTitle} data-testid="enroll-command">{command}</Code>
        <Text size="sm">{n.tokenExpires(when(enrollment.expires_at, language))}</Text>
        <Group justify="flex-end">
          <CopyButton value={command}>
            {({ copied, copy }) => (
              <Tooltip label={n.copied} opened={copied}>
                <Button variant="default" onClick={copy}>{n.copy}</Button>
              </Tooltip>
            )}
          </CopyButton>
          <Button onClick={onClose} data-autofocus>{n.done}</Button>
        </Group>
      </Stack>
    </Modal>
  )
}
