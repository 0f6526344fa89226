/** The update feed's table as its code reads it (migrations/0001_update_feed.ts). */
import { column, defineTable, type TableType } from '../../sdk/index.js'
import type { Manifest } from './manifest.js'

export type FeedStatus = 'never' | 'ok' | 'unreachable' | 'rejected'

export const FeedStateTable = defineTable('update_feed_state', {
  id: column.smallint(),
  status: column.varchar<FeedStatus>(),
  /** Why the last check did not end `ok` (a RejectReason or an unreachable reason). */
  reason: column.varchar().nullable(),
  /** The feed's HTTP status when it answered something else than 200. */
  http_status: column.integer().nullable(),
  checked_at: column.timestamp().nullable(),
  last_ok_at: column.timestamp().nullable(),
  /** The last manifest that passed every check. */
  manifest: column.jsonb<Manifest>().nullable(),
  key_id: column.varchar().nullable(),
})

export const updateFeedTables = [FeedStateTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    update_feed_state: TableType<typeof FeedStateTable>
  }
}
