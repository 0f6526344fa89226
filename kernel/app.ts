/**
 * Boot: configuration → plugins (loaded, checked, ordered) → master key →
 * database → migrations (or, on a replica, the wait for them) → settings →
 * plugin init → routes → start hooks → listen. Any refusal is a BootError
 * with a code, raised before a single request is served.
 */
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { coreServices, identityServices, isPortcullisError, type DatabaseService, type Logger, type PluginContributions, type ResolvedDeps, type ServiceRef } from '../sdk/index.js'
import { BootError } from './boot-error.js'
import type { Config } from './config.js'
import { EDITIONS, projectRoot, platformVersion } from './version.js'
import { createLogger } from './logger.js'
import { createTranslator } from './i18n.js'
import { loadPlugins, orderPlugins } from './plugins/load.js'
import { migrationOwners } from './migration-owners.js'
import { initPlugin } from './plugins/init.js'
import { ContributionRegistry } from './plugins/registry.js'
import { ServiceRegistry } from './container.js'
import { loadMasterKey } from './security/master-key.js'
import { createSecrets } from './security/secrets.js'
import { unlockMasterKey } from './security/unlock.js'
import { privateUmask, protectDataDir } from './security/data-dir.js'
import { TokenService } from './security/tokens.js'
import { Gate } from './security/gate.js'
import { connect } from './db/connect.js'
import { migrateAll, schemaHeadReached, waitForSchemaHead } from './db/migrate.js'
import { isStandby } from './db/hosts.js'
import { schemaWaitHandler } from './http/schema-wait.js'
import { assertNoSchemaDrift, declaredTables } from './db/drift.js'
import { kernelTables } from './db/tables.js'
import { loadNodeId, registerNode } from './cluster/node.js'
import { SettingsStore } from './settings/store.js'
import { createAuditTrail } from './audit/trail.js'
import { Validation } from './http/validation.js'
import { RateLimiter } from './http/rate-limit.js'
import { createHttpApp } from './http/server.js'
import { answerClientError } from './http/conventions.js'
import { buildOpenApi } from './http/openapi.js'
import type { KernelContext } from './routes/context.js'
import { healthRoutes, pingKnex } from './routes/health.js'
import { systemInfoRoutes } from './routes/system-info.js'
import { startReadReplica, type ReadReplica } from './db/read-replica.js'
import { auditRoutes } from './routes/audit.js'
import { settingsRoutes } from './routes/settings.js'
import { rbacRoutes } from './routes/rbac.js'
import { ActorCache } from './identity/actors.js'
import { Identity } from './identity/service.js'
import { UserLifecycle } from './identity/lifecycle.js'
import { createDirectory } from './identity/directory.js'
import { createReportSources } from './reports/sources.js'
import { createMail } from './identity/mail.js'
import { identitySettings, publicUrl as publicUrlSetting } from './identity/settings.js'
import { bootstrapAdmin } from './identity/bootstrap.js'
import { authRoutes } from './identity/routes/auth.js'
import { passwordResetRoutes } from './identity/routes/password-reset.js'
import { identityRoutes } from './identity/routes/index.js'
import { allowUncheckedSetting, DeployService, deploySettings, keepReleasesSetting, reloadCommandsOption } from './deploy/service.js'
import { pruneReleaseFolders, releasesDir } from './deploy/files.js'
import { runReloadCommand } from './deploy/reload.js'
import { purgeCleartext } from './deploy/housekeeping.js'
import { NodeAgent } from './cluster/agent.js'
import { clusterRoutes } from './cluster/routes.js'
import { superviseOption } from './daemons/options.js'
import { superviseDaemons, verifySupervised } from './daemons/wiring.js'
import { ServerOptions } from './settings/server-options.js'
import { deployRoutes } from './deploy/routes.js'
import { BackupService } from './backup/service.js'
import { backupRoutes } from './backup/routes.js'
import en from './locales/en.js'
import ru from './locales/ru.js'

