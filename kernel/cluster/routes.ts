/** GET /api/v1/cluster/nodes: every node and what it serves (view.ts). See docs/deploy.md "Every node serves the active release". */
import type { Knex } from 'knex'
import { defineRoute, Nullable, StringEnum, Type, Uuid } from '../../sdk/index.js'
import { clusterNodes } from './view.js'

const Outcome = (status: Parameters<typeof StringEnum>[0], description: string) =>
  Type.Object(
    {
      status: Nullable(StringEnum(status)),
      output: Type.String({ description: 'The last lines, secret values masked.' }),
      at: Nullable(Type.String({ format: 'date-time' })),
    },
    { additionalProperties: false, description },
  )

export const DaemonProcessSchema = Type.Object(
  {
    daemon: Type.String(),
    state: StringEnum(['running', 'starting', 'backoff', 'stopped', 'no_release', 'no_binary'] as const),
    pid: Nullable(Type.Integer()),
    release: Nullable(Type.String()),
    started_at: Nullable(Type.String({ format: 'date-time' })),
    restarts: Type.Integer({ minimum: 0, description: 'Restarts after an exit since the server started.' }),
    last_exit_code: Nullable(Type.Integer()),
    last_exit_signal: Nullable(Type.String()),
    next_start_at: Nullable(Type.String({ format: 'date-time', description: 'While in backoff: when it is started again.' })),
    reason: Nullable(Type.String({ description: 'Why it is not running.' })),
    output_tail: Type.Array(Type.String(), { description: 'Its last lines of output, secret values masked.' }),
  },
  { title: 'DaemonProcess', additionalProperties: false, description: 'A daemon the node runs itself (server option `daemons.supervise`).' },
)

const NodeDaemon = Type.Object(
  {
    daemon: Type.String(),
    release: Nullable(Type.String({ description: 'The release this node\'s `current` points at.' })),
    deploy_id: Nullable(Uuid()),
    switched_at: Nullable(Type.String({ format: 'date-time' })),
    in_sync: Type.Boolean({ description: 'It serves the cluster\'s active release.' }),
    state: StringEnum(['serving', 'behind', 'failed', 'none'] as const, { description: '`serving` the active release; `behind`: not yet; `failed`: it keeps its old release, `error` says why; `none`: nothing is active.' }),
    error: Nullable(Type.String()),
    check: Type.Object({ ok: Nullable(Type.Boolean()), output: Type.String(), at: Nullable(Type.String({ format: 'date-time' })) }, { additionalProperties: false, description: 'The daemon\'s own check of the release on this node (null ok: could not run).' }),
    reload: Outcome(['ok', 'failed'] as const, 'The last reload (or restart) of the daemon on this node.'),
    process: Nullable(Type.Unsafe<Record<string, unknown>>(DaemonProcessSchema)),
  },
  { additionalProperties: false },
)

export const ClusterNodesResponse = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          node_id: Uuid(),
          hostname: Type.String(),
          address: Nullable(Type.String({ description: 'Where the node\'s API listens, as the node printed it at start.' })),
          version: Type.String(),
          role: StringEnum(['primary', 'replica'] as const),
          started_at: Type.String({ format: 'date-time' }),
          last_seen: Type.String({ format: 'date-time' }),
          live: Type.Boolean({ description: 'Its heartbeat (every 5 s) is less than 20 s old.' }),
          this_node: Type.Boolean({ description: 'The node answering this request.' }),
          daemons: Type.Array(NodeDaemon),
        },
        { additionalProperties: false },
      ),
    ),
    active: Type.Array(Type.Object({ daemon: Type.String(), deploy_id: Uuid(), release: Type.String() }, { additionalProperties: false }), { description: 'The cluster\'s active release per daemon.' }),
  },
  { title: 'ClusterNodesResponse', additionalProperties: false },
)

export const clusterRoutes = (k: { knex: Knex; nodeId: string }) => [
  defineRoute({
    method: 'GET',
    path: '/cluster/nodes',
    permission: 'cluster.read',
    summary: 'The cluster\'s nodes and what each serves',
    description:
      'Every node that ever started on this database: its address, version, role, heartbeat, and per daemon the release its `current` points at compared with the cluster\'s active release (`in_sync`, `state`), the last check and reload on that node, and the supervised process when the node runs the daemon itself (server option `daemons.supervise`). A node whose check of a new release fails keeps serving its old one: `state` is `failed` and `error` says why.',
    tags: ['operations'],
    schema: { response: { 200: ClusterNodesResponse } },
    handler: async () => clusterNodes(k.knex, k.nodeId),
  }),
]
