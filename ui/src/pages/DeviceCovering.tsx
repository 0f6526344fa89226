/**
 * "Which device entry covers this address" on the devices screen: GET /devices/covering lists the
 * entries whose prefix contains the address, most specific first, and marks the one tac_plus-ng and
 * the one FreeRADIUS answer it as (the server decides, with the inventory's own choice).
 */
import { Badge, Button, Group, Stack, Table, Text, TextInput } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { ErrorAlert, fieldError } from '../components/errors'
import { useI18n } from '../i18n'

export function DeviceCovering() {
  const { t } = useI18n()
  const w = t.imports.covering
  const [text, setText] = useState('')
  const [address, setAddress] = useState('')
  const found = useQuery({
    queryKey: ['devices', 'covering', address],
    queryFn: () => api.get('/api/v1/devices/covering', { query: { address } }),
    enabled: address !== '',
    retry: false,
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setAddress(text.trim())
  }
  const err = fieldError(found.error, 'address')
  return (
    <Stack gap="xs" data-testid="device-covering">
      <form onSubmit={submit} noValidate>
        <Group align="flex-start" gap="xs">
          <TextInput aria-label={w.label} label={w.label} placeholder={w.placeholder} value={text} onChange={(e) => setText(e.currentTarget.value)} error={err} w={320} maw="100%" name="covering-address" />
          <Button type="submit" variant="default" mt={25} disabled={!text.trim()}>{w.find}</Button>
        </Group>
      </form>
      {!err && <ErrorAlert error={found.error} />}
      {found.data && (
        <Stack gap={4} role="status">
          <Text size="sm" fw={500}>{w.title(found.data.address)}</Text>
          {found.data.items.length === 0 ? (
            <Text size="sm" c="dimmed">{w.none}</Text>
          ) : (
            <Table.ScrollContainer minWidth={560}>
              <Table aria-label={w.title(found.data.address)}>
                <Table.Thead><Table.Tr><Table.Th>{t.devices.name}</Table.Th><Table.Th>{t.devices.address}</Table.Th><Table.Th>{w.prefix}</Table.Th><Table.Th /></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {found.data.items.map((x) => (
                    <Table.Tr key={x.device.id} fw={x.tacacs_client || x.radius_client ? 600 : undefined}>
                      <Table.Td>{x.device.name}</Table.Td>
                      <Table.Td ff="monospace">{x.device.address}</Table.Td>
                      <Table.Td>/{x.prefix_length}</Table.Td>
                      <Table.Td>
                        <Group gap={4}>
                          {x.tacacs_client && <Badge size="sm" color="green" tt="none">{w.tacacs}</Badge>}
                          {x.radius_client && <Badge size="sm" color="grape" tt="none">{w.radius}</Badge>}
                          {!x.device.enabled && <Badge size="sm" color="gray" variant="light" tt="none">{w.disabled}</Badge>}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Stack>
      )}
    </Stack>
  )
}
