/** The dashboard's figures from the AAA logs: authentications per time bucket by result, and the top failing users and devices. */
import { Nullable, StringEnum, Timestamp, Type, type Static } from '../../../sdk/index.js'

export const STATS_RANGES = ['15m', '1h', '24h', '7d'] as const
export const STATS_PROTOCOLS = ['tacacs', 'radius', 'nac'] as const

export const AuthStatsQuery = Type.Object(
  {
    range: Type.Optional(
      StringEnum(STATS_RANGES, {
        description: 'How far back: `15m` and `1h` in one-minute buckets (counted from the rows), `24h` (default) and `7d` in one-hour buckets (summed from the logs\' rollup).',
      }),
    ),
  },
  { additionalProperties: false },
)
export type AuthStatsQuery = Static<typeof AuthStatsQuery>

export const AuthStatsResponse = Type.Object(
  {
    range: StringEnum(STATS_RANGES),
    bucket_seconds: Type.Integer({ description: '60 (one minute) or 3600 (one hour).' }),
    from: Timestamp({ description: 'The start of the first bucket (UTC).' }),
    to: Timestamp({ description: 'The end of the last bucket (UTC): the end of the current minute or hour.' }),
    buckets: Type.Array(Timestamp(), { description: 'The start of each bucket, oldest first; every series has one count per bucket.' }),
    series: Type.Array(
      Type.Object(
        {
          protocol: StringEnum(STATS_PROTOCOLS, {
            description: '`tacacs`: TACACS+ authentications; `nac`: RADIUS authentications by 802.1X or MAB (`auth_type` PEAP, EAP-TLS or MAB); `radius`: the other RADIUS authentications (device administration).',
          }),
          result: StringEnum(['success', 'failure'] as const, { description: 'TACACS+ `success`/`failure`; RADIUS `accept` is `success`, `reject` is `failure`.' }),
          counts: Type.Array(Type.Integer({ minimum: 0 })),
          total: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
      { description: 'Six series, always in this order: tacacs, radius, nac, each success then failure.' },
    ),
  },
  { additionalProperties: false },
)

export const TopFailuresQuery = Type.Object(
  {
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, description: 'The window, back from now (default 24).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'How many users and devices each (default 5).' })),
  },
  { additionalProperties: false },
)
export type TopFailuresQuery = Static<typeof TopFailuresQuery>

export const TopFailuresResponse = Type.Object(
  {
    from: Timestamp({ description: 'The window\'s start (UTC); it ends now.' }),
    users: Type.Array(
      Type.Object({ username: Type.String(), failures: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      { description: 'Most failed authentications first (TACACS+ `failure` and RADIUS `reject` together), then by name.' },
    ),
    devices: Type.Array(
      Type.Object(
        { nas_ip: Type.String(), device_name: Nullable(Type.String({ description: 'The inventory name the daemon logged (the latest one of the window).' })), failures: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false },
      ),
      { description: 'Devices (NAS addresses) by the same count; rows without an address are left out.' },
    ),
  },
  { additionalProperties: false },
)
