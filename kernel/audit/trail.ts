/**
 * The audit trail: who changed what, with the record before and after,
 * written in the same transaction as the change so that neither exists
 * without the other.
 */
import type { Knex } from 'knex'
import type { AuditService } from '../../sdk/index.js'

/** Fields never written to the audit trail, whatever a plugin passes. */
const SECRET_FIELD = /(password|secret|key|token|seed|hash)$/i

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact)
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    // A boolean cannot hold a secret: `has_tacacs_key: true` says only that one is set, which the trail should show.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v != null && typeof v !== 'boolean' ? '***' : redact(v)]))
  }
  return value
}

export function createAuditTrail(knex: Knex): AuditService {
  return {
    async record(entry, ctx) {
      const db = ctx.trx ?? knex
      await db('audit_log').insert({
        actor_id: ctx.actor?.id ?? null,
        actor_name: ctx.actor?.username ?? null,
        action: entry.action,
        resource_type: entry.resourceType,
        resource_id: entry.resourceId ?? null,
        before: entry.before === undefined ? null : JSON.stringify(redact(entry.before)),
        after: entry.after === undefined ? null : JSON.stringify(redact(entry.after)),
        request_id: ctx.requestId ?? null,
      })
    },
  }
}
