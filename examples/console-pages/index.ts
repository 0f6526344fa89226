/**
 * A plugin that adds a page to the admin console (docs/ui.md, "A plugin's
 * pages"): it depends on the console optionally, hands it the folder of its
 * browser module, and the console lists the page in its menu and imports the
 * module when the page opens. The module (web/hello.js) draws with the DOM
 * alone; a real plugin builds its own with any bundler.
 */
import { consoleServiceRef, definePlugin, optional } from '../../sdk/index.js'

export default definePlugin({
  id: 'hello-console',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Example: one page in the admin console.',
  optionalDependsOn: ['console'],
  deps: { console: optional(consoleServiceRef) },
  init({ console }) {
    console?.addPages({
      plugin: 'hello-console',
      dir: new URL('./web/', import.meta.url),
      entry: 'hello.js',
      pages: [{ path: 'hello', title: { en: 'Hello', ru: 'Привет' }, permission: 'inventory.read' }],
    })
    return {}
  },
})
