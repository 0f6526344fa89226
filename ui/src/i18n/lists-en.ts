/** English for the filters the lists moved onto the shared table piece gained (en.ts's `lists`). */
const lists = {
  /** The deploy history's status filter. */
  anyStatus: 'Any status',
  statusFilter: 'Status',
  /** The certificates' issue date column (`created_at`). */
  certIssued: 'Issued',
  /** The tracked devices' filters (NCM). */
  anyOutcome: 'Any outcome',
  outcomeFilter: 'Last fetch',
  nextFetch: 'Next fetch',
}

export type ListsMessages = typeof lists
export default lists
