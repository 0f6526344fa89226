/** Small helpers shared by the aaa-logs API tests: the test kit's. */
export { uniq, expectError } from '../../../test/kit/expect.js'

import type { Knex } from 'knex'
import { KINDS, logRows } from '../services/logs.js'

/**
 * Log rows of one kind written straight to the plugin's table, as the ingestion would: for the tests of
 * other plugins (the console's dashboard) that need a log without running a daemon and its tail.
 */
export function logTable(knex: Knex, kind: 'tacacs_authentication' | 'radius_authentication' | 'radius_accounting') {
  return logRows(knex, KINDS.find((k) => k.kind === kind)!)
}
