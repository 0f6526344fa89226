/**
 * Fresh test databases that start migrated. Every test app used to apply all its migrations to an empty
 * database: some fifty of them, 1–3 s a start on PostgreSQL and more on the embedded engine, hundreds of
 * starts a run. Now the kit migrates one database per set of migration owners (the kernel and the
 * plugins that start; their file lists are part of the key) and copies it for each new app:
 * `CREATE DATABASE … TEMPLATE` on PostgreSQL, a copy of the folder on the embedded engine. The app then
 * boots exactly as on a database an earlier start migrated: its migrator finds nothing to apply.
 *
 * The copies are made with the kernel's own `connect` and `migrateAll`, so they hold what a start would
 * have made, row for row; what a migration makes at random (the installation id) is made again for each
 * PostgreSQL copy. Templates live as long as the test process (the shared cluster; a temporary folder).
 * TEST_FRESH_MIGRATIONS=1 turns this off: every app migrates its own empty database, as before.
 */
import { createHash, randomUUID } from 'node:crypto'
import { appendFileSync, constants as fsConstants, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { migrationOwnersOf } from '../../kernel/migration-owners.js'
import { connect } from '../../kernel/db/connect.js'
import { listMigrationFiles, migrateAll, type MigrationOwner } from '../../kernel/db/migrate.js'
import type { PgCluster } from './postgres.js'
import { pino } from 'pino'
import { scratchRoot } from './scratch.js'

const quiet = () => pino({ level: 'silent' }) as unknown as Parameters<typeof migrateAll>[2]

export const migratedTemplatesOn = (): boolean => process.env.TEST_FRESH_MIGRATIONS !== '1'

/** The owners and their migration files, as one short key; null when the plugins do not load (the start will refuse by itself). */
async function ownersKey(plugins: string[]): Promise<{ key: string; owners: MigrationOwner[] } | null> {
  let owners: MigrationOwner[]
  try {
    owners = await migrationOwnersOf({ plugins })
  } catch {
    return null
  }
  const text = owners.map((o) => `${o.owner}=${o.dir}:${listMigrationFiles(o.dir).join(',')}`).join('|')
  return { key: createHash('sha256').update(text).digest('hex').slice(0, 12), owners }
}

const pgTemplates = new Map<string, Promise<string>>()

/**
 * A new database in the cluster, already migrated for these plugins (its URL). Made from a template
 * database that is itself made on first use, by the kernel's migrator.
 */
export async function migratedPostgresDatabase(cluster: PgCluster, plugins: string[]): Promise<string> {
  const k = await ownersKey(plugins)
  if (!k) return cluster.createDatabase()
  let template = pgTemplates.get(k.key)
  if (!template) {
    template = (async () => {
      const url = await cluster.createDatabase(`tpl_${k.key}`)
      const db = await connect({ databaseUrl: url, dataDir: os.tmpdir() })
      try {
        await migrateAll(db.knex, k.owners, quiet())
      } finally {
        await db.knex.destroy()
      }
      return new URL(url).pathname.slice(1)
    })()
    pgTemplates.set(k.key, template)
    template.catch(() => pgTemplates.delete(k.key))
  }
  const url = await cluster.createDatabase('t', { template: await template })
  // The one value a migration makes at random: each copy is its own installation.
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    await c.query('UPDATE installation SET id = $1', [randomUUID()])
  } finally {
    await c.end()
  }
  return url
}

/** The server settings a test app's embedded cluster starts with (the kit's own, as the PostgreSQL cluster's fsync=off). */
export const EMBEDDED_TEST_SETTINGS = 'shared_buffers = 16MB'

let embeddedRoot: string | null = null
const embeddedTemplates = new Map<string, Promise<string>>()

/**
 * Puts a migrated embedded cluster into `dataDir` (its `pgdata`, where the kernel's `connect` looks),
 * unless one is there already (an app restarted on its folder). Made from a template folder migrated
 * on first use.
 */
export async function seedMigratedEmbedded(dataDir: string, plugins: string[]): Promise<void> {
  const target = path.join(dataDir, 'pgdata')
  if (existsSync(target) && readdirSync(target).length > 0) return
  const k = await ownersKey(plugins)
  if (!k) return
  let template = embeddedTemplates.get(k.key)
  if (!template) {
    template = (async () => {
      if (!embeddedRoot) {
        const root = mkdtempSync(path.join(scratchRoot(), 'portcullis-kit-templates-'))
        embeddedRoot = root
        process.once('exit', () => rmSync(root, { recursive: true, force: true }))
      }
      const dir = path.join(embeddedRoot, k.key)
      const db = await connect({ databaseUrl: null, dataDir: dir })
      try {
        await migrateAll(db.knex, k.owners, quiet())
      } finally {
        await db.knex.destroy()
      }
      // A smaller buffer pool than PGlite's 128 MB: a start touches all of it, and a test app's data is
      // small (the copies sit in memory anyway: scratch.ts). Half a second of CPU less per embedded start.
      appendFileSync(path.join(dir, 'pgdata', 'postgresql.conf'), `\n${EMBEDDED_TEST_SETTINGS}\n`)
      return path.join(dir, 'pgdata')
    })()
    embeddedTemplates.set(k.key, template)
    template.catch(() => embeddedTemplates.delete(k.key))
  }
  const from = await template
  if (existsSync(target)) rmSync(target, { recursive: true, force: true })
  cpSync(from, target, { recursive: true, mode: fsConstants.COPYFILE_FICLONE })
}
