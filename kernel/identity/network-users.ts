/**
 * The users the network daemons know, read for the renderers, with their
 * groups, and the sealed verifiers opened through a memo.
 *
 * Why a memo: at 100,000 users, opening the verifiers (one AES-GCM decryption
 * each, about 5 µs in Node) was half of a full render, and a deploy, a dry run
 * and each renderer read the same users again. A sealed value never changes
 * (a new password is sealed afresh, with a new IV), so it is its own cache key
 * and nothing needs invalidating. The memo keeps only what the last read
 * returned, so it never holds a user who has since left. It adds no exposure
 * that the process lacks already: the master key that opens every sealed value
 * is in the same memory. The opened sets are frozen, because every caller
 * shares them.
 */
import type { Knex } from 'knex'
import type { NetworkUser, NetworkVerifiers, SecretsService } from '../../sdk/index.js'
import { openManyVerifiers } from './verifiers.js'

interface NetworkUserRow {
  id: string
  username: string
  network_verifiers: string | null
  source: 'local' | 'directory'
  expires_at: Date | string | null
  lockout_cleared_at: Date | string | null
}

export function createNetworkUsersReader(secrets: SecretsService) {
  let opened = new Map<string, Readonly<NetworkVerifiers>>()
  // One read per render snapshot: a deploy renders every daemon (and the policy test's inputs) in one
  // repeatable-read transaction, and each renderer asks for the same users.
  const perSnapshot = new WeakMap<Knex.Transaction, Promise<NetworkUser[]>>()
  return async function networkUsers(db: Knex | Knex.Transaction): Promise<NetworkUser[]> {
    if (!db.isTransaction) return read(db)
    const trx = db as Knex.Transaction
    let users = perSnapshot.get(trx)
    if (!users) perSnapshot.set(trx, (users = read(trx)))
    // A fresh array each time, so a caller's sort stays its own.
    return (await users).slice()
  }

  async function read(db: Knex | Knex.Transaction): Promise<NetworkUser[]> {
    // Expired users stay: the daemons are given the instant and refuse them from then on, deploy or not.
    const rows: NetworkUserRow[] = await db('users').where({ enabled: true, network_login: true }).orderBy('username').select('id', 'username', 'network_verifiers', 'source', 'expires_at', 'lockout_cleared_at')
    // Every membership, unfiltered and unsorted: the database hands 250,000 bare rows over in a sixth
    // of the time a join, a sort or a string_agg takes (measured at 100,000 users); the filter is the
    // users map and the sort a few ids per user. Group ids in byte order, as the renderers expect.
    const groups = new Map<string, string[]>(rows.map((r) => [r.id, []]))
    for (const m of await db('user_group_members').select('user_id', 'group_id')) groups.get(m.user_id)?.push(m.group_id)
    // The sealed sets not opened by an earlier read, opened together (on two cores when there are many).
    // Against the memo as it is now: a read that ends meanwhile replaces it.
    const known = opened
    const unopened = [...new Set(rows.flatMap((r) => (r.network_verifiers && !known.has(r.network_verifiers) ? [r.network_verifiers] : [])))]
    const fresh = await openManyVerifiers(secrets, unopened)
    const freshBySealed = new Map(unopened.map((sealed, i) => [sealed, Object.freeze(fresh[i])]))
    const next = new Map<string, Readonly<NetworkVerifiers>>()
    const open = (sealed: string) => {
      const v = known.get(sealed) ?? freshBySealed.get(sealed)!
      next.set(sealed, v)
      return v
    }
    const users = rows.map((r) => ({
      id: r.id,
      username: r.username,
      group_ids: groups.get(r.id)!.sort(),
      // A directory user never has verifiers (the directory checks the password), whatever a row holds.
      verifiers: r.network_verifiers && r.source !== 'directory' ? open(r.network_verifiers) : null,
      ...(r.source === 'directory' ? { source: 'directory' as const } : {}),
      // Only when set, so a release rendered before these existed reads the same.
      ...(r.expires_at !== null ? { expires_at: new Date(r.expires_at).toISOString() } : {}),
      ...(r.lockout_cleared_at !== null ? { lockout_cleared_at: new Date(r.lockout_cleared_at).toISOString() } : {}),
    }))
    opened = next
    return users
  }
}
