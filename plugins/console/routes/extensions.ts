/**
 * GET /api/v1/console/extensions: the pages other plugins add to the console,
 * read by the app after sign-in to build its menu. Any signed-in user may read
 * it (it names pages, not data); each page says the permission it needs.
 */
import { AUTHENTICATED, defineRoute, Type } from '../../../sdk/index.js'
import type { ConsoleExtension } from '../api.js'

const Text = Type.Object({ en: Type.String(), ru: Type.Optional(Type.String()) }, { additionalProperties: false })

export const ConsoleExtensionList = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          plugin: Type.String({ description: 'The plugin id.' }),
          module: Type.String({ description: 'URL of the ES module to import; it exports `mount(element, host)` (docs/ui.md).' }),
          pages: Type.Array(
            Type.Object(
              {
                path: Type.String({ description: 'The page in the console: /x/<plugin>/<path>.' }),
                title: Text,
                permission: Type.Union([Type.String(), Type.Null()], { description: 'Shown only to users holding it; null: any signed-in user.' }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'ConsoleExtensionList', additionalProperties: false },
)

export const extensionRoutes = (extensions: ReadonlyMap<string, ConsoleExtension>) => [
  defineRoute({
    method: 'GET',
    path: '/console/extensions',
    permission: AUTHENTICATED,
    summary: 'Pages plugins add to the admin console',
    tags: ['console'],
    schema: { response: { 200: ConsoleExtensionList } },
    handler: async () => ({
      items: [...extensions.values()].map((e) => ({
        plugin: e.plugin,
        module: `/console/ext/${e.plugin}/${e.entry}`,
        pages: e.pages.map((p) => ({ path: p.path, title: p.title, permission: p.permission ?? null })),
      })),
    }),
  }),
]
