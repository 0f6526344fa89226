/**
 * Liveness and readiness. /healthz answers while the process runs, whatever
 * the database does (so an orchestrator does not restart a node for an outage
 * it cannot fix); /ready reports the dependencies and answers 503 when degraded,
 * so a load balancer stops sending traffic.
 */
import { defineRoute, reply, PUBLIC, Type, StringEnum } from '../../sdk/index.js'
import type { Knex } from 'knex'
import type { KernelContext } from './context.js'
import { EditionSchema, PluginVersionSchema } from './system-info.js'

const SCHEMA_WAITING = 'Present only while the node waits for the schema to arrive by replication (its database is a standby and the primary has not yet applied the migrations this version brings: see docs/cluster.md); every other request answers 503 `SCHEMA_WAITING` meanwhile.'

const Liveness = Type.Object(
  { status: StringEnum(['ok'] as const), schema: Type.Optional(StringEnum(['waiting'] as const, { description: SCHEMA_WAITING })) },
  { title: 'LivenessReport', additionalProperties: false },
)

export const ReadinessReport = Type.Object(
  {
    status: StringEnum(['healthy', 'degraded'] as const),
    version: Type.String(),
    edition: EditionSchema,
    plugins: Type.Array(PluginVersionSchema, { description: 'The plugins this node runs (the edition\'s list, or PLUGINS), with their versions.' }),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    checks: Type.Object(
      {
        database: StringEnum(['ok', 'unreachable'] as const),
        master_key: StringEnum(['loaded', 'missing'] as const),
        read_replica: Type.Optional(
          StringEnum(['ok', 'lagging', 'unreachable', 'not_standby'] as const, {
            description:
              'Present when DATABASE_READ_URL names a hot standby for log searches and exports: `ok` (they read it), `lagging` (more than DATABASE_READ_MAX_LAG_MS behind), `unreachable`, `not_standby` (the server accepts writes). In every state but `ok` those reads go to the primary, so it never makes the node `degraded`.',
          }),
        ),
        schema: Type.Optional(StringEnum(['waiting'] as const, { description: SCHEMA_WAITING + ' The node is `degraded` (503) then.' })),
        daemons: Type.Optional(
          Type.Record(Type.String(), StringEnum(['running', 'down'] as const), {
            description: 'Present when the node runs daemons itself (server option `daemons.supervise`): each one `running` or `down`; one down makes the node `degraded` (503).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'ReadinessReport', additionalProperties: false },
)

/** `select 1` bounded in time: a hung server counts as unreachable, not as a hung probe. */
export async function pingKnex(knex: Knex, timeoutMs = 800): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))
  try {
    return await Promise.race([knex.raw('select 1').then(() => true, () => false), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The read replica's state, when one is configured (absent, like `daemons`, when there is nothing to report). */
function readReplicaCheck(k: KernelContext) {
  const s = k.readReplica()
  return s === 'off' ? {} : { read_replica: s }
}
export const pingDatabase = (k: KernelContext, timeoutMs = 800) => pingKnex(k.knex, timeoutMs)

export const healthRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/healthz',
    root: true,
    permission: PUBLIC,
    summary: 'Liveness',
    description: 'Answers `{ status: "ok" }` while the process runs; carries no version.',
    tags: ['operations'],
    schema: { response: { 200: Liveness } },
    handler: async () => ({ status: 'ok' as const }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ready',
    root: true,
    permission: PUBLIC,
    summary: 'Readiness',
    description: '`healthy` when the database is reachable, the master key loaded and every daemon the node runs itself (server option `daemons.supervise`) running; otherwise `degraded` with status 503.',
    tags: ['operations'],
    schema: { response: { 200: ReadinessReport, 503: ReadinessReport } },
    handler: async () => {
      const db = await pingDatabase(k)
      const supervised = k.daemons()
      const daemons = Object.fromEntries(supervised.map((d) => [d.daemon, d.state === 'running' ? ('running' as const) : ('down' as const)]))
      const healthy = db && k.masterKeyLoaded && Object.values(daemons).every((s) => s === 'running')
      const body = {
        status: healthy ? ('healthy' as const) : ('degraded' as const),
        version: k.version,
        edition: k.edition,
        plugins: k.plugins,
        uptime_seconds: Math.floor((Date.now() - k.startedAt.getTime()) / 1000),
        checks: { database: db ? ('ok' as const) : ('unreachable' as const), master_key: k.masterKeyLoaded ? ('loaded' as const) : ('missing' as const), ...readReplicaCheck(k), ...(supervised.length ? { daemons } : {}) },
      }
      return reply({ status: healthy ? 200 : 503, body, headers: { 'Cache-Control': 'no-store' } })
    },
  }),
]
