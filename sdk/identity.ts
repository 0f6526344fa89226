/**
 * Identity as plugins see it: users, tokens of each purpose, second factors,
 * and mail. The kernel implements it; the MFA plugin registers a second factor;
 * EST checks a local password; renderers read the network verifiers.
 */
import { Nullable, Type } from './schema.js'
import type { Knex } from 'knex'
import type { ReferenceTarget } from './references.js'
import { createServiceRef } from './service-ref.js'
import { defineSetting, type Actor } from './services.js'

export type TokenPurpose = 'session' | 'password_change' | 'mfa_enrollment' | 'mfa' | 'byod_mfa'

export interface UserRef {
  id: string
  username: string
  display_name: string | null
  email: string | null
  enabled: boolean
  is_admin: boolean
  source: 'local' | 'directory'
  /** Allowed on the network: the daemons know the account (rendered into their files). */
  network_login: boolean
  /** ISO instant the account expires (the daemons and the web sign-in refuse it from then); null: never. */
  expires_at?: string | null
}

export interface IssuedToken {
  token: string
  jti: string
  /** Expiry, seconds since the epoch. */
  exp: number
}

export interface VerifiedToken {
  sub: string
  jti: string
  purpose: TokenPurpose
  exp: number
  name: string
}

/** What a successful first factor (or a passed second factor) leads to. */
export type LoginGrant =
  | { access_token: string; token_type: 'bearer'; expires_in: number }
  | { status: 'mfa_required'; mfa_token: string; expires_in: number; factors: string[] }
  | { status: 'password_change_required'; password_change_token: string; expires_in: number }

/** What a login leads to once every factor has passed: a session, or the password change still owed. */
export type CompletedLogin = Exclude<LoginGrant, { status: 'mfa_required' }>

/** A second factor a plugin offers (TOTP, push …). */
export interface SecondFactor {
  id: string
  /** True when the user must pass this factor to sign in. */
  isEnrolled(userId: string): Promise<boolean>
  /**
   * Whether the sign-in offers this factor to the user (their choice of factors may exclude an
   * enrolled one); listed in the login's `mfa_required.factors`. Default: when enrolled.
   */
  isOffered?(userId: string): Promise<boolean>
}

export interface NetworkVerifiers {
  /** SHA-512 crypt, for PAP and TACACS+ ASCII/PAP login. */
  sha512_crypt: string
  /** Upper-case hex NT hash, for MS-CHAPv2. */
  nt_hash: string
  /**
   * The password itself, for CHAP (which needs the cleartext on the server).
   * Present only for users with `chap_enabled` whose password was set while
   * it was on; dropped when it is turned off. Never returned by the API.
   */
  cleartext?: string
}

export interface NetworkUser {
  id: string
  username: string
  group_ids: string[]
  /** Null when no password was set since network login was turned on, and always for a directory user. */
  verifiers: NetworkVerifiers | null
  /**
   * `directory` for a user whose password the directory checks (the daemons ask it: docs/directory.md);
   * absent for a local user, so that a release rendered before directory users read the same.
   */
  source?: 'directory'
  /** ISO instant past which the daemons refuse the user's logins; absent or null: never. */
  expires_at?: string | null
  /** ISO instant of the last lockout clear: the daemon forgets failures counted before it; absent or null: none. */
  lockout_cleared_at?: string | null
}

/** A user the network daemons must refuse, and why: for a rejection a log reader understands. */
export interface NetworkLoginRefusal {
  username: string
  /** `disabled` wins over `network_login_off` when both hold. */
  reason: 'disabled' | 'network_login_off'
}

/** A user group as the renderers see it. */
export interface UserGroupRef {
  id: string
  name: string
  /** The directory group whose members are members of this group too (directory users only); absent: none. */
  directory_group_dn?: string
}

/** User groups whose membership grants a capability no role names (see IdentityService.registerCapabilityGroups). */
export interface CapabilityGroups {
  /** The permission the capability stands for: giving it by membership needs it, as giving a role needs what the role grants. */
  permission: string
  /** The groups granting it now (typically from a setting; empty when unset). */
  groupIds(db: Knex | Knex.Transaction): Promise<string[]>
}

