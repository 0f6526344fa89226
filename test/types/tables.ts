/** Compile-time proof that defineTable + knex table typings catch a misspelt column, a missing insert field and a wrong type. */
import type { Knex } from 'knex'
import { column, defineTable, type TableType } from '../../sdk/index.js'

const ProbeTable = defineTable('probe_things', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  note: column.text().nullable(),
  created_at: column.timestamp().defaulted(),
})
declare module 'knex/types/tables.js' {
  interface Tables {
    probe_things: TableType<typeof ProbeTable>
  }
}
export async function probe(db: Knex) {
  const row = await db('probe_things').where({ name: 'x' }).first()
  const n: string | undefined = row?.name
  const d: Date | undefined = row?.created_at
  const ids = await db('probe_things').insert({ name: 'a' }).returning('id')
  const id: string = ids[0].id
  // @ts-expect-error: no such column
  await db('probe_things').where({ nme: 'x' })
  // @ts-expect-error: name is required on insert
  await db('probe_things').insert({ note: 'x' })
  // @ts-expect-error: wrong type
  const bad: number = row!.name
  const trx = await db.transaction()
  const r2 = await trx('probe_things').select('id', 'name').where('id', id).first()
  const s: string | undefined = r2?.name
  // @ts-expect-error: not selected
  r2?.note
  await trx('probe_things').where({ id }).update({ note: null, created_at: db.fn.now() })
  return [n, d, bad, s]
}
