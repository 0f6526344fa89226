import { defineRoute, Type, Nullable, StringEnum } from '../../sdk/index.js'
import { appliedHead } from '../db/migrate.js'
import type { KernelContext } from './context.js'
import { DaemonProcessSchema } from '../cluster/routes.js'

/** Per daemon: changes not yet deployed (kernel/deploy/pending.ts). */
export const PendingDaemonSchema = Type.Object(
  {
    daemon: Type.String(),
    pending: Type.Boolean({ description: 'true: what a deploy would render now differs from the files of the active release (or nothing is deployed yet). A change that renders identically (edited, then put back) is not pending.' }),
    active_release: Nullable(Type.String({ description: 'The active release (folder name); null: never deployed.' })),
    deploy_id: Nullable(Type.String({ format: 'uuid', description: 'The deploy that activated it: `GET /api/v1/deploys/{deploy_id}`.' })),
    deployed_at: Nullable(Type.String({ format: 'date-time', description: 'When it became active.' })),
  },
  { title: 'PendingDaemon', additionalProperties: false },
)

/** Where the diff of what is pending comes from: the deploy's dry run. */
export const DryRunCall = Type.Object(
  {
    method: Type.Literal('POST'),
    path: Type.Literal('/api/v1/deploys'),
    body: Type.Object({ dry_run: Type.Literal(true) }, { additionalProperties: false }),
  },
  { title: 'DeployDryRunCall', additionalProperties: false, description: 'The call that shows the pending changes as a per-file diff (secrets masked), activating nothing; add `daemon` to the body for one daemon. Needs deploy.write.' },
)

export const dryRunCall = { method: 'POST' as const, path: '/api/v1/deploys' as const, body: { dry_run: true as const } }

export const EditionSchema = Type.Object(
  {
    id: StringEnum(['community', 'pro'] as const, { description: 'The running edition (EDITION): `community` (the core plugins) or `pro` (those and the Pro plugins).' }),
    name: StringEnum(['Community', 'Pro'] as const, { description: 'The edition as shown.' }),
  },
  { title: 'Edition', additionalProperties: false },
)

export const PluginVersionSchema = Type.Object({ id: Type.String(), version: Type.String() }, { title: 'PluginVersion', additionalProperties: false })

const SystemInfo = Type.Object(
  {
    version: Type.String({ description: 'Platform version (package.json or SERVICE_VERSION).' }),
    schema_revision: Type.Record(Type.String(), Nullable(Type.String()), { description: 'Last applied migration of the kernel and of each plugin.' }),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    timezone: Type.String({ description: 'IANA time zone of the server.' }),
    server_time: Type.String({ format: 'date-time', description: 'The server clock, UTC.' }),
    node_id: Type.String({ format: 'uuid' }),
    role: StringEnum(['primary', 'replica'] as const),
    database_engine: StringEnum(['postgres', 'embedded'] as const),
    edition: EditionSchema,
    installation_id: Nullable(
      Type.String({
        format: 'uuid',
        description:
          'The installation identifier of the Pro edition: random, made once, the same on every node of the cluster and across restarts; sent only to the update feed, and only when the update check is enabled (docs/editions.md). Shown only to an administrator: null for anyone else, and always null in the Community edition.',
      }),
    ),
    plugins: Type.Array(PluginVersionSchema, { description: 'The plugins this node loaded (the edition\'s list, or PLUGINS), with their versions.' }),
    security_settings: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          owner: Type.String(),
          value: Type.Unknown({ description: 'The current value; `***` for a secret that is set.' }),
          updated_at: Nullable(Type.String({ format: 'date-time', description: 'Last change; null while the default applies.' })),
          updated_by: Nullable(Type.String({ description: 'Who changed it last: a user name, or `config-file`.' })),
        },
        { additionalProperties: false },
      ),
      { description: 'Settings marked security-relevant (where mail and links go, session lifetime, shared keys, log ingestion, where the daemons listen, CoA, releases kept): only an administrator may change them.' },
    ),
    server_options: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          env: Nullable(Type.String({ description: 'The environment variable that sets it.' })),
          source: StringEnum(['env', 'config-file', 'default'] as const),
          value: Type.Unknown(),
        },
        { additionalProperties: false },
      ),
      { description: 'Programs, paths and command lines the server uses, from its own configuration (never settable through the API).' },
    ),
    deploy: Type.Object(
      {
        pending: Type.Boolean({ description: 'true when any daemon has changes not yet deployed.' }),
        checked_at: Type.String({ format: 'date-time', description: 'When the compared render was made. A change through the API (audited) is seen at the next poll; a write nothing audits, within 30 s.' }),
        daemons: Type.Array(PendingDaemonSchema, { description: 'Each daemon a renderer writes, by name.' }),
        render_error: Nullable(Type.String({ description: 'The error code a deploy would answer now (e.g. `DEPLOY_RENDER_FAILED`: the configuration does not render), when the pending state could not be computed; `daemons` is then empty and `pending` true.' })),
        dry_run: DryRunCall,
      },
      { additionalProperties: false, description: 'Changes not yet deployed: what a deploy would render now compared with each daemon\'s active release, cheap to poll (cached per database snapshot). See docs/deploy.md.' },
    ),
    daemons: Type.Array(DaemonProcessSchema, { description: 'The daemons this node runs itself (server option `daemons.supervise`): state, pid, release, restarts, last exit and output lines. Empty when the node supervises none.' }),
  },
  { title: 'SystemInfoResponse', additionalProperties: false },
)

async function pendingState(k: KernelContext) {
  try {
    const { checked_at, daemons } = await k.pending()
    return { pending: daemons.some((d) => d.pending), checked_at, daemons, render_error: null, dry_run: dryRunCall }
  } catch (e) {
    // The page still answers; the deploy's own error says the same at POST /deploys.
    return { pending: true, checked_at: new Date().toISOString(), daemons: [], render_error: (e as { code?: string }).code ?? 'DEPLOY_RENDER_FAILED', dry_run: dryRunCall }
  }
}

export const systemInfoRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/dashboard/system-info',
    permission: 'system.info.read',
    summary: 'System information',
    description: 'Version, edition (and, for an administrator of the Pro edition, the installation id), applied schema revision, uptime, time zone and clock of the node that answers, and `deploy`: per daemon, whether there are changes not yet deployed, with the dry-run call that shows them.',
    tags: ['system'],
    schema: { response: { 200: SystemInfo } },
    handler: async (req) => ({
      version: k.version,
      edition: k.edition,
      installation_id: req.actor?.isAdmin ? k.installationId : null,
      schema_revision: await appliedHead(k.knex, k.owners),
      uptime_seconds: Math.floor((Date.now() - k.startedAt.getTime()) / 1000),
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      server_time: new Date().toISOString(),
      node_id: k.nodeId,
      role: k.role,
      database_engine: k.engine,
      plugins: k.plugins,
      security_settings: await k.settings.securityState(),
      server_options: k.options.list().map(({ key, env, source, value }) => ({ key, env, source, value })),
      deploy: await pendingState(k),
      daemons: k.daemons(),
    }),
  }),
]