export interface IdentityService {
  /** A user by id, or by username compared without regard to case (the daemons compare exactly: check `username` yourself). */
  findUser(by: { id: string } | { username: string }, db?: Knex | Knex.Transaction): Promise<UserRef | null>
  /** argon2id check of a local, enabled account; null for a directory-only, disabled or unknown account, or a wrong password. */
  checkPassword(username: string, password: string): Promise<UserRef | null>
  /**
   * The user whose e-mail address this is, compared without regard to case; null when none, or when
   * several accounts share it (an address that names nobody for sure names nobody). The captive
   * portal finds a sponsor this way.
   */
  findUserByEmail(email: string, db?: Knex | Knex.Transaction): Promise<UserRef | null>
  /**
   * The password check of the API's sign-in: a local account's argon2id hash, or for a directory
   * user the directory's bind (docs/directory.md); null for a wrong password, an unknown, disabled or
   * expired account, or a directory that cannot be reached. The captive portal's employee sign-in
   * (BYOD) uses it; the caller rate-limits and audits.
   */
  checkSignInPassword(username: string, password: string): Promise<UserRef | null>
  issueToken(user: Pick<UserRef, 'id' | 'username'>, purpose: TokenPurpose, ttlSeconds: number): Promise<IssuedToken>
  /** A token handed over in a body (mfa, byod_mfa): null when invalid, expired, revoked or of another purpose. */
  verifyToken(token: string, purpose: TokenPurpose): Promise<VerifiedToken | null>
  revokeToken(jti: string, exp: number): Promise<void>
  /** After every factor has passed: a session, or the password change the account still owes. */
  completeLogin(userId: string): Promise<CompletedLogin>
  registerSecondFactor(factor: SecondFactor): void
  /**
   * Declares that membership of some user groups grants a capability outside roles (EST enrollment):
   * the kernel then holds those groups to the no-escalation rule as if they granted `permission`
   * (only an administrator or a holder of it puts a user into one, and a member counts as holding it
   * when another user's account is managed).
   */
  registerCapabilityGroups(c: CapabilityGroups): void
  /** Names of the user groups the user belongs to. */
  groupsOf(userId: string): Promise<string[]>
  /**
   * The user as the permission gate sees them now, read afresh (not from a session): null when the
   * account is deleted, disabled or expired. For work done later on a user's behalf (a scheduled
   * report runs as its owner and must stop when the owner's access ends).
   */
  actorOf(userId: string): Promise<Actor | null>
  /** Ids of the user groups the user belongs to. */
  groupIdsOf(userId: string, db?: Knex | Knex.Transaction): Promise<string[]>
  /**
   * Every enabled user allowed on the network, with group ids, for the renderers. Read it through the snapshot:
   * it is read once per transaction (every renderer of a deploy shares the read), so a transaction that
   * changes users calls it only after its changes. Treat the users as read-only: callers share them.
   */
  networkUsers(db: Knex | Knex.Transaction): Promise<NetworkUser[]>
  /** Every other user (disabled, or network login off), by username, for the renderers. Read it through the snapshot. */
  networkLoginRefusals(db: Knex | Knex.Transaction): Promise<NetworkLoginRefusal[]>
  /**
   * Every user group (id, name), for the renderers; `directory_group_dn` only on a group mapped to a
   * directory group (its directory users who are members there are members here too: docs/directory.md).
   */
  userGroups(db: Knex | Knex.Transaction): Promise<UserGroupRef[]>
  /** The sealed verifiers, opened; null when the account has no network login or none are set. Pass `db` inside a transaction. */
  networkVerifiers(userId: string, db?: Knex | Knex.Transaction): Promise<NetworkVerifiers | null>
  /**
   * The rule for every action on another user's account or factors (MFA reset,
   * setup link, password, disable, sessions): an administrator may act on anyone;
   * anyone else never on an administrator (403 ADMIN_REQUIRED) and only on a user
   * who holds no permission the actor lacks (403 USER_EXCEEDS_OWN_PERMISSIONS).
   * 404 NOT_FOUND (field `user_id`) when there is no such user. Returns the user.
   */
  assertMayManage(actor: Actor, userId: string, db?: Knex | Knex.Transaction): Promise<UserRef>
  /**
   * Users and user groups as other plugins reference them (sdk/references.ts): ids checked and
   * locked, names, and guards the kernel consults when it deletes or renames one. The kernel's
   * tables are referenced through these, like any plugin's.
   */
  readonly references: { user: ReferenceTarget; user_group: ReferenceTarget }
}

