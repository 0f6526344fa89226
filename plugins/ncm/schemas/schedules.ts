import { Paginated, listQuery, Timestamp, Type, Uuid } from '../../../sdk/index.js'

export const ScheduleParams = Type.Object({ schedule_id: Uuid() }, { additionalProperties: false })

export const Schedule = Type.Object(
  {
    id: Uuid(),
    device_group_id: Uuid({ description: 'Its devices and those of its descendant groups (the nearest schedule wins).' }),
    collector_id: Uuid(),
    credential_id: Uuid(),
    profile_id: Uuid(),
    interval_minutes: Type.Integer(),
    enabled: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'NcmSchedule', additionalProperties: false },
)

export const ScheduleList = Paginated(Schedule, 'NcmScheduleList')
export const ScheduleListQuery = listQuery({ maxPerPage: 500, defaultPerPage: 50, sortBy: ['created_at'] as const })

const Interval = Type.Integer({ minimum: 5, maximum: 10080, description: 'Minutes between fetches (5 to 10080).' })

export const ScheduleCreate = Type.Object(
  {
    device_group_id: Uuid(),
    collector_id: Uuid(),
    credential_id: Uuid(),
    profile_id: Uuid(),
    interval_minutes: Type.Optional({ ...Interval, default: 1440 }),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { title: 'NcmScheduleCreate', additionalProperties: false },
)

export const ScheduleUpdate = Type.Object(
  {
    collector_id: Type.Optional(Uuid()),
    credential_id: Type.Optional(Uuid()),
    profile_id: Type.Optional(Uuid()),
    interval_minutes: Type.Optional(Interval),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'NcmScheduleUpdate', additionalProperties: false, minProperties: 1 },
)
