import { defineRoute, likeEscape, listQuery, paginate, Paginated, StringEnum, Timestamp, Type, Nullable, Uuid, type RowOf } from '../../sdk/index.js'
import type { AuditLogTable } from '../db/tables.js'
import type { KernelContext } from './context.js'

const AuditEntry = Type.Object(
  {
    id: Uuid(),
    at: Type.String({ format: 'date-time' }),
    actor_id: Nullable(Type.String()),
    actor_name: Nullable(Type.String({ description: 'The signed-in actor; for a refused sign-in, the user name that was attempted.' })),
    action: Type.String(),
    resource_type: Type.String(),
    resource_id: Nullable(Type.String()),
    resource_name: Nullable(
      Type.String({ description: "The object's name at the time of the event (a user name, a device's name, an endpoint's MAC), kept after a rename or deletion; null when the record has none (a reorder, a setting) or the entry predates the column." }),
    ),
    before: Type.Unknown(),
    after: Type.Unknown(),
    request_id: Nullable(Type.String()),
    outcome: StringEnum(['success', 'failure'] as const, { description: 'Changes are successes; a refused sign-in, code or password check is a failure, and so is a deploy refused by a check (`deploy.failed`, reason `check_failed`, `check_skipped` or `not_activated`).' }),
    reason: Nullable(
      Type.String({
        description:
          'Why an attempt was refused: unknown_user, bad_password, disabled, no_local_password, expired, directory_not_configured, directory_user_not_found, directory_unavailable, locked (a rate limit refused it), mfa_bad_code, mfa_budget_spent, mfa_not_enrolled; for a revocation, what caused it.',
      }),
    ),
    ip: Nullable(Type.String({ description: 'Client address of the request (X-Forwarded-For only with TRUST_PROXY).' })),
    user_agent: Nullable(Type.String({ description: 'The request\'s User-Agent, cut to 256 characters.' })),
  },
  { title: 'AuditEntryResponse', additionalProperties: false },
)

const AuditQuery = listQuery({
  maxPerPage: 200,
  defaultPerPage: 50,
  sortBy: ['at', 'action', 'resource_type', 'actor_name'] as const,
  defaultSortOrder: 'desc',
  filters: {
    resource_type: Type.Optional(Type.String({ maxLength: 64 })),
    resource_id: Type.Optional(Type.String({ maxLength: 128 })),
    actor_id: Type.Optional(Type.String({ maxLength: 64 })),
    actor_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Exact actor or attempted user name (case-insensitive).' })),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Exact action (`auth.login`), or a prefix ending in `.` (`auth.`).' })),
    outcome: Type.Optional(StringEnum(['success', 'failure'] as const)),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Exact reason code.' })),
    ip: Type.Optional(Type.String({ minLength: 2, maxLength: 64, description: 'Exact client address.' })),
    at_from: Type.Optional(Timestamp({ description: 'Entries at or after this instant.' })),
    at_to: Type.Optional(Timestamp({ description: 'Entries at or before this instant.' })),
  },
})

export const auditRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/audit',
    permission: 'audit.read',
    summary: 'Audit trail',
    description:
      'Every change made through the API: who, what, the record before and after, from which address. Also every sign-in and refused sign-in, lockout (a rate limit refusing a credential check), refused second-factor code and token revocation, with a reason code. Secret fields are masked; attempted passwords and codes are never written.',
    tags: ['system'],
    schema: { query: AuditQuery, response: { 200: Paginated(AuditEntry, 'AuditEntryListResponse') } },
    handler: async ({ query }) =>
      paginate(query, {
        base: () => k.knex('audit_log'),
        equals: { resource_type: 'resource_type', resource_id: 'resource_id', actor_id: 'actor_id', outcome: 'outcome', reason: 'reason', ip: 'ip' },
        filter: (qb) => {
          if (query.actor_name) qb.whereRaw('lower(actor_name) = lower(?)', [query.actor_name])
          // `auth.` selects every auth.* action; LIKE wildcards in the prefix are taken literally.
          if (query.action?.endsWith('.')) qb.whereRaw(`action LIKE ? ESCAPE '\\'`, [likeEscape(query.action) + '%'])
          else if (query.action) qb.where('action', query.action)
          if (query.at_from) qb.where('at', '>=', query.at_from)
          if (query.at_to) qb.where('at', '<=', query.at_to)
        },
        searchColumns: ['action', 'resource_type', 'resource_id', 'resource_name', 'actor_name'],
        sortColumns: { at: 'at', action: 'action', resource_type: 'resource_type', actor_name: 'actor_name' },
        defaultSort: 'at',
        defaultPerPage: 50,
        tieBreaker: 'id',
        map: (r: RowOf<typeof AuditLogTable>) => ({ ...r, at: new Date(r.at).toISOString() }),
      }),
  }),
]