/**
 * A user's access ended: the account was deleted or disabled, its network login turned off, or its
 * expiry set to a moment already past. Emitted by the kernel after the change committed, once a user
 * and change (the strongest reason when several hold: deleted, disabled, expired, network_login_off).
 * An expiry that simply arrives emits nothing: the daemons refuse from then on, and a live 802.1X
 * session ends by the Session-Timeout its accept carried (docs/nac.md).
 */
export interface UserAccessEnded {
  user_id: string
  /** The username as it was (a deleted user's too). */
  username: string
  reason: 'deleted' | 'disabled' | 'expired' | 'network_login_off'
  /** Who made the change (null: the platform itself), and the request, for the subscriber's own audit. */
  actor: Actor | null
  requestId?: string
}

/**
 * Called after the commit, in the order subscribed, each awaited before the API answers (keep it
 * quick: queue slow work). An error is logged and never undoes, blocks or retries the change.
 */
export type UserAccessEndedListener = (event: UserAccessEnded) => Promise<void> | void

export interface UserLifecycleService {
  /** Subscribes to "a user's access ended"; returns the removal. */
  onAccessEnded(listener: UserAccessEndedListener): () => void
}

export interface MailMessage {
  to: string
  subject: string
  text: string
  /** An HTML alternative of `text` (a report's HTML rendering). */
  html?: string
  /** Files sent with it (a report's PDF or xlsx). */
  attachments?: { filename: string; content: Buffer; contentType: string }[]
}

export interface MailService {
  /** Sends through the SMTP server configured in the `mail.*` settings. */
  send(message: MailMessage): Promise<void>
}

export const identityServices = {
  identity: createServiceRef<IdentityService>({ id: 'core.identity' }),
  mail: createServiceRef<MailService>({ id: 'core.mail' }),
  /** What happens to users that others must follow: their access ended (a NAS's live sessions, a deleted user's certificates). */
  userLifecycle: createServiceRef<UserLifecycleService>({ id: 'core.userLifecycle' }),
} as const

/**
 * Kernel identity settings that plugins read but never declare: the kernel
 * declares them, so a plugin reads the same value through the same ref.
 */
export const identitySettingRefs = {
  publicUrl: defineSetting(
    'identity.public_url',
    Nullable(Type.String({ maxLength: 500, pattern: '^https?://' })),
    null,
    'Base URL users reach the platform at, used in emailed links (password reset, MFA setup). While null, mail carries the token without a link: the request\'s Host header never chooses where a link points.',
    { security: true },
  ),
  // Read by the RADIUS renderer (rlm_cache counts the failures in FreeRADIUS): docs/security.md, Account lockout.
  lockoutThreshold: defineSetting(
    'identity.lockout_threshold',
    Type.Integer({ minimum: 0, maximum: 100 }),
    0,
    'Wrong network passwords in a row (each less than identity.lockout_seconds after the previous one) after which FreeRADIUS and tac_plus-ng refuse the user, right password or not, for identity.lockout_seconds; 0 turns the lockout off. Takes effect at the next deploy. While on, tac_plus-ng checks passwords through MAVIS (needs Perl and its upstream backend: server options tacacs.perl_binary, tacacs.mavis_directory) and gets no CHAP or MS-CHAP passwords (docs/security.md).',
    { security: true },
  ),
  lockoutSeconds: defineSetting(
    'identity.lockout_seconds',
    Type.Integer({ minimum: 10, maximum: 86400 }),
    900,
    'How long a lockout lasts, in seconds, counted from the failure that caused it (FreeRADIUS rlm_cache keeps 10 to 86400); also how far apart two failures may be and still count together.',
    { security: true },
  ),
} as const
