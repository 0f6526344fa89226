/**
 * The audit trail: who changed what, with the record before and after,
 * written in the same transaction as the change so that neither exists
 * without the other. Authentication events (sign-ins, refusals, lockouts,
 * revocations) go to the same table, with an outcome, a reason code and the
 * client's address, and are written outside the request's transaction.
 */
import type { Knex } from 'knex'
import { jsonText, type Actor, type AuditEntry, type AuditService, type AuthEvent } from '../../sdk/index.js'

/** Fields never written to the audit trail, whatever a plugin passes. */
const SECRET_FIELD = /(password|secret|key|token|seed|hash)$/i

/** Where a request came from. */
export interface ClientInfo {
  ip: string
  userAgent?: string | string[] | null
}

export interface AuditContext {
  actor: Actor | null
  requestId?: string
  trx?: Knex.Transaction
  client?: ClientInfo
}

/** The kernel's trail: the SDK's service, plus events and the client's address. */
export interface AuditTrail extends AuditService {
  record(entry: AuditEntry, ctx: AuditContext): Promise<void>
  event(e: AuthEvent, ctx: AuditContext): Promise<void>
}

/** Bounds of the columns (migrations/0006_audit_auth_events.ts). */
const USERNAME_MAX = 64
const USER_AGENT_MAX = 256
const IP_MAX = 64
const REASON_MAX = 32
const NAME_MAX = 255

/** The fields that name an object, in order of preference: the first one a snapshot has is its name. */
const NAME_FIELDS = ['name', 'username', 'mac', 'common_name'] as const

/** The object's name as the event left it (after), or as it was before a deletion; null when the snapshots name nothing. */
export function nameOf(...snapshots: unknown[]): string | null {
  for (const s of snapshots) {
    if (!s || typeof s !== 'object' || Array.isArray(s)) continue
    const rec = s as Record<string, unknown>
    for (const f of NAME_FIELDS) if (typeof rec[f] === 'string' && rec[f] !== '' && rec[f] !== '***') return clip(rec[f] as string, NAME_MAX)
  }
  return null
}

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact)
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    // A boolean cannot hold a secret: `has_tacacs_key: true` says only that one is set, which the trail should show.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v != null && typeof v !== 'boolean' ? '***' : redact(v)]))
  }
  return value
}

/** Text as stored: without control characters (they could forge lines in an export or a terminal), cut to the column. */
const clip = (s: string | null | undefined, max: number): string | null => {
  if (s === null || s === undefined) return null
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, ' ')
  return clean.length > max ? clean.slice(0, max) : clean
}

function clientColumns(c: ClientInfo | undefined) {
  const ua = Array.isArray(c?.userAgent) ? c.userAgent[0] : c?.userAgent
  return { ip: clip(c?.ip, IP_MAX), user_agent: clip(ua, USER_AGENT_MAX) }
}

export function createAuditTrail(knex: Knex): AuditTrail {
  return {
    async record(entry, ctx) {
      const db = ctx.trx ?? knex
      const before = entry.before === undefined ? undefined : redact(entry.before)
      const after = entry.after === undefined ? undefined : redact(entry.after)
      await db('audit_log').insert({
        actor_id: ctx.actor?.id ?? null,
        actor_name: ctx.actor?.username ?? null,
        action: entry.action,
        resource_type: entry.resourceType,
        resource_id: entry.resourceId ?? null,
        // Kept as it was: the entry still names the object after a rename or a deletion.
        // Taken from the masked snapshots: a name can never carry what the trail masks.
        resource_name: entry.resourceName ? clip(entry.resourceName, NAME_MAX) : nameOf(after, before),
        before: before === undefined ? null : jsonText(before),
        after: after === undefined ? null : jsonText(after),
        request_id: ctx.requestId ?? null,
        // A refused change (a deploy whose check failed) is a failure, not the column's default success.
        ...(entry.outcome ? { outcome: entry.outcome, reason: clip(entry.reason, REASON_MAX) } : {}),
        ...clientColumns(ctx.client),
      })
    },
    async event(e, ctx) {
      // Outside any transaction unless the caller passes one: a refusal's request rolls back, its row must not.
      const db = ctx.trx ?? knex
      await db('audit_log').insert({
        // A successful sign-in is the user's own act; a refused one is nobody's until proven.
        actor_id: ctx.actor?.id ?? (e.outcome === 'success' ? (e.userId ?? null) : null),
        // Who: the signed-in actor, or else the name that was attempted.
        actor_name: clip(ctx.actor?.username ?? e.username, USERNAME_MAX),
        action: e.action,
        resource_type: 'user',
        resource_id: e.userId ?? null,
        resource_name: clip(e.username, NAME_MAX),
        before: null,
        after: e.after === undefined ? null : jsonText(redact(e.after)),
        request_id: ctx.requestId ?? null,
        outcome: e.outcome,
        reason: clip(e.reason, REASON_MAX),
        ...clientColumns(ctx.client),
      })
    },
  }
}