export interface App {
  server: http.Server
  url: string
  version: string
  nodeId: string
  db: DatabaseService
  tokens: TokenService | null
  log: Logger
  registry: ContributionRegistry
  identity: Identity
  /** The deploy pipeline (render, check, activate, roll back). */
  deploys: DeployService
  /** Backup archives of this installation (kernel/backup/). */
  backups: BackupService
  /** Set on the very first start: the administrator's password, to print once. */
  bootstrap: { password: string; generated: boolean } | null
  /** The master key is loaded: secrets, tokens and sign-in work. */
  masterKeyLoaded: boolean
  /** No user exists at all (no master key on a first start: nobody could sign in, so no administrator was made). */
  noUsers: boolean
  /** A plugin's deps outside its init (its CLI commands), resolved by the same rules as init's. */
  resolveDeps<D extends Record<string, ServiceRef<unknown>>>(pluginId: string, deps: D): ResolvedDeps<D>
  /** Stop accepting, drain in-flight requests, stop plugins, close the database. */
  stop(): Promise<void>
  /** The validators; those no request has used yet compile after listen (`compilePending`). */
  validation: Validation
}

/** Where compiled (dist/) or source code lives: built-in plugins are found beside the kernel. */
const codeDir = () => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** `background: false` (the command line) leaves the plugins' start hooks (log ingestion …) unrun. */
export async function startApp(config: Config, opts: { log?: Logger; background?: boolean } = {}): Promise<App> {
  const startedAt = new Date()
  const log = opts.log ?? createLogger(config.logLevel)
  const version = platformVersion(config.serviceVersion)
  const i18n = await createTranslator()
  const validation = new Validation()

  const plugins = orderPlugins(await loadPlugins(config.plugins, { root: projectRoot(), codeDir: codeDir() }))
  const edition = EDITIONS[config.edition]
  const pluginList = plugins.map((p) => ({ id: p.def.id, version: p.def.version }))
  const tables = declaredTables([{ owner: 'kernel', tables: kernelTables }, ...plugins.map((p) => ({ owner: p.def.id, tables: p.def.tables ?? [] }))])

  const master = loadMasterKey({ ...config, mayGenerate: !config.databaseUrl })
  if (master.source === 'generated') log.info({ file: path.join(config.dataDir, 'master.key') }, 'generated a new master key (mode 0600): back it up; secrets cannot be read without it')
  if (!master.material) log.error('no master key (MASTER_KEY or MASTER_KEY_FILE): readiness is degraded and secrets and tokens are unavailable')

  // Everything written under DATA_DIR (database, releases, node id) is the service user's
  // alone, whatever umask the process was started with; the walks repair what is already
  // there and what PGlite writes with its own modes (security/data-dir.ts).
  const db = await connect({ ...config, log })
  const releaseUmask = privateUmask()
  let replica: ReadReplica | null = null
  // Created now, listening only when the app is ready, or earlier while a node on a standby waits for the
  // schema (it must answer /healthz and /ready then): what it answers is `dispatch`.
  let dispatch: http.RequestListener = (_req, res) => void res.destroy()
  const server = http.createServer({ requireHostHeader: false }, (req, res) => dispatch(req, res))
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => reject(new BootError('CONFIG_INVALID', `cannot listen on ${config.host}:${config.port}: ${e.code ?? e.message}`)))
      server.listen(config.port, config.host, resolve)
    })
  const stopDb = async () => {
    await replica?.stop()
    if (server.listening) await new Promise<void>((r) => server.close(() => r()))
    await db.knex.destroy().catch(() => undefined)
    protectDataDir(config.dataDir, log)
    releaseUmask()
  }
  try {
    await db.knex.raw('select 1')
  } catch (e) {
    await stopDb()
    throw new BootError('DATABASE_UNREACHABLE', `cannot reach the database: ${(e as Error).message}`)
  }
  protectDataDir(config.dataDir, log)
  // Log searches and exports on a hot standby (kernel/db/read-replica.ts); loadConfig refuses it without DATABASE_URL.
  if (config.databaseReadUrl) replica = await startReadReplica(db, { url: config.databaseReadUrl, maxLagMs: config.databaseReadMaxLagMs, statementTimeoutMs: config.dbStatementTimeoutMs, log })

  try {
    const owners = migrationOwners(plugins)
    // Only a node whose database is the primary migrates. A node on a hot standby (ROLE=replica, or a
    // DATABASE_URL that reached a standby) waits for the migrations to arrive by replication, answering
    // /healthz and /ready with `schema: "waiting"` meanwhile: the upgrade order is replicas first, primary last.
    const standby = db.engine === 'postgres' && (await isStandby(db.knex))
    if (standby && config.role === 'primary') log.info('the database is a hot standby: this node runs as a replica (it never migrates nor writes)')
    const primary = config.role === 'primary' && !standby
    const role = primary ? ('primary' as const) : ('replica' as const)
    if (primary) await migrateAll(db.knex, owners, log)
    else if (!(await schemaHeadReached(db.knex, owners))) {
      dispatch = schemaWaitHandler({ version, edition, plugins: pluginList, startedAt, masterKeyLoaded: master.material !== null, i18n, ping: () => pingKnex(db.knex) })
      await listen()
      log.info({ url: listeningUrl(server) }, 'listening while waiting for the schema: /healthz and /ready answer schema "waiting"')
      await waitForSchemaHead(db.knex, owners, log)
    }
    await assertNoSchemaDrift(db.knex, tables)
    // After the database: a passphrase's scrypt salt is kept there.
    const unlocked = master.material ? await unlockMasterKey(db.knex, master.material, { canWrite: primary, log }) : null
    const secrets = createSecrets(unlocked?.key ?? null, unlocked?.legacy ?? null)
    const tokens = unlocked ? new TokenService(unlocked.key) : null

    const nodeId = loadNodeId(config.nodeId, config.dataDir)
    if (primary) await registerNode(db.knex, { nodeId, role, version, startedAt })

    const audit = createAuditTrail(db.knex)
    const settings = new SettingsStore(db.knex, validation, audit, secrets)
    const options = new ServerOptions(validation, config.options, config.env)
    options.declare('kernel', reloadCommandsOption)
    options.declare('kernel', superviseOption)
    for (const s of identitySettings) settings.declare('kernel', s)
    for (const s of deploySettings) settings.declare('kernel', s)
    const actors = new ActorCache(db.knex, log)
    const identity = new Identity(db.knex, tokens, secrets, settings, actors, createDirectory(settings))
    const mail = createMail(settings)
    const lifecycle = new UserLifecycle(log.child({ component: 'identity' }))
    const registry = new ContributionRegistry()
    const services = new ServiceRegistry(new Set(plugins.map((p) => p.def.id)))
    services.provide(coreServices.logger, log, 'kernel')
    services.provide(coreServices.database, db, 'kernel')
    services.provide(coreServices.secrets, secrets, 'kernel')
    services.provide(coreServices.settings, settings, 'kernel')
    services.provide(coreServices.serverOptions, options, 'kernel')
    services.provide(coreServices.audit, audit, 'kernel')
    services.provide(coreServices.cluster, { nodeId, role }, 'kernel')
    // The installation id (migrations/0011, one row, the same for every node of the cluster) exists in every
    // edition but only the Pro edition shows or sends it (docs/editions.md).
    const installationId = edition.id === 'pro' ? ((await db.knex('installation').first('id'))?.id ?? null) : null
    services.provide(coreServices.platform, { version, dataDir: config.dataDir, startedAt, edition, installationId }, 'kernel')
    services.provide(coreServices.reportSources, createReportSources(), 'kernel')
    const reloadCommands = options.get(reloadCommandsOption)
    let listenUrl: string | null = null
    const agentLog = log.child({ component: 'node-agent' })
    const supervisor = superviseDaemons({ dataDir: config.dataDir, daemons: options.get(superviseOption), renderers: () => registry.renderers.map((r) => r.renderer), audit, log: log.child({ component: 'supervisor' }) })
    // How this node's daemon takes a new `current`: restarted by its supervisor, or its reload command (deploy.reload_commands), if any.
    const reloadDaemon = (daemon: string) => (supervisor?.supervises(daemon) ? supervisor.reload(daemon).then(({ ok, output }) => ({ status: ok ? ('ok' as const) : ('failed' as const), output })) : runReloadCommand(agentLog, reloadCommands[daemon], daemon))
    const agent = new NodeAgent({
      knex: db.knex, secrets, dataDir: config.dataDir, nodeId, log: agentLog,
      databaseUrl: db.engine === 'postgres' ? config.databaseUrl : null,
      writable: primary,
      // A hot standby does not relay NOTIFY: a replica node learns of new releases by polling, every second.
      ...(primary ? {} : { pollMs: 1000 }),
      renderers: () => registry.renderers.map((r) => r.renderer),
      allowUnchecked: () => settings.get(allowUncheckedSetting),
      reload: reloadDaemon,
      afterSwitch: async (switched) => {
        const keep = await settings.get(keepReleasesSetting)
        for (const daemon of switched) {
          pruneReleaseFolders(releasesDir(config.dataDir, daemon), keep)
          purgeCleartext(config.dataDir, registry.renderers.map((r) => r.renderer), daemon, agentLog)
        }
      },
      processState: (daemon) => supervisor?.states().find((s) => s.daemon === daemon) ?? null,
      address: () => listenUrl,
    })
    const pluginVersions = new Map(plugins.map((p) => [p.def.id, p.def.version] as const))
    const deploys = new DeployService({
      db, dataDir: config.dataDir, nodeId, renderers: () => registry.renderers, settings, reloadDaemon, agent, secrets,
      pluginVersion: (id) => pluginVersions.get(id) ?? null, audit, log: log.child({ component: 'deploy' }),
    })
    services.provide(coreServices.deploys, deploys, 'kernel')
    const backups = new BackupService({ db, key: unlocked?.key ?? null, version, nodeId, owners, dataDir: config.dataDir })
    services.provide(identityServices.identity, identity, 'kernel')
    services.provide(identityServices.mail, mail, 'kernel')
    services.provide(identityServices.userLifecycle, lifecycle, 'kernel')

    registry.addPermissions(
      'kernel',
      Object.fromEntries(Object.entries(en.permissions).map(([k, v]) => [k, { en: v, ru: (ru.permissions as Record<string, string>)[k] }])),
    )
    const k: KernelContext = {
      knex: db.knex, version, startedAt, nodeId, role, engine: db.engine, owners, settings, options, registry,
      masterKeyLoaded: unlocked !== null,
      plugins: pluginList,
      edition,
      installationId,
      pending: () => deploys.pending(),
      daemons: () => supervisor?.states() ?? [],
      readReplica: () => replica?.state() ?? 'off',
    }
    const identityDeps = { knex: db.knex, identity, lifecycle, secrets, settings, mail, registry, docsEnabled: config.docsEnabled }
    for (const r of [
      ...healthRoutes(k), ...systemInfoRoutes(k), ...auditRoutes(k), ...settingsRoutes(k), ...rbacRoutes(k), ...deployRoutes(deploys), ...backupRoutes(backups), ...clusterRoutes({ knex: db.knex, nodeId, process: (daemon) => supervisor?.states().find((s) => s.daemon === daemon) }),
      ...authRoutes(identityDeps), ...passwordResetRoutes(identityDeps), ...identityRoutes(identityDeps),
    ]) registry.addRoute('kernel', r)

    const started: { id: string; c: PluginContributions }[] = []
    for (const p of plugins) started.push({ id: p.def.id, c: await initPlugin(p, { services, registry, settings, options, i18n, log }) })
    registry.verifyPermissions()
    if (supervisor) verifySupervised(options.get(superviseOption), registry.renderers.map((r) => r.renderer))
    options.verify(new Set(settings.list().map((s) => s.key)))
    await settings.verifyAndSeed(config.settings, primary, options)
    let bootstrap: App['bootstrap'] = null
    if (primary && unlocked) {
      try {
        bootstrap = await bootstrapAdmin(db.knex, secrets, config.adminPassword)
      } catch (e) {
        if (isPortcullisError(e)) throw new BootError('CONFIG_INVALID', `ADMIN_PASSWORD does not meet the password policy (${i18n.t('en', e.messageKey, e.vars)})`)
        throw e
      }
    }
    const noUsers = !(await db.knex('users').first('id'))
    if (noUsers && !unlocked) {
      log.error(
        primary
          ? 'no administrator was created: there is no master key (set MASTER_KEY or MASTER_KEY_FILE; with DATABASE_URL none is generated), and without one nobody could sign in. Set it and restart: the administrator "admin" is created then.'
          : 'no user exists yet and this replica has no master key: start the primary with MASTER_KEY (or MASTER_KEY_FILE) to create the administrator.',
      )
    }
    await actors.start()
    // Repair what a deploy killed midway left on disk (the database says which release is active).
    if (primary) await deploys.recover()

    const gate = new Gate(tokens, (c) => actors.resolve(c))
    const app = createHttpApp({
      log,
      i18n,
      routes: registry.routes,
      trustProxy: config.trustProxy,
      docs: config.docsEnabled ? () => buildOpenApi(registry.routes, { version }) : null,
      web: registry.web,
      mount: { validation, gate, rateLimiter: new RateLimiter(db.knex), services, knex: db.knex, audit, i18n, bodyLimit: config.bodyLimit, validateResponses: config.validateResponses, publicUrl: () => settings.get(publicUrlSetting) },
    })

    let stopHousekeeping = () => {}
    if (opts.background !== false) {
      for (const s of started) {
        if (s.c.start) await s.c.start()
      }
      // The daemons' old log files (deploy.log_retention_days), hourly.
      if (primary) stopHousekeeping = deploys.startHousekeeping()
    }

    // A keep-alive client would otherwise hold its socket through the drain, sending
    // more requests on it and delaying the exit; while draining, answers close their connection.
    const handle = app.callback()
    const pending = new Set<http.ServerResponse>()
    let draining = false
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (draining) res.setHeader('Connection', 'close')
      pending.add(res)
      res.on('close', () => pending.delete(res))
      void handle(req, res)
    }
    dispatch = onRequest
    // Node would answer a missing Host or an unknown Expect itself, with a bare status line;
    // the app answers both in the envelope instead (kernel/http/transport.ts).
    server.on('checkExpectation', onRequest)
    // An idle keep-alive socket stays open 30 s (Node's default is 5). A client reusing a socket just as
    // the server times it out gets ECONNRESET on a request the server never read (undici does not retry
    // a POST): with 5 s that race was easy to hit whenever the event loop lagged, for instance the
    // embedded engine's queries running on it while a client paused between calls (found by the RADIUS
    // differential under load). Clients take the server's Keep-Alive hint, so they retire the socket first.
    // headersTimeout (60 s) stays longer, as Node wants.
    server.keepAliveTimeout = 30_000
    server.on('clientError', answerClientError(i18n))
    const sockets = new Set<Socket>()
    server.on('connection', (s) => {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
    })
    if (!server.listening) await listen()
    // The validators not used yet compile now, a few per event-loop turn (see http/validation.ts).
    const warmedUp = validation.compilePending(4, () => draining).catch((e: unknown) => log.error({ err: (e as Error).message }, 'a route schema does not compile'))
    const url = listeningUrl(server)
    listenUrl = url
    if (opts.background !== false) {
      // The daemons start from what the cluster holds active; from then on the agent follows it, by notification and polling.
      if (supervisor) {
        await agent.syncAll().catch((e: unknown) => agentLog.error({ err: (e as Error).message }, 'could not read the active releases: the daemons start from what this disk serves'))
        await supervisor.start()
      }
      agent.start()
    }

    let stopping: Promise<void> | null = null
    const stop = () =>
      (stopping ??= (async () => {
        // Stop accepting; idle keep-alive sockets close now, busy ones after their response.
        draining = true
        for (const res of pending) if (!res.headersSent) res.setHeader('Connection', 'close')
        const closed = new Promise<void>((r) => server.close(() => r()))
        server.closeIdleConnections()
        const timer = setTimeout(() => {
          log.warn({ open: sockets.size }, 'shutdown timeout: closing remaining connections')
          for (const s of sockets) s.destroy()
        }, config.shutdownTimeoutMs)
        await closed
        clearTimeout(timer)
        for (const s of [...started].reverse()) {
          try {
            await s.c.stop?.()
          } catch (e) {
            log.error({ plugin: s.id, err: (e as Error).message }, 'plugin stop failed')
          }
        }
        actors.stop()
        stopHousekeeping()
        await agent.stop()
        await supervisor?.stop()
        await warmedUp
        await stopDb()
      })())

    const resolveDeps: App['resolveDeps'] = (pluginId, deps) => {
      const p = plugins.find((x) => x.def.id === pluginId)
      if (!p) throw new BootError('PLUGIN_NOT_FOUND', `plugin ${pluginId} is not loaded`)
      return services.resolveDeps(pluginId, p.def, deps)
    }
    return { server, url, version, nodeId, db, tokens, log, registry, identity, deploys, backups, bootstrap, masterKeyLoaded: unlocked !== null, noUsers, resolveDeps, stop, validation }
  } catch (e) {
    await stopDb()
    throw e
  }
}

function listeningUrl(server: http.Server): string {
  const addr = server.address() as AddressInfo
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  return `http://${host}:${addr.port}`
}
