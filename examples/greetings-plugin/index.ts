/**
 * An out-of-tree plugin built only on the SDK: its own table (migration),
 * routes gated by its own permissions, a typed setting, a renderer, and a
 * service other plugins reach through `greetingsServiceRef`.
 * In this repository: PLUGINS=./examples/greetings-plugin. As a package of its
 * own (its package.json and tsconfig.json): `npm run build` here, then
 * PLUGINS=/path/to/greetings-plugin/dist/index.js (docs/plugins.md,
 * "Building and shipping a plugin").
 */
import { coreServices, definePlugin, provide } from '@portcullis/sdk'
import { greetingRoutes } from './routes/greetings.js'
import { motdRenderer } from './renderer.js'
import { createGreetingsService, greetingsServiceRef } from './service.js'
import { greetingSuffix } from './settings.js'
import en from './locales/en.js'
import ru from './locales/ru.js'

export { greetingsServiceRef, type GreetingsService } from './service.js'

export default definePlugin({
  id: 'greetings',
  version: '1.0.0',
  sdk: '^0.1.0',
  description: 'Example plugin: greetings and a message-of-the-day renderer.',
  permissions: {
    'greetings.read': { en: 'Read greetings', ru: 'Просмотр приветствий' },
    'greetings.write': { en: 'Create and delete greetings', ru: 'Создание и удаление приветствий' },
  },
  settings: [greetingSuffix],
  migrations: new URL('./migrations/', import.meta.url),
  locales: { en, ru },
  deps: { database: coreServices.database, settings: coreServices.settings },
  init({ database, settings }) {
    const greetings = createGreetingsService(database)
    return {
      services: [provide(greetingsServiceRef, greetings)],
      routes: greetingRoutes({ database, settings, greetings }),
      renderers: [motdRenderer({ greetings, settings })],
    }
  },
})
