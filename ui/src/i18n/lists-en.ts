/** English for the filters the lists moved onto the shared table piece gained (en.ts's `lists`). */
const lists = {
  /** The deploy history's status filter. */
  anyStatus: 'Any status',
  statusFilter: 'Status',
  /** The tracked devices' filters (NCM). */
  anyOutcome: 'Any outcome',
  outcomeFilter: 'Last fetch',
}

export type ListsMessages = typeof lists
export default lists
