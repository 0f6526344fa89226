/**
 * Who a verified token belongs to, answered from memory on the request path:
 * a user's enabled flag, admin flag and permissions (from roles given directly
 * and through groups), when their sessions were last invalidated, and revoked
 * token ids. Every identity change bumps `identity_version` in the database;
 * each node polls it once a second and drops its cache when it moves, so a
 * revocation or a disabled account takes effect cluster-wide within a second.
 */
import type { Knex } from 'knex'
import type { Actor, Logger } from '../../sdk/index.js'
import type { TokenClaims } from '../security/tokens.js'

interface CachedUser {
  id: string
  username: string
  enabled: boolean
  isAdmin: boolean
  permissions: ReadonlySet<string>
  validAfter: number
  /** users.expires_at in ms; null: never. A session stops working when its user expires. */
  expiresAt: number | null
}

export class ActorCache {
  private users = new Map<string, CachedUser | null>()
  private revoked = new Set<string>()
  private version = ''
  private timer: NodeJS.Timeout | null = null
  private lastSweep = 0

  constructor(private readonly knex: Knex, private readonly log: Logger) {}

  async start(pollMs = 1000): Promise<void> {
    await this.refresh()
    this.timer = setInterval(() => void this.refresh().catch((e: Error) => this.log.debug({ err: e.message }, 'identity cache refresh failed')), pollMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }

  /** Marks identity data changed, here at once and on other nodes at their next poll. */
  async bump(trx: Knex | Knex.Transaction = this.knex): Promise<void> {
    await trx.raw(`UPDATE kernel_meta SET value = (value::bigint + 1)::text, updated_at = now() WHERE key = 'identity_version'`)
    this.invalidate()
  }

  /**
   * An identity change: `fn` in the request's transaction with the version bumped in that same
   * transaction (other nodes reload), then this node's cache dropped once more after the commit,
   * because a request in between may have cached the old rows.
   */
  async change<T>(transaction: <R>(fn: (trx: Knex.Transaction) => Promise<R>) => Promise<R>, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const out = await transaction(async (trx) => {
      const result = await fn(trx)
      await this.bump(trx)
      return result
    })
    this.invalidate()
    return out
  }

  invalidate(): void {
    this.users.clear()
    this.version = ''
  }

  private async refresh(): Promise<void> {
    if (Date.now() - this.lastSweep > 600_000) {
      this.lastSweep = Date.now()
      // An expired token is refused by its signature check anyway; its revocation row has done its work.
      await this.knex('revoked_tokens').where('expires_at', '<', new Date()).delete().catch(() => undefined)
    }
    const row = await this.knex('kernel_meta').where({ key: 'identity_version' }).first('value')
    const v = row?.value ?? '0'
    if (v === this.version) return
    const revoked = await this.knex('revoked_tokens').where('expires_at', '>', new Date()).pluck('jti')
    this.revoked = new Set(revoked)
    this.users.clear()
    this.version = v
  }

  async resolve(c: TokenClaims): Promise<Actor | null> {
    if (this.version === '') await this.refresh()
    if (this.revoked.has(c.jti)) return null
    let u = this.users.get(c.sub)
    if (u === undefined) {
      u = await this.load(c.sub)
      this.users.set(c.sub, u)
    }
    if (!u || !u.enabled) return null
    if (u.expiresAt !== null && u.expiresAt <= Date.now()) return null
    // Tokens issued before a password change or a sign-out-everywhere are void (iat has second precision).
    if (c.iat * 1000 < Math.floor(u.validAfter / 1000) * 1000) return null
    return { id: u.id, username: u.username, isAdmin: u.isAdmin, permissions: u.permissions, tokenId: c.jti }
  }

  /** The user as the gate would see them now, read from the database: null when deleted, disabled or expired. */
  async current(id: string): Promise<Actor | null> {
    const u = await this.load(id)
    if (!u || !u.enabled || (u.expiresAt !== null && u.expiresAt <= Date.now())) return null
    return { id: u.id, username: u.username, isAdmin: u.isAdmin, permissions: u.permissions }
  }

  private async load(id: string): Promise<CachedUser | null> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return null
    const user = await this.knex('users').where({ id }).first('id', 'username', 'enabled', 'is_admin', 'sessions_valid_after', 'expires_at')
    if (!user) return null
    const rows = (await this.knex.raw(
      `SELECT r.permissions FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = ?
       UNION ALL
       SELECT r.permissions FROM roles r JOIN group_roles gr ON gr.role_id = r.id JOIN user_group_members m ON m.group_id = gr.group_id WHERE m.user_id = ?`,
      [id, id],
    )) as { rows: { permissions: string[] }[] }
    return {
      id: user.id,
      username: user.username,
      enabled: user.enabled,
      isAdmin: user.is_admin,
      permissions: new Set(rows.rows.flatMap((r) => r.permissions)),
      validAfter: new Date(user.sessions_valid_after).getTime(),
      expiresAt: user.expires_at === null ? null : new Date(user.expires_at).getTime(),
    }
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti)
  }
}
