/** English for the lists' shared table pieces (components/ListTable.tsx, BulkBar.tsx): en.ts's `table`. */
const table = {
  perPage: 'Rows per page',
  selectAll: 'Select every row on this page',
  select: (name: string) => `Select ${name}`,
  selected: (n: number) => `Selected: ${n}`,
  bulkActions: 'Actions on the selected rows',
  clear: 'Clear the selection',
  enable: 'Enable',
  disable: 'Disable',
  moveToGroup: 'Move to group',
  group: 'Group',
  move: 'Move',
  moveTitle: (n: number) => `Move the selected (${n}) to a group`,
  deleteTitle: (n: number) => `Delete the selected (${n})`,
  deleteQuestion: (n: number) => `Delete these ${n}? This cannot be undone.`,
  coaTitle: (action: string, n: number) => `${action}: the selected sessions (${n})`,
  coaQuestion: (action: string, n: number) => `Send "${action}" to the endpoints of these ${n} sessions? Their sessions are cut.`,
  more: (n: number) => `… and ${n} more`,
  working: (done: number, all: number) => `Working: ${done} of ${all}…`,
  done: (action: string, ok: number, all: number) => `${action}: ${ok} of ${all} done.`,
  failed: (n: number) => `Failed: ${n}`,
}

export type TableMessages = typeof table
export default table
