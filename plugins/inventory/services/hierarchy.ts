/**
 * The device-group tree, walked in the database with recursive CTEs: one
 * query whatever the depth. Every walk stops at MAX_WALK levels, so even a
 * cycle written behind the API's back cannot make a query run forever.
 */
import type { Knex } from 'knex'
import { DEVICES, GROUPS, isUuid } from './rows.js'

type Db = Knex | Knex.Transaction

/** Deepest nesting the API allows: a top-level group is level 1. Deep enough for region/site/building/floor/closet with room to spare. */
export const MAX_GROUP_DEPTH = 32

/** Walks stop here (above MAX_GROUP_DEPTH, so a legal tree is always walked whole). */
const MAX_WALK = 64

/** Ids of a group and its ancestors, nearest first (`?` = the group id). */
const ANCESTRY = `
  WITH RECURSIVE up(id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM ${GROUPS} WHERE id = ?
    UNION ALL
    SELECT g.id, g.parent_id, up.depth + 1 FROM ${GROUPS} g JOIN up ON g.id = up.parent_id WHERE up.depth < ${MAX_WALK}
  )`

/** Ids of a group and its descendants, with their distance below it (`?` = the group id). */
export const DESCENDANTS = `
  WITH RECURSIVE down(id, depth) AS (
    SELECT id, 0 FROM ${GROUPS} WHERE id = ?
    UNION ALL
    SELECT g.id, down.depth + 1 FROM ${GROUPS} g JOIN down ON g.parent_id = down.id WHERE down.depth < ${MAX_WALK}
  )`

/** For `device_group_id IN (…)` filters: a subquery of the group's subtree ids. */
export const SUBTREE_IDS = `${DESCENDANTS} SELECT id FROM down`

/** The ids a walk selects, in its order. knex does not type a raw result: its shape is declared here, once. */
async function walkIds(db: Db, sql: string, id: string): Promise<string[]> {
  if (!isUuid(id)) return []
  const r = (await db.raw(sql, [id])) as { rows: { id: string }[] }
  return r.rows.map((x) => x.id)
}

export const groupAncestry = (db: Db, groupId: string) => walkIds(db, `${ANCESTRY} SELECT id FROM up ORDER BY depth`, groupId)

export const groupDescendants = (db: Db, groupId: string) => walkIds(db, `${DESCENDANTS} SELECT id FROM down ORDER BY depth, id`, groupId)

export const deviceGroupIds = (db: Db, deviceId: string) =>
  walkIds(
    db,
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT g.id, g.parent_id, 0 FROM ${DEVICES} d JOIN ${GROUPS} g ON g.id = d.device_group_id WHERE d.id = ?
       UNION ALL
       SELECT g.id, g.parent_id, up.depth + 1 FROM ${GROUPS} g JOIN up ON g.id = up.parent_id WHERE up.depth < ${MAX_WALK}
     ) SELECT id FROM up ORDER BY depth`,
    deviceId,
  )

/** Levels in a group's subtree, the group included: 1 for a group without subgroups. */
export async function subtreeHeight(db: Db, groupId: string): Promise<number> {
  const r = (await db.raw(`${DESCENDANTS} SELECT max(depth) AS d FROM down`, [groupId])) as { rows: { d: number | null }[] }
  return (r.rows[0]?.d ?? 0) + 1
}

/**
 * Serializes changes to the tree's shape (a new parent). Without it, moving A
 * under B and B under A in two concurrent requests would each pass the cycle
 * check and together make a loop. Held until the transaction ends.
 */
export async function lockTree(trx: Knex.Transaction): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(?)', [TREE_LOCK])
}

/** An arbitrary constant of this plugin's own ('inv' + 'grp' in ASCII). */
const TREE_LOCK = 0x696e76_677270
