/**
 * The inventory: network access devices (the TACACS+ and RADIUS clients, with
 * their sealed shared secrets) and a tree of device groups. Other plugins
 * read it through `inventoryServiceRef` (api.ts), and reference devices and
 * groups through its `references` (the AAA policy does), never its tables.
 * See docs/inventory.md.
 */
import { coreServices, definePlugin, defineReferenceTarget, provide } from '../../sdk/index.js'
import { inventoryServiceRef } from './api.js'
import en from './locales/en.js'
import ru from './locales/ru.js'
import { inventoryPermissions } from './permissions.js'
import { inventoryRoutes } from './routes/index.js'
import { createInventoryService } from './services/inventory.js'
import { inventoryTables } from './tables.js'

export * from './api.js'

export default definePlugin({
  id: 'inventory',
  version: '0.1.0',
  sdk: '^0.1.0',
  description: 'Network devices (address or prefix, TACACS+ key, RADIUS secret) and nested device groups.',
  permissions: inventoryPermissions,
  migrations: new URL('./migrations/', import.meta.url),
  tables: inventoryTables,
  locales: { en, ru },
  deps: { database: coreServices.database, secrets: coreServices.secrets },
  init({ database, secrets }) {
    const references = {
      device: defineReferenceTarget({ kind: 'device', table: 'inventory_devices', nameColumn: 'name' }),
      device_group: defineReferenceTarget({ kind: 'device_group', table: 'inventory_device_groups', nameColumn: 'name' }),
    }
    const inventory = createInventoryService(database.knex, secrets, references)
    return {
      services: [provide(inventoryServiceRef, inventory)],
      routes: inventoryRoutes({ knex: database.knex, secrets, inventory, references }),
    }
  },
})
