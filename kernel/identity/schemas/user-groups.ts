import { listQuery, Name, Nullable, OptionalText, Paginated, StringEnum, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAX_LINKS } from './users.js'

const roleIds = () =>
  Type.Array(Uuid(), { uniqueItems: true, maxItems: MAX_LINKS, description: 'Roles every member gets; the whole list is replaced when given. Unknown ids answer 422 naming the item.' })

/**
 * A distinguished name as the directory writes it (RFC 4514): attribute=value pairs separated by commas. No
 * control characters, no `"`, `\\`, `%` or `$` (the daemons' configurations quote and expand), compared without regard to case.
 */
export const DIRECTORY_DN = '^[A-Za-z][A-Za-z0-9-]*=[^\\u0000-\\u001f\\u007f"\\\\%$]+$'
const directoryGroupDn = () =>
  Nullable(
    Type.String({
      minLength: 3,
      maxLength: 1024,
      pattern: DIRECTORY_DN,
      description:
        'The DN of a directory group (e.g. cn=netops,ou=groups,dc=example,dc=org): directory users the directory lists as its members (attribute member of the group, or memberOf of the entry) are members of this group too, for the AAA policy on the daemons. Compared without regard to case; write it as the directory does (no spaces after the commas); no `"`, `\\`, `%` or `$`. Gives no roles: the API\'s permissions come from the local memberships only. Null: no mapping. docs/directory.md.',
    }),
  )

const fields = {
  name: Name({ maxLength: 64, description: 'Unique, case-insensitively.' }),
  description: OptionalText({ maxLength: 500 }),
  role_ids: Type.Optional(roleIds()),
  directory_group_dn: Type.Optional(directoryGroupDn()),
}

export const UserGroupCreate = Type.Object(fields, { title: 'UserGroupCreate', additionalProperties: false })

export const UserGroupUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'UserGroupUpdate', additionalProperties: false, description: 'Partial: only the fields given change. `role_ids` replaces the whole list.' },
)

export const UserGroupResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    role_ids: Type.Array(Uuid()),
    directory_group_dn: Nullable(Type.String()),
    member_count: Type.Integer({ minimum: 0 }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'UserGroupResponse', additionalProperties: false },
)

export const UserGroupListResponse = Paginated(UserGroupResponse, 'UserGroupListResponse')

export const UserGroupParams = Type.Object({ group_id: Uuid() }, { additionalProperties: false })

export const UserGroupListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'created_at', 'updated_at'] as const,
  filters: { role_id: Type.Optional(Uuid({ description: 'Groups holding this role.' })) },
})

/** A member as the group sees it: enough to list and link, without the user's administrative fields. */
export const UserGroupMember = Type.Object(
  {
    id: Uuid(),
    username: Type.String(),
    display_name: Nullable(Type.String()),
    enabled: Type.Boolean(),
    source: StringEnum(['local', 'directory'] as const),
  },
  { title: 'UserGroupMemberResponse', additionalProperties: false },
)

export const UserGroupMemberListResponse = Paginated(UserGroupMember, 'UserGroupMemberListResponse')

export const UserGroupMemberQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['username', 'display_name'] as const,
  filters: { enabled: Type.Optional(Type.Boolean()) },
})

export type UserGroupCreate = Static<typeof UserGroupCreate>
export type UserGroupUpdate = Static<typeof UserGroupUpdate>
export type UserGroupResponse = Static<typeof UserGroupResponse>
