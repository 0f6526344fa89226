/** The identity service: users, tokens of every purpose, second factors. */
import type { Knex } from 'knex'
import { CommonErrors, defineReferenceTarget, type Actor, type CapabilityGroups, type CompletedLogin, type IdentityService, type LoginGrant, type NetworkLoginRefusal, type NetworkUser, type RowOf, type SecondFactor, type SecretsService, type SettingsService, type UserGroupRef, type UserRef } from '../../sdk/index.js'
import type { UsersTable } from '../db/tables.js'
import { assertUserManageable } from './routes/guards.js'
import type { TokenService } from '../security/tokens.js'
import { masterKeyUnavailable } from '../security/secrets.js'
import type { ActorCache } from './actors.js'
import { verifyPassword } from './passwords.js'
import { sessionTtl } from './settings.js'
import { createNetworkUsersReader } from './network-users.js'
import type { Directory, DirectoryOutcome } from './directory.js'
import { mayHaveBrokenCrypt, openVerifiers, repairedVerifiers, sealVerifiers } from './verifiers.js'

export const PASSWORD_CHANGE_TTL = 10 * 60
export const MFA_TOKEN_TTL = 5 * 60

/** A users row (kernel/db/tables.ts). */
export type UserRow = RowOf<typeof UsersTable>

/** Why a password sign-in was refused (audit reason codes). */
export type SignInRefusal = 'unknown_user' | 'bad_password' | 'disabled' | 'no_local_password' | 'expired' | Exclude<Extract<DirectoryOutcome, { ok: false }>['reason'], 'bad_password'>

/** Whether the account has expired at `at` (users.expires_at; null never expires). */
export const isExpired = (r: Pick<UserRow, 'expires_at'>, at = new Date()) => r.expires_at !== null && new Date(r.expires_at).getTime() <= at.getTime()

export const toUserRef = (r: UserRow): UserRef => ({
  id: r.id, username: r.username, display_name: r.display_name, email: r.email, enabled: r.enabled, is_admin: r.is_admin, source: r.source, network_login: r.network_login,
  expires_at: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
})

