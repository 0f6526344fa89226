/**
 * Endpoints as the API shows them: with the owner's username (through the
 * identity service's reference contract, never a join on the kernel's users)
 * and the group's name, read once for a whole page.
 */
import type { Knex } from 'knex'
import type { ReferenceTarget } from '../../../sdk/index.js'
import type { Endpoint } from '../api.js'
import { GROUPS } from './rows.js'

type Db = Knex | Knex.Transaction

export type PresentedEndpoint = Endpoint & { owner_username: string | null; endpoint_group_name: string | null }

export async function present(db: Db, users: ReferenceTarget, endpoints: Endpoint[]): Promise<PresentedEndpoint[]> {
  const ownerIds = [...new Set(endpoints.map((e) => e.owner_user_id).filter((x): x is string => x !== null))]
  const groupIds = [...new Set(endpoints.map((e) => e.endpoint_group_id).filter((x): x is string => x !== null))]
  const owners = ownerIds.length ? await users.names(ownerIds, db) : new Map<string, string>()
  const groups = new Map<string, string>()
  if (groupIds.length) for (const g of await db(GROUPS).whereIn('id', groupIds).select('id', 'name')) groups.set(g.id, g.name)
  return endpoints.map((e) => ({
    ...e,
    owner_username: e.owner_user_id ? (owners.get(e.owner_user_id.toLowerCase()) ?? null) : null,
    endpoint_group_name: e.endpoint_group_id ? (groups.get(e.endpoint_group_id) ?? null) : null,
  }))
}

export const presentOne = async (db: Db, users: ReferenceTarget, e: Endpoint): Promise<PresentedEndpoint> => (await present(db, users, [e]))[0]
