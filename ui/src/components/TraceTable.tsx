/**
 * The trace of a policy test (AAA and NAC): a line a rule, in order, the one
 * that matched in green and bold, with why each other did not.
 */
import { Table } from '@mantine/core'

export interface TraceLine {
  key: string
  position: number | string
  name: string
  why: string | null | undefined
  matched: boolean
  /** data-step, for a test to find the line by its rule. */
  step?: string
}

export function TraceTable({ label, testId, columns, lines }: { label: string; testId: string; columns: { name: string; why: string }; lines: TraceLine[] }) {
  return (
    <Table aria-label={label} data-testid={testId}>
      <Table.Thead><Table.Tr><Table.Th>#</Table.Th><Table.Th>{columns.name}</Table.Th><Table.Th>{columns.why}</Table.Th></Table.Tr></Table.Thead>
      <Table.Tbody>
        {lines.map((s) => (
          <Table.Tr key={s.key} c={s.matched ? 'green' : undefined} data-step={s.step}>
            <Table.Td>{s.position}</Table.Td><Table.Td fw={s.matched ? 600 : undefined}>{s.name}</Table.Td><Table.Td>{s.why}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