export class Identity implements IdentityService {
  private readonly factors: SecondFactor[] = []
  /** Groups whose membership grants a capability (registerCapabilityGroups); the user and group routes hold them to the no-escalation rule. */
  readonly capabilities: CapabilityGroups[] = []
  /** The kernel's side of the references other plugins hold to users and groups: the user and group routes call beforeDelete and renamed. */
  readonly ownedReferences = {
    user: defineReferenceTarget({ kind: 'user', table: 'users', nameColumn: 'username' }),
    user_group: defineReferenceTarget({ kind: 'user_group', table: 'user_groups', nameColumn: 'name' }),
  }
  readonly references = this.ownedReferences

  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService | null,
    private readonly secrets: SecretsService,
    private readonly settings: SettingsService,
    readonly actors: ActorCache,
    readonly directory: Directory,
  ) {
    this.networkUsers = createNetworkUsersReader(secrets)
  }

  private signer(): TokenService {
    if (!this.tokens) throw masterKeyUnavailable()
    return this.tokens
  }

  async findRow(by: { id: string } | { username: string }, db: Knex | Knex.Transaction = this.knex): Promise<UserRow | null> {
    const q = db('users')
    if ('id' in by) {
      if (!/^[0-9a-f-]{36}$/i.test(by.id)) return null
      q.where({ id: by.id })
    } else q.whereRaw('lower(username) = lower(?)', [by.username])
    return (await q.first()) ?? null
  }

  async findUser(by: { id: string } | { username: string }, db?: Knex | Knex.Transaction) {
    const r = await this.findRow(by, db)
    return r ? toUserRef(r) : null
  }

  /** The user row when the password is right and the account may sign in locally; costs one argon2 check either way. */
  async authenticate(username: string, password: string): Promise<UserRow | null> {
    const r = await this.attempt(username, password)
    return r.ok ? r.row : null
  }

  /**
   * A password check that also says why it failed, for the audit trail only:
   * every failure answers the caller alike, after the same argon2 work.
   */
  async attempt(username: string, password: string): Promise<{ ok: true; row: UserRow } | { ok: false; row: UserRow | null; reason: SignInRefusal; detail?: string }> {
    const row = username.length <= 64 ? await this.findRow({ username }) : null
    // A directory user: the directory decides the password (directory.ts), never a local hash.
    if (row && row.source === 'directory' && row.enabled && !isExpired(row)) {
      const d = await this.directory.authenticate(row.username, password)
      return d.ok ? { ok: true, row } : { ok: false, row, reason: d.reason, ...(d.detail ? { detail: d.detail } : {}) }
    }
    // An expired account is refused like a disabled one (the daemons refuse its network logins too).
    const usable = row && row.enabled && !isExpired(row) && row.source === 'local' ? row.password_hash : null
    const ok = await verifyPassword(usable, password)
    if (ok && row) {
      await this.repairVerifiers(row, password)
      return { ok: true, row }
    }
    const reason: SignInRefusal = !row ? 'unknown_user' : !row.enabled ? 'disabled' : isExpired(row) ? 'expired' : row.source !== 'local' || !row.password_hash ? 'no_local_password' : 'bad_password'
    return { ok: false, row, reason }
  }

  /**
   * A sign-in is the one time a network user's password is at hand again: a `sha512_crypt` the old code
   * got wrong (64·n-byte passwords, verifiers.ts) is re-derived and sealed here, for the next deploy.
   * Best effort: a read-only node or a concurrent change leaves it for a later sign-in.
   */
  private async repairVerifiers(row: UserRow, password: string): Promise<void> {
    if (!row.network_login || !row.network_verifiers || !mayHaveBrokenCrypt(password)) return
    try {
      const fixed = repairedVerifiers(openVerifiers(this.secrets, row.network_verifiers), password)
      if (fixed) await this.knex('users').where({ id: row.id, network_verifiers: row.network_verifiers }).update({ network_verifiers: sealVerifiers(this.secrets, fixed) })
    } catch {
      // The sign-in itself stands either way.
    }
  }

  /**
   * The SDK's promise: a local account only (EST Basic, docs/pki.md). A directory account is refused
   * before the directory is asked (no bind, so no directory lockout from here), after the same argon2 work.
   */
  async checkPassword(username: string, password: string) {
    const row = username.length <= 64 ? await this.findRow({ username }) : null
    if (row && row.source !== 'local') {
      await verifyPassword(null, password)
      return null
    }
    const r = await this.authenticate(username, password)
    return r ? toUserRef(r) : null
  }

  async findUserByEmail(email: string, db: Knex | Knex.Transaction = this.knex) {
    if (email.length > 254) return null
    const rows = await db('users').whereRaw('lower(email) = lower(?)', [email]).limit(2)
    return rows.length === 1 ? toUserRef(rows[0]) : null
  }

  async checkSignInPassword(username: string, password: string) {
    const r = await this.attempt(username, password)
    return r.ok ? toUserRef(r.row) : null
  }

  issueToken(user: Pick<UserRef, 'id' | 'username'>, purpose: Parameters<IdentityService['issueToken']>[1], ttlSeconds: number) {
    return this.signer().issue({ sub: user.id, name: user.username, purpose, ttlSeconds })
  }

  async verifyToken(token: string, purpose: Parameters<IdentityService['verifyToken']>[1]) {
    const c = await this.signer().verify(token)
    if (!c || c.purpose !== purpose) return null
    if (!(await this.actors.resolve(c))) return null
    return { sub: c.sub, jti: c.jti, purpose: c.purpose, exp: c.exp, name: c.name }
  }

  async revokeToken(jti: string, exp: number) {
    await this.knex('revoked_tokens').insert({ jti, expires_at: new Date(exp * 1000) }).onConflict('jti').ignore()
    await this.actors.bump()
  }

  registerSecondFactor(f: SecondFactor) {
    this.factors.push(f)
  }

  registerCapabilityGroups(c: CapabilityGroups) {
    this.capabilities.push(c)
  }

  async hasSecondFactor(userId: string): Promise<boolean> {
    for (const f of this.factors) if (await f.isEnrolled(userId)) return true
    return false
  }

  /** After the password: a second factor if enrolled, else whatever completes the login. */
  async afterPassword(row: UserRow): Promise<LoginGrant> {
    if (await this.hasSecondFactor(row.id)) {
      // What the client may offer: the factors the user has and chose (a client tries them in this order).
      const factors: string[] = []
      for (const f of this.factors) if (await (f.isOffered ?? f.isEnrolled).call(f, row.id)) factors.push(f.id)
      const t = await this.issueToken(row, 'mfa', MFA_TOKEN_TTL)
      return { status: 'mfa_required', mfa_token: t.token, expires_in: MFA_TOKEN_TTL, factors }
    }
    return this.completeLogin(row.id)
  }

  async completeLogin(userId: string): Promise<CompletedLogin> {
    const row = await this.findRow({ id: userId })
    if (!row || !row.enabled) throw new Error('completeLogin for a user that cannot sign in')
    // Expired between the password and the second factor: no session (the factor's route answers its own refusal).
    if (isExpired(row)) throw CommonErrors.unauthorized()
    if (row.must_change_password) {
      const t = await this.issueToken(row, 'password_change', PASSWORD_CHANGE_TTL)
      return { status: 'password_change_required', password_change_token: t.token, expires_in: PASSWORD_CHANGE_TTL }
    }
    return this.session(row)
  }

  async session(user: Pick<UserRef, 'id' | 'username'>): Promise<{ access_token: string; token_type: 'bearer'; expires_in: number }> {
    const ttl = await this.settings.get(sessionTtl)
    const t = await this.issueToken(user, 'session', ttl)
    return { access_token: t.token, token_type: 'bearer', expires_in: ttl }
  }

  async groupsOf(userId: string): Promise<string[]> {
    return this.knex('user_groups').join('user_group_members', 'user_group_members.group_id', 'user_groups.id').where('user_group_members.user_id', userId).orderBy('user_groups.name').pluck('user_groups.name')
  }

  actorOf(userId: string): Promise<Actor | null> {
    return this.actors.current(userId)
  }

  async groupIdsOf(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<string[]> {
    if (!/^[0-9a-f-]{36}$/i.test(userId)) return []
    return db('user_group_members').where({ user_id: userId }).orderBy('group_id').pluck('group_id')
  }

  /** Read and opened in network-users.ts (one statement, a memo of opened verifiers). */
  readonly networkUsers: (db: Knex | Knex.Transaction) => Promise<NetworkUser[]>

  async networkLoginRefusals(db: Knex | Knex.Transaction): Promise<NetworkLoginRefusal[]> {
    const rows = await db('users').where({ enabled: false }).orWhere({ network_login: false }).orderBy('username').select('username', 'enabled')
    return rows.map((r) => ({ username: r.username, reason: r.enabled ? 'network_login_off' : 'disabled' }))
  }

  async userGroups(db: Knex | Knex.Transaction): Promise<UserGroupRef[]> {
    const rows: { id: string; name: string; directory_group_dn: string | null }[] = await db('user_groups').orderBy('name').select('id', 'name', 'directory_group_dn')
    // The DN only where set, so that a renderer given the groups reads the same as before mappings existed.
    return rows.map(({ directory_group_dn, ...g }) => (directory_group_dn === null ? g : { ...g, directory_group_dn }))
  }

  async networkVerifiers(userId: string, db?: Knex | Knex.Transaction) {
    const row = await this.findRow({ id: userId }, db)
    if (!row || !row.network_login || !row.network_verifiers) return null
    return openVerifiers(this.secrets, row.network_verifiers)
  }

  /** The rule for every "manage another user" action, the same one the user routes apply (guards.ts). */
  async assertMayManage(actor: Actor, userId: string, db: Knex | Knex.Transaction = this.knex): Promise<UserRef> {
    const row = await this.findRow({ id: userId })
    if (!row) throw CommonErrors.notFound({ field: 'user_id' })
    await assertUserManageable(db, actor, row, this.capabilities)
    return toUserRef(row)
  }
}
