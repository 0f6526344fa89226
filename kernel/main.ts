/**
 * `npm start`: boot on the configured database (the embedded one by default),
 * print where the server listens and how to sign in, and shut down gracefully
 * on SIGTERM/SIGINT.
 */
import { startApp } from './app.js'
import { BootError } from './boot-error.js'
import { loadConfig } from './config.js'
import { EDITIONS, packageEditions } from './version.js'

function signInLines(url: string, boot: { password: string; generated: boolean } | null, app: { masterKeyLoaded: boolean; noUsers: boolean }): string[] {
  const login = (pw: string) => `  curl -s -X POST ${url}/api/v1/auth/login -H 'content-type: application/json' -d '{"username":"admin","password":"${pw}"}'`
  // Without a key nobody can sign in (tokens are signed with it), so a first start makes no administrator: say so, loudly.
  if (!app.masterKeyLoaded) {
    return [
      '  !! No master key (MASTER_KEY or MASTER_KEY_FILE): secrets and sign-in are unavailable, /ready answers 503.',
      ...(app.noUsers
        ? ['  !! No administrator was created: the first administrator is made only when a master key is loaded.', '  !! With DATABASE_URL no key is generated: set MASTER_KEY (e.g. `openssl rand -hex 32`) and restart.']
        : ['  !! Set MASTER_KEY (the same on every node) and restart.']),
    ]
  }
  if (!boot) return ['  Sign in: POST /api/v1/auth/login with { "username", "password" }; send the access_token as `Authorization: Bearer <token>`.']
  return [
    boot.generated
      ? `  First start: administrator "admin" created with password  ${boot.password}  (shown only this once).`
      : '  First start: administrator "admin" created with the password from ADMIN_PASSWORD.',
    '  Sign in (the first sign-in asks for a new password: POST /api/v1/auth/change-password with the password_change_token):',
    login(boot.generated ? boot.password : '<ADMIN_PASSWORD>'),
  ]
}

async function main() {
  const t0 = performance.now()
  let app
  try {
    const config = loadConfig(process.env, { editions: packageEditions() })
    app = await startApp(config)
    const ms = Math.round(performance.now() - t0)
    app.log.info({ url: app.url, version: app.version, node_id: app.nodeId, engine: app.db.engine, boot_ms: ms }, 'ready')
    const lines = [
      '',
      `  Portcullis ${app.version} (${EDITIONS[config.edition].name}) is listening on ${app.url}  (database: ${app.db.engine === 'embedded' ? `embedded, in ${config.dataDir}` : 'PostgreSQL'}; ready in ${ms} ms)`,
      `  Health:  ${app.url}/healthz   Readiness: ${app.url}/ready`,
      // A plugin serves pages (the admin console): say where a browser opens them.
      ...(app.registry.web.length ? [`  In a browser: ${app.url}/`] : []),
      config.docsEnabled ? `  API docs: ${app.url}/docs  (OpenAPI: ${app.url}/openapi.json)` : '  API docs: start with DOCS_ENABLED=true to serve /docs and /openapi.json',
      ...signInLines(app.url, app.bootstrap, app),
      '',
    ]
    process.stderr.write(lines.join('\n') + '\n')
  } catch (e) {
    process.stderr.write(`Portcullis could not start: ${e instanceof BootError ? e.toString() : (e as Error).stack ?? String(e)}\n`)
    process.exit(1)
  }
  let signals = 0
  const shutdown = (sig: string) => {
    if (++signals > 1) process.exit(1)
    app.log.info({ signal: sig }, 'shutting down: draining requests')
    app.stop().then(
      () => process.exit(0),
      (e) => {
        app.log.error({ err: (e as Error).message }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

void main()
