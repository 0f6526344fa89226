/**
 * Import devices or users from a CSV file, in a dialog, as the endpoint import does: "Check only"
 * judges every row and writes nothing; otherwise the import is atomic (one refused row and nothing
 * is written) unless "Write the rows that pass" is on. The server's report: the counts, then every
 * row with its line, its name, the result and, for a refused one, the column and why.
 */
import { Badge, Button, Checkbox, FileInput, Group, Modal, Stack, Table, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { upload } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'

const KINDS = {
  devices: { path: '/api/v1/devices/import', invalidate: ['devices'] },
  users: { path: '/api/v1/users/import', invalidate: ['users'] },
} as const

export function CsvImport({ kind, onClose }: { kind: keyof typeof KINDS; onClose(): void }) {
  const { t } = useI18n()
  const w = t.imports
  const qc = useQueryClient()
  const [file, setFile] = useState<File | null>(null)
  const [dryRun, setDryRun] = useState(false)
  const [partial, setPartial] = useState(false)
  const run = useMutation({
    mutationFn: () => upload(KINDS[kind].path, file!, 'text/csv', { dry_run: dryRun, atomic: !partial }),
    onSuccess: () => qc.invalidateQueries({ queryKey: [...KINDS[kind].invalidate] }),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (file) run.mutate()
  }
  const r = run.data
  return (
    <Modal opened onClose={onClose} title={kind === 'devices' ? w.devicesTitle : w.usersTitle} size="xl">
      <form onSubmit={submit} noValidate data-testid={`${kind}-import`}>
        <Stack>
          <Text size="sm" c="dimmed">{kind === 'devices' ? w.devicesHint : w.usersHint}</Text>
          <ErrorAlert error={run.error} />
          <FileInput label={w.file} name="file" accept=".csv,text/csv" required data-autofocus value={file} onChange={setFile} clearable />
          <Checkbox label={w.dryRun} checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
          <Checkbox label={w.partial} checked={partial} onChange={(e) => setPartial(e.currentTarget.checked)} />
          {r && (
            <Stack gap="xs" data-testid="import-report" role="status">
              <Group gap="xs">
                <Badge color={r.applied ? 'green' : 'gray'} tt="none">{r.applied ? w.applied : w.notApplied}</Badge>
                <Text size="sm">{w.counts(r.created, r.updated, r.unchanged, r.skipped, r.refused)}</Text>
              </Group>
              <Table.ScrollContainer minWidth={560} mah={320}>
                <Table aria-label={w.rows} striped>
                  <Table.Thead><Table.Tr><Table.Th>{w.line}</Table.Th><Table.Th>{w.key}</Table.Th><Table.Th>{w.outcome}</Table.Th><Table.Th>{w.column}</Table.Th><Table.Th>{w.why}</Table.Th></Table.Tr></Table.Thead>
                  <Table.Tbody>
                    {r.results.map((x) => (
                      <Table.Tr key={x.row}>
                        <Table.Td>{x.line}</Table.Td>
                        <Table.Td ff="monospace">{x.key ?? t.common.none}</Table.Td>
                        <Table.Td><Badge size="sm" variant="light" color={x.outcome === 'refused' ? 'red' : x.outcome === 'created' || x.outcome === 'updated' ? 'green' : 'gray'} tt="none">{w.outcomes[x.outcome]}</Badge></Table.Td>
                        <Table.Td ff="monospace">{x.field ?? ''}</Table.Td>
                        <Table.Td>{x.detail ?? ''}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Stack>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>{r ? w.close : t.common.cancel}</Button>
            <Button type="submit" loading={run.isPending} disabled={!file}>{w.run}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
