import { listQuery, Name, Nullable, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'

/** More than every permission a realistic set of plugins declares, and still a bounded body. */
export const MAX_ROLE_PERMISSIONS = 500

const permissions = () =>
  Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    uniqueItems: true,
    maxItems: MAX_ROLE_PERMISSIONS,
    description: 'Permission names, each declared by the kernel or a loaded plugin (see GET /api/v1/rbac/schema); an undeclared name answers 422 naming the item.',
  })

const fields = {
  name: Name({ maxLength: 64, description: 'Unique, case-insensitively.' }),
  description: OptionalText({ maxLength: 500 }),
  permissions: Type.Optional(permissions()),
}

export const RoleCreate = Type.Object(fields, { title: 'RoleCreate', additionalProperties: false })

export const RoleUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'RoleUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `permissions` replaces the whole list.' },
)

export const RoleResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    permissions: Type.Array(Type.String(), { description: 'Sorted.' }),
    user_count: Type.Integer({ minimum: 0, description: 'Users given the role directly.' }),
    group_count: Type.Integer({ minimum: 0, description: 'User groups holding the role.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'RoleResponse', additionalProperties: false },
)

export const RoleListResponse = Paginated(RoleResponse, 'RoleListResponse')

export const RoleParams = Type.Object({ role_id: Uuid() }, { additionalProperties: false })

export const RoleListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'created_at', 'updated_at'] as const,
  filters: { permission: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Roles that grant this permission.' })) },
})

export type RoleCreate = Static<typeof RoleCreate>
export type RoleUpdate = Static<typeof RoleUpdate>
export type RoleResponse = Static<typeof RoleResponse>
