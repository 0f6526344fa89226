/**
 * Import endpoints from a CSV file (the export's format: `mac`,
 * `description`, `endpoint_group`, `owner`), in a dialog: "Check only" judges
 * every row and writes nothing; otherwise the import is atomic (one refused
 * row and nothing is written) unless "Write the rows that pass" is on. The
 * server's report: the counts, and each refused row with its column and why.
 */
import { Badge, Button, Checkbox, FileInput, Group, Modal, Stack, Table, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { upload } from '../api/client'
import { ErrorAlert } from '../components/errors'
import { useI18n } from '../i18n'

export function EndpointImport({ onClose }: { onClose(): void }) {
  const { t } = useI18n()
  const qc = useQueryClient()
  const [file, setFile] = useState<File | null>(null)
  const [dryRun, setDryRun] = useState(false)
  const [partial, setPartial] = useState(false)
  const run = useMutation({
    mutationFn: () => upload('/api/v1/nac/endpoints/import', file!, 'text/csv', { dry_run: dryRun, atomic: !partial }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nac'] }),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (file) run.mutate()
  }
  const r = run.data
  const refused = r?.results.filter((x) => x.outcome === 'refused') ?? []
  return (
    <Modal opened onClose={onClose} title={t.nac.importTitle} size="lg">
      <form onSubmit={submit} noValidate data-testid="endpoint-import">
        <Stack>
          <Text size="sm" c="dimmed">{t.nac.importHint}</Text>
          <ErrorAlert error={run.error} />
          <FileInput label={t.nac.importFile} name="file" accept=".csv,text/csv" required data-autofocus value={file} onChange={setFile} clearable />
          <Checkbox label={t.nac.dryRun} checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
          <Checkbox label={t.nac.partial} checked={partial} onChange={(e) => setPartial(e.currentTarget.checked)} />
          {r && (
            <Stack gap="xs" data-testid="import-report" role="status">
              <Group gap="xs">
                <Badge color={r.applied ? 'green' : 'gray'} tt="none">{r.applied ? t.nac.applied_ : t.nac.notApplied}</Badge>
                <Text size="sm">{t.nac.importCounts(r.created, r.updated, r.unchanged, r.skipped, r.refused)}</Text>
              </Group>
              {refused.length > 0 && (
                <Table aria-label={t.nac.refusedRows}>
                  <Table.Thead><Table.Tr><Table.Th>{t.nac.row}</Table.Th><Table.Th>MAC</Table.Th><Table.Th>{t.nac.column}</Table.Th><Table.Th>{t.nac.why}</Table.Th></Table.Tr></Table.Thead>
                  <Table.Tbody>
                    {refused.map((x) => (
                      <Table.Tr key={x.row}><Table.Td>{x.line}</Table.Td><Table.Td ff="monospace">{x.mac ?? t.common.none}</Table.Td><Table.Td>{x.field ?? t.common.none}</Table.Td><Table.Td>{x.detail}</Table.Td></Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </Stack>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>{r ? t.nac.close : t.common.cancel}</Button>
            <Button type="submit" loading={run.isPending} disabled={!file}>{t.nac.importRun}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
