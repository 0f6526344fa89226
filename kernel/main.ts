/**
 * `npm start`: boot on the configured database (the embedded one by default),
 * print where the server listens and how to sign in, and shut down gracefully
 * on SIGTERM/SIGINT.
 */
import { startApp } from './app.js'
import { BootError } from './boot-error.js'
import { loadConfig } from './config.js'
import { packageJson } from './version.js'

async function main() {
  const t0 = performance.now()
  let app
  try {
    const config = loadConfig(process.env, { plugins: packageJson().portcullis?.plugins ?? [] })
    app = await startApp(config)
    const ms = Math.round(performance.now() - t0)
    app.log.info({ url: app.url, version: app.version, node_id: app.nodeId, engine: app.db.engine, boot_ms: ms }, 'ready')
    const lines = [
      '',
      `  Portcullis ${app.version} is listening on ${app.url}  (database: ${app.db.engine === 'embedded' ? `embedded, in ${config.dataDir}` : 'PostgreSQL'}; ready in ${ms} ms)`,
      `  Health:  ${app.url}/healthz   Readiness: ${app.url}/ready`,
      config.docsEnabled ? `  API docs: ${app.url}/docs  (OpenAPI: ${app.url}/openapi.json)` : '  API docs: start with DOCS_ENABLED=true to serve /docs and /openapi.json',
      '  Sign in: `npm run token` prints an administrator bearer token for this data folder;',
      '           send it as `Authorization: Bearer <token>`.',
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
