/**
 * The server's half of `@portcullis/sdk/testing` (sdk/testing.ts): the kit
 * the platform's own tests use, narrowed to what a plugin author's test needs
 * and can type with the SDK alone (no kernel types cross into a plugin).
 * Built into dist/test/kit/ so that an out-of-tree plugin's tests run the
 * built server; it imports only the server's runtime dependencies.
 */
import { testEngines, type PluginTestApp, type PluginTestOptions } from '../../sdk/testing.js'
import { startTestApp } from './app.js'

export async function startPluginTestApp(o: PluginTestOptions): Promise<PluginTestApp> {
  const engine = o.engine ?? (process.env.TEST_ENGINE ? testEngines()[0] : 'embedded')
  const t = await startTestApp({ plugins: o.plugins, engine, env: o.env, settings: o.settings })
  return {
    url: t.url,
    engine,
    knex: t.app.db.knex,
    token: (x) => t.token(x),
    req: (method, p, ro) => t.req(method, p, ro),
    admin: (method, p, ro) => t.admin(method, p, ro),
    async render(id) {
      const r = t.app.registry.renderers.find((x) => x.renderer.id === id)
      if (!r) throw new Error(`no renderer ${id} is loaded (loaded: ${t.app.registry.renderers.map((x) => x.renderer.id).join(', ') || 'none'})`)
      return t.app.db.transaction((trx) => r.renderer.render(trx), { isolation: 'repeatable read' })
    },
    stop: () => t.stop(),
  }
}
