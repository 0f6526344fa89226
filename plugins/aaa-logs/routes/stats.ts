/** /api/v1/aaa/logs/stats/…: the dashboard's figures from the logs, under the logs' own permission. */
import { defineRoute, ErrorBody, type RouteDefinition } from '../../../sdk/index.js'
import { LOGS_READ } from '../permissions.js'
import { AuthStatsQuery, AuthStatsResponse, TopFailuresQuery, TopFailuresResponse } from '../schemas/stats.js'
import { authenticationStats, topFailures } from '../services/stats.js'
import type { LogsRouteDeps } from './deps.js'

export function statsRoutes(d: LogsRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/aaa/logs/stats/authentications',
      permission: LOGS_READ,
      summary: 'Authentications over time, by protocol and result',
      description:
        'TACACS+ authentications, RADIUS device-administration authentications and NAC (802.1X, MAB) authentications per bucket, successes and failures apart, for the dashboard\'s charts. `range` `15m` and `1h` count one-minute buckets from the rows; `24h` (default) and `7d` sum one-hour buckets from the logs\' rollup (cheap at any log size). The last bucket is the current minute or hour, still filling. Read on the hot standby of `DATABASE_READ_URL` when one is configured and fit.',
      tags: ['aaa-logs'],
      schema: { query: AuthStatsQuery, response: { 200: AuthStatsResponse, 422: ErrorBody } },
      handler: async ({ query }) => d.database.read(({ knex }) => authenticationStats(knex, query.range ?? '24h')),
    }),
    defineRoute({
      method: 'GET',
      path: '/aaa/logs/stats/top-failures',
      permission: LOGS_READ,
      summary: 'The users and devices with the most failed authentications',
      description:
        'Failed authentications (TACACS+ `failure`, RADIUS and NAC `reject`) of the last `hours` (default 24), counted by user name and by device address; the first `limit` (default 5) of each. Read on the hot standby of `DATABASE_READ_URL` when one is configured and fit.',
      tags: ['aaa-logs'],
      schema: { query: TopFailuresQuery, response: { 200: TopFailuresResponse, 422: ErrorBody } },
      handler: async ({ query }) => d.database.read(({ knex }) => topFailures(knex, query.hours ?? 24, query.limit ?? 5)),
    }),
  ]
}
