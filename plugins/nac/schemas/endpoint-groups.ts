import { listQuery, Nullable, OptionalText, Paginated, Timestamp, Type, Uuid, type Static } from '../../../sdk/index.js'
import { ConfigName, DeviceType } from './common.js'

const fields = {
  name: ConfigName('Unique, case-insensitively. Letters, digits and `. _ -`, starting with a letter or digit: the NAC policy will name the group in the FreeRADIUS configuration.'),
  description: OptionalText({ maxLength: 500 }),
  placement_device_types: Type.Optional(
    Type.Array(DeviceType('A device type.'), {
      maxItems: 50,
      uniqueItems: true,
      description:
        'Placement rules: an endpoint that profiling types as one of these (case-insensitively) and that has no static group joins this group; when its type changes to one no group places, it leaves. A group set by an admin or an import (static membership) always wins. When several groups place the same type, the first by name takes the endpoint. Default `[]`.',
    }),
  ),
}

export const EndpointGroupCreate = Type.Object(fields, { title: 'EndpointGroupCreate', additionalProperties: false })

export const EndpointGroupUpdate = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { title: 'EndpointGroupUpdate', additionalProperties: false, description: 'Partial: only the fields given change.' },
)

export const EndpointGroupResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String()),
    placement_device_types: Type.Array(Type.String()),
    endpoint_count: Type.Integer({ minimum: 0, description: 'Endpoints in the group.' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'EndpointGroupResponse', additionalProperties: false },
)

export const EndpointGroupListResponse = Paginated(EndpointGroupResponse, 'EndpointGroupListResponse')

export const EndpointGroupParams = Type.Object({ endpoint_group_id: Uuid() }, { additionalProperties: false })

export const EndpointGroupListQuery = listQuery({
  maxPerPage: 100,
  defaultPerPage: 20,
  sortBy: ['name', 'created_at', 'updated_at'] as const,
})

export type EndpointGroupCreate = Static<typeof EndpointGroupCreate>
export type EndpointGroupUpdate = Static<typeof EndpointGroupUpdate>
