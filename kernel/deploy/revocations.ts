/**
 * A rollback never re-admits revoked access (docs/deploy.md). Before a rollback switches `current`,
 * the daemon's configuration is rendered now and each renderer compares the old release's files with
 * it (`ConfigRenderer.revokedSince`): a user the old release lets in and now's does not, a password
 * the user no longer has, an earlier expiry, a certificate revoked since, a CA no longer trusted.
 * Any one refuses the rollback with 409 DEPLOY_ROLLBACK_REVOKES_ACCESS naming each; nothing changes.
 *
 * The renderers know their files, the kernel knows the accounts: for a user it says why from the
 * account as it is now (deleted, disabled, network login off, expired) and when (the audit trail,
 * the expiry, the password change). An endpoint (MAB) is named by its MAC as the files show it.
 */
import type { Knex } from 'knex'
import type { AccessRevocation, ConfigRenderer, RenderedFile } from '../../sdk/index.js'
import { DeployErrors } from './model.js'

export type RevocationKind =
  | 'user_deleted'
  | 'user_disabled'
  | 'network_login_off'
  | 'user_expired'
  | 'expiry_earlier'
  | 'password_changed'
  | 'no_network_password'
  | 'certificate_revoked'
  | 'trust_removed'
  | 'endpoint_removed'

/** One revocation, named: what, who, and when (ISO 8601; null when nothing records it). */
export interface NamedRevocation {
  kind: RevocationKind
  name: string
  at: string | null
}

interface Account {
  username: string
  enabled: boolean
  network_login: boolean
  expires_at: Date | string | null
  password_changed_at: Date | string | null
}

const iso = (v: Date | string | null | undefined): string | null => (v == null ? null : new Date(v).toISOString())

/** When the account last changed (or was deleted) after the release was activated, from the audit trail. */
async function lastChange(knex: Knex, username: string, actions: string[], since: Date | null): Promise<string | null> {
  const q = knex('audit_log')
    .where({ resource_type: 'user' })
    .whereIn('action', actions)
    .where((w) => w.whereRaw(`"before"->>'username' = ?`, [username]).orWhereRaw(`"after"->>'username' = ?`, [username]))
    .orderBy('at', 'desc')
    .first('at')
  if (since) q.where('at', '>', since)
  return iso(((await q) as { at: Date | string } | undefined)?.at)
}

/** Why a user the release lets in is refused now, from the account as it is. */
async function userRevocation(knex: Knex, r: AccessRevocation, since: Date | null, at: Date): Promise<NamedRevocation> {
  const row = (await knex('users').whereRaw('lower(username) = lower(?)', [r.name]).first('username', 'enabled', 'network_login', 'expires_at', 'password_changed_at')) as Account | undefined
  const name = r.name
  if (r.change === 'password_changed') return { kind: 'password_changed', name, at: iso(row?.password_changed_at) }
  if (!row || row.username !== r.name) return { kind: 'user_deleted', name, at: await lastChange(knex, name, ['user.delete'], since) }
  if (!row.enabled) return { kind: 'user_disabled', name, at: await lastChange(knex, name, ['user.update'], since) }
  if (!row.network_login) return { kind: 'network_login_off', name, at: await lastChange(knex, name, ['user.update'], since) }
  const expires = iso(row.expires_at)
  if (expires && new Date(expires) <= at) return { kind: 'user_expired', name, at: expires }
  if (r.change === 'expires_sooner') return { kind: 'expiry_earlier', name, at: expires ?? r.at }
  return { kind: 'no_network_password', name, at: await lastChange(knex, name, ['user.update'], since) }
}

/** Every access the release's files grant that the files rendered now do not, named (empty: the rollback may go ahead). */
export async function revocationsSince(o: {
  knex: Knex
  renderers: ConfigRenderer[]
  release: { path: string; content: string }[]
  now: RenderedFile[]
  /** When the release was last activated: the audit is searched after it. */
  since: Date | null
  at: Date
}): Promise<NamedRevocation[]> {
  const found = o.renderers.flatMap((r) => r.revokedSince?.(o.release, o.now, o.at) ?? [])
  const out: NamedRevocation[] = []
  for (const r of found) {
    if (r.subject === 'user') out.push(await userRevocation(o.knex, r, o.since, o.at))
    // An endpoint is named by its MAC, as the renderer's files show it: the kernel reads no plugin's table.
    else if (r.subject === 'endpoint') out.push({ kind: 'endpoint_removed', name: r.name, at: r.at })
    else out.push({ kind: r.change === 'trust_removed' ? 'trust_removed' : 'certificate_revoked', name: r.name, at: r.at })
  }
  return out
}

/** The list in plain English (logs, the command line, and the fallback of the API's detail). */
export const describeRevocations = (list: NamedRevocation[], t: (kind: RevocationKind, r: NamedRevocation) => string): string => list.map((r) => t(r.kind, r)).join('; ')

/** The rollback's refusal: 409 DEPLOY_ROLLBACK_REVOKES_ACCESS naming each revocation, when there is any. */
export function refuseIfRevoked(release: { release: string; created_at: Date | string }, revoked: NamedRevocation[]): void {
  if (!revoked.length) return
  throw DeployErrors.rollbackRevokesAccess({
    vars: { release: release.release, created_at: new Date(release.created_at).toISOString(), revocations: revoked.map((r) => `${r.kind} ${r.name} ${r.at ?? '-'}`).join('; '), list: revoked },
  })
}
