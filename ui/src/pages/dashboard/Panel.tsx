/** A dashboard card: a titled section (its label is its title), and a table row of a label and a value. */
import { Card, Table, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { useI18n } from '../../i18n'

export function Panel({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <Card withBorder radius="md" component="section" aria-label={title} data-testid={testId}>
      <Title order={2} size="h4" mb="sm">{title}</Title>
      {children}
    </Card>
  )
}

export function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w="40%" fw={500}>{label}</Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  )
}

/** What a card says instead of its figures when the user's roles do not include its permission. */
export function NoPermission() {
  const { t } = useI18n()
  return <Text c="dimmed" data-testid="no-permission">{t.dashboard.noPermission}</Text>
}
