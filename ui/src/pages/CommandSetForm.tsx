/**
 * A command set in a dialog: name, description and the commands in matching
 * order (the first that matches decides), each with permit or deny, an
 * optional lowest privilege level and its argument rules (exact, prefix,
 * regex: any one matching lets the entry match). Commands move with their
 * ↑ ↓ buttons (keyboard-usable). A refusal shows under its input
 * (`commands[2].arguments[0].value` for a regex outside the allowed subset).
 */
import { ActionIcon, Button, Fieldset, Group, Loader, Modal, NumberInput, Paper, Select, Stack, Text, TextInput, Textarea } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState, type FormEvent } from 'react'
import { api, ApiError } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'
import { type ArgumentRule, type CommandInput, moved } from './config-data'
import { DialogButtons, useAllowed } from '../components/crud'

type Row = CommandInput & { key: number; arguments: ArgumentRule[] }
let nextKey = 1
const row = (c?: Partial<CommandInput>): Row => ({ key: nextKey++, command: '', action: 'permit', arguments: [], ...c } as Row)

export function CommandSetForm({ id, readOnly, onClose }: { id: string | null; readOnly: boolean; onClose(): void }) {
  const { t } = useI18n()
  const allowed = useAllowed('POST /api/v1/tacacs/command-sets')
  const qc = useQueryClient()
  const current = useQuery({ queryKey: ['tacacs-command-sets', id], queryFn: () => api.get('/api/v1/tacacs/command-sets/{command_set_id}', { params: { command_set_id: id! } }), enabled: !!id, gcTime: 0 })
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [rows, setRows] = useState<Row[]>([])
  useEffect(() => {
    if (!current.data) return
    setName(current.data.name)
    setDescription(current.data.description ?? '')
    setRows(current.data.commands.map((c) => row({ ...c, arguments: c.arguments.map((a) => ({ ...a })) })))
  }, [current.data])
  const save = useMutation({
    mutationFn: async () => {
      const commands: CommandInput[] = rows.map(({ key: _key, ...c }) => ({ ...c, min_privilege_level: c.min_privilege_level ?? undefined }))
      const body = { name, description: description || null, commands }
      if (id) await api.put('/api/v1/tacacs/command-sets/{command_set_id}', { params: { command_set_id: id }, body })
      else await api.post('/api/v1/tacacs/command-sets', { body })
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['tacacs-command-sets'] })
      onClose()
    },
  })
  const err = (f: string) => fieldError(save.error, f)
  // Any field under commands is shown at its input; the alert keeps the rest.
  const shownAtInput = save.error instanceof ApiError && !!save.error.field && (['name', 'description'].includes(save.error.field) || /^commands\[\d+\]\./.test(save.error.field))
  const setRow = (i: number, c: Partial<Row>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...c } : r)))
  const setArg = (i: number, j: number, a: Partial<ArgumentRule>) => setRow(i, { arguments: rows[i].arguments.map((x, k) => (k === j ? { ...x, ...a } : x)) })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!readOnly) save.mutate()
  }
  const matchTypes = (['exact', 'prefix', 'regex'] as const).map((m) => ({ value: m, label: t.config.matchTypes[m] }))
  const actions = [{ value: 'permit', label: t.config.permit }, { value: 'deny', label: t.config.deny }]

  return (
    <Modal opened onClose={onClose} title={id ? (readOnly ? t.config.commandSet : t.config.editCommandSet) : t.config.addCommandSet} size="xl">
      {id && current.isPending ? <Loader aria-label={t.common.loading} /> : (
        <form onSubmit={submit} noValidate data-testid="command-set-form">
          <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
            <Stack>
              <ErrorAlert error={current.error ?? (shownAtInput ? null : save.error)} />
              <TextInput label={t.config.name} name="name" description={allowed('name')} required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={err('name')} />
              <Textarea label={t.config.description} name="description" autosize minRows={1} value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={err('description')} />
              <Text size="sm" c="dimmed">{t.config.commandsHint}</Text>
              {rows.map((r, i) => (
                <Paper key={r.key} withBorder p="sm" data-testid="command" aria-label={t.config.commandN(i + 1)} role="group">
                  <Stack gap="xs">
                    <Group align="flex-start" wrap="wrap">
                      <Text fw={600} w={24} pt={30}>{i + 1}.</Text>
                      <TextInput label={t.config.command} name={`commands[${i}].command`} required value={r.command} onChange={(e) => setRow(i, { command: e.currentTarget.value })} error={err(`commands[${i}].command`)} style={{ flex: 2, minWidth: 180 }} ff="monospace" />
                      <Select label={t.config.action} name={`commands[${i}].action`} data={actions} allowDeselect={false} value={r.action} onChange={(x) => x && setRow(i, { action: x as Row['action'] })} w={120} />
                      <NumberInput label={t.config.minPrivilege} name={`commands[${i}].min_privilege_level`} min={0} max={15} allowDecimal={false} placeholder={t.config.anyLevel} value={r.min_privilege_level ?? ''} onChange={(x) => setRow(i, { min_privilege_level: typeof x === 'number' ? x : undefined })} error={err(`commands[${i}].min_privilege_level`)} w={150} />
                      {!readOnly && (
                        <Group gap={2} pt={26} wrap="nowrap">
                          <ActionIcon variant="subtle" aria-label={`${t.policy.up} ${i + 1}`} disabled={i === 0} onClick={() => setRows(moved(rows, i, -1))}>↑</ActionIcon>
                          <ActionIcon variant="subtle" aria-label={`${t.policy.down} ${i + 1}`} disabled={i === rows.length - 1} onClick={() => setRows(moved(rows, i, 1))}>↓</ActionIcon>
                          <ActionIcon variant="subtle" color="red" aria-label={t.config.removeCommand(i + 1)} onClick={() => setRows(rows.filter((_, j) => j !== i))}>✕</ActionIcon>
                        </Group>
                      )}
                    </Group>
                    <Fieldset legend={t.config.arguments} variant="unstyled" pl={32}>
                      <Stack gap={4}>
                        {r.arguments.length === 0 && <Text size="sm" c="dimmed">{t.config.anyArguments}</Text>}
                        {r.arguments.map((a, j) => (
                          <Group key={j} align="flex-start" wrap="nowrap" data-testid="argument">
                            <Select aria-label={t.config.matchType} name={`commands[${i}].arguments[${j}].match_type`} data={matchTypes} allowDeselect={false} value={a.match_type} onChange={(x) => x && setArg(i, j, { match_type: x as ArgumentRule['match_type'] })} w={200} />
                            <TextInput aria-label={t.config.argumentValue} placeholder={t.config.argumentValue} name={`commands[${i}].arguments[${j}].value`} value={a.value} onChange={(e) => setArg(i, j, { value: e.currentTarget.value })} error={err(`commands[${i}].arguments[${j}].value`)} style={{ flex: 1 }} ff="monospace" />
                            {!readOnly && <ActionIcon variant="subtle" color="red" mt={4} aria-label={t.config.removeArgument(i + 1, j + 1)} onClick={() => setRow(i, { arguments: r.arguments.filter((_, k) => k !== j) })}>✕</ActionIcon>}
                          </Group>
                        ))}
                        {!readOnly && <Button size="compact-sm" variant="subtle" w="fit-content" onClick={() => setRow(i, { arguments: [...r.arguments, { match_type: 'exact', value: '' }] })}>{t.config.addArgument}</Button>}
                      </Stack>
                    </Fieldset>
                  </Stack>
                </Paper>
              ))}
              {!readOnly && <Button variant="light" w="fit-content" onClick={() => setRows([...rows, row()])}>{t.config.addCommand}</Button>}
            </Stack>
          </fieldset>
          <DialogButtons editing={!!id} pending={save.isPending} onClose={onClose} readOnly={readOnly} mt="md" />
        </form>
      )}
    </Modal>
  )
}
