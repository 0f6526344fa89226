/**
 * The admin console: the single-page app under ui/ (built by `npm run build`),
 * served from the same origin as the API at `/`, and the pages other plugins
 * add to it through `consoleServiceRef` (api.ts). The app is an ordinary
 * client of /api/v1. See docs/ui.md.
 */
import { coreServices, definePlugin, provide } from '../../sdk/index.js'
import { consoleServiceRef, type ConsoleExtension } from './api.js'
import { extensionRoutes } from './routes/extensions.js'
import { consoleWeb, findUiDist } from './web.js'

export * from './api.js'

const PLUGIN_ID = /^[a-z][a-z0-9_-]*$/
const PAGE_PATH = /^[a-z0-9][a-z0-9/_-]*$/

export default definePlugin({
  id: 'console',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'The admin web console (single-page app) at /, and the pages plugins add to it.',
  deps: { logger: coreServices.logger },
  init({ logger }) {
    const extensions = new Map<string, ConsoleExtension>()
    const uiDir = findUiDist()
    if (!uiDir) logger.warn('the admin console is not built (no ui/dist/index.html): run `npm run build` to serve it at /')
    return {
      services: [
        provide(consoleServiceRef, {
          addPages(e: ConsoleExtension) {
            // Checked at boot, where a plugin author sees it: these names become URLs.
            if (!PLUGIN_ID.test(e.plugin)) throw new Error(`console pages: plugin id "${e.plugin}" is not a URL segment`)
            if (extensions.has(e.plugin)) throw new Error(`console pages: ${e.plugin} added its pages twice`)
            for (const p of e.pages) if (!PAGE_PATH.test(p.path)) throw new Error(`console pages of ${e.plugin}: path "${p.path}" must be lower-case segments`)
            extensions.set(e.plugin, e)
          },
        }),
      ],
      routes: extensionRoutes(extensions),
      web: consoleWeb(uiDir, extensions),
    }
  },
})
