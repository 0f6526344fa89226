/**
 * Monthly partitions of the five log tables, created ahead of the data. A row
 * whose month has no partition lands in the DEFAULT partition; a month that
 * already has rows there cannot get its own partition any more (PostgreSQL
 * refuses to move them), so months are created before they start: this month
 * and the next `ahead`, once at start and then every hour.
 */
import type { Knex } from 'knex'
import type { Logger } from '../../../sdk/index.js'
import { LOG_TABLE } from '../api.js'

const monthStart = (y: number, m: number) => new Date(Date.UTC(y, m, 1))
const iso = (d: Date) => d.toISOString().slice(0, 10)

export async function ensureMonthlyPartitions(knex: Knex, log: Logger, opts: { now?: Date; ahead?: number } = {}): Promise<string[]> {
  const now = opts.now ?? new Date()
  const created: string[] = []
  for (let i = 0; i <= (opts.ahead ?? 2); i++) {
    const from = monthStart(now.getUTCFullYear(), now.getUTCMonth() + i)
    const to = monthStart(from.getUTCFullYear(), from.getUTCMonth() + 1)
    const suffix = `y${from.getUTCFullYear()}m${String(from.getUTCMonth() + 1).padStart(2, '0')}`
    for (const table of Object.values(LOG_TABLE)) {
      const name = `${table}_${suffix}`
      const exists = (await knex.raw('SELECT to_regclass(?) AS r', [name])) as { rows: { r: string | null }[] }
      if (exists.rows[0].r) continue
      try {
        await knex.raw(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${iso(from)}') TO ('${iso(to)}')`)
        created.push(name)
      } catch (e) {
        // The month already has rows in the default partition, another node raced us, or the
        // database is a read-only standby: the rows stay where they are, nothing is lost.
        log.warn({ table, month: iso(from), err: (e as Error).message }, 'aaa-logs: monthly partition not created')
      }
    }
  }
  if (created.length) log.info({ created }, 'aaa-logs: monthly partitions created')
  return created
}
