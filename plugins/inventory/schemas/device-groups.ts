import { listQuery, Nullable, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { MAX_GROUP_DEPTH } from '../services/hierarchy.js'
import { ConfigName } from './common.js'

const fields = {
  name: ConfigName('Unique, case-insensitively. Letters, digits and `. _ -`, starting with a letter or digit: it becomes a group name in the daemon configuration.'),
  description: OptionalText({ maxLength: 500 }),
  parent_id: Type.Optional(
    Nullable(
      Uuid({
        description: `The group this one sits under; \`null\` for a top-level group. Devices of a group belong to all its ancestors too. Unknown: 422 REFERENCE_NOT_FOUND. The group itself or one of its subgroups: 422 GROUP_CYCLE. At most ${MAX_GROUP_DEPTH} levels: 422 GROUP_TOO_DEEP.`,
      }),
    ),
  ),
}

export const DeviceGroupCreate = Type.Object(fields, { title: 'DeviceGroupCreate', additionalProperties: false })

export const DeviceGroupUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'DeviceGroupUpdate', additionalProperties: false, description: 'Partial: only the fields given change. A new `parent_id` moves the group with its whole subtree.' },
)

export const DeviceGroupResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    parent_id: Nullable(Uuid()),
    device_count: Type.Integer({ minimum: 0, description: 'Devices directly in the group (not in its subgroups).' }),
    child_count: Type.Integer({ minimum: 0, description: 'Direct subgroups.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'DeviceGroupResponse', additionalProperties: false },
)

export const DeviceGroupListResponse = Paginated(DeviceGroupResponse, 'DeviceGroupListResponse')

export const DeviceGroupParams = Type.Object({ device_group_id: Uuid() }, { additionalProperties: false })

export const DeviceGroupListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'created_at', 'updated_at'] as const,
  filters: {
    parent_id: Type.Optional(Uuid({ description: 'Direct subgroups of this group.' })),
    top_level: Type.Optional(Type.Boolean({ description: '`true`: only groups without a parent; `false`: only groups with one.' })),
  },
})

export type DeviceGroupCreate = Static<typeof DeviceGroupCreate>
export type DeviceGroupUpdate = Static<typeof DeviceGroupUpdate>
