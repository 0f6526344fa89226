import { defineRoute, Type, Nullable, StringEnum } from '../../sdk/index.js'
import { appliedHead } from '../db/migrate.js'
import type { KernelContext } from './context.js'

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
    plugins: Type.Array(Type.Object({ id: Type.String(), version: Type.String() }, { additionalProperties: false })),
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
      { description: 'Settings marked security-relevant (where mail and links go, session lifetime, shared keys, log ingestion): only an administrator may change them.' },
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
  },
  { title: 'SystemInfoResponse', additionalProperties: false },
)

export const systemInfoRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/dashboard/system-info',
    permission: 'system.info.read',
    summary: 'System information',
    description: 'Version, applied schema revision, uptime, time zone and clock of the node that answers.',
    tags: ['system'],
    schema: { response: { 200: SystemInfo } },
    handler: async () => ({
      version: k.version,
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
    }),
  }),
]
