import { defineRoute, listQuery, paginate, Paginated, Type, Nullable, Uuid, type Static } from '../../sdk/index.js'
import type { KernelContext } from './context.js'

const AuditEntry = Type.Object(
  {
    id: Uuid(),
    at: Type.String({ format: 'date-time' }),
    actor_id: Nullable(Type.String()),
    actor_name: Nullable(Type.String()),
    action: Type.String(),
    resource_type: Type.String(),
    resource_id: Nullable(Type.String()),
    before: Type.Unknown(),
    after: Type.Unknown(),
    request_id: Nullable(Type.String()),
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
  },
})

interface Row {
  id: string
  at: Date
  actor_id: string | null
  actor_name: string | null
  action: string
  resource_type: string
  resource_id: string | null
  before: unknown
  after: unknown
  request_id: string | null
}

export const auditRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/audit',
    permission: 'audit.read',
    summary: 'Audit trail',
    description: 'Every change made through the API: who, what, the record before and after. Secret fields are masked.',
    tags: ['system'],
    schema: { query: AuditQuery, response: { 200: Paginated(AuditEntry, 'AuditEntryListResponse') } },
    handler: async ({ query }) =>
      paginate<Row, Static<typeof AuditEntry>>(query, {
        base: () => k.knex('audit_log'),
        filter: (qb) => {
          if (query.resource_type) qb.where('resource_type', query.resource_type)
          if (query.resource_id) qb.where('resource_id', query.resource_id)
          if (query.actor_id) qb.where('actor_id', query.actor_id)
        },
        searchColumns: ['action', 'resource_type', 'resource_id', 'actor_name'],
        sortColumns: { at: 'at', action: 'action', resource_type: 'resource_type', actor_name: 'actor_name' },
        defaultSort: 'at',
        defaultPerPage: 50,
        tieBreaker: 'id',
        map: (r) => ({ ...r, at: new Date(r.at).toISOString() }),
      }),
  }),
]
