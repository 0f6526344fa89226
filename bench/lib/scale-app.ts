/**
 * The app for the issue 13 benches: a throwaway PostgreSQL cluster of our own
 * (test/kit startPostgres, destroyed at exit), the app started in process by
 * the test kit (startTestApp: real plugins, admin token) on it, and the data
 * seeded directly (scale-seed.ts). The network password, its verifiers
 * (derived once, sealed with the app's master key) and the device secrets are
 * returned for the load generators and the minimal configurations.
 */
import pg from 'pg'
import type { RenderedFile } from '../../sdk/index.js'
import { parseMasterKey } from '../../kernel/security/master-key.js'
import { createSecrets } from '../../kernel/security/secrets.js'
import { deriveVerifiers, sealVerifiers, type NetworkVerifiers } from '../../kernel/identity/verifiers.js'
import { SEAL } from '../../plugins/inventory/services/inventory.js'
import { startPostgres } from '../../test/kit/postgres.js'
import { startTestApp, type TestApp } from '../../test/kit/app.js'
import { atExit, envInt, envSeconds } from '../lib.js'
import { seedScale, type ScaleSeed, type ScaleSize } from './scale-seed.js'

export const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
/** Every bench user's network password (12+ characters, as the platform's policy wants). */
export const PASSWORD = 'Bench-Network-Pass-2026'
export const RADIUS_SECRET = 'bench-radius-secret'
export const TACACS_KEY = 'bench-tacacs-key'

export interface ScaleApp {
  t: TestApp
  db: pg.Client
  size: ScaleSize
  seed: ScaleSeed
  verifiers: NetworkVerifiers
  setting(key: string, value: unknown): Promise<void>
  stop(): Promise<void>
}

/** BENCH_RULES (1000), BENCH_USERS (20000), BENCH_GROUPS (200), BENCH_DEVICES (201, the NAS included). */
export function sizeFromEnv(): ScaleSize {
  return { rules: envInt('BENCH_RULES', 1000), users: envInt('BENCH_USERS', 20_000), groups: envInt('BENCH_GROUPS', 200), devices: envInt('BENCH_DEVICES', 201) }
}

export async function startScaleApp(size: ScaleSize): Promise<ScaleApp> {
  const cluster = await startPostgres()
  const stopPg = atExit(() => cluster.destroy())
  const databaseUrl = await cluster.createDatabase('benchscale')
  const t = await startTestApp({ plugins: PLUGINS, databaseUrl })
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  const secrets = createSecrets(parseMasterKey(t.masterKey, 'masterKey'))
  const verifiers = deriveVerifiers(PASSWORD)
  const seed = await seedScale(db, size, {
    verifiers: sealVerifiers(secrets, verifiers),
    radiusSecret: secrets.encrypt(SEAL.radius_secret, RADIUS_SECRET),
    tacacsKey: secrets.encrypt(SEAL.tacacs_key, TACACS_KEY),
  })
  const setting = async (key: string, value: unknown) => {
    const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    if (r.status !== 200 && r.status !== 204) throw new Error(`setting ${key}: ${r.status} ${JSON.stringify(r.body)}`)
  }
  return {
    t,
    db,
    size,
    seed,
    verifiers,
    setting,
    async stop() {
      await db.end()
      await t.stop()
      stopPg()
    },
  }
}

export const sizeLine = (s: ScaleSize) =>
  `${s.rules.toLocaleString('en-US')} rules, ${s.users.toLocaleString('en-US')} users (all with a network password), ${s.groups.toLocaleString('en-US')} groups, ${s.devices.toLocaleString('en-US')} devices`

export const SEED_NOTE =
  'data seeded DIRECTLY with bulk SQL (creating 20,000 users through the API takes over an hour: ~0.2 s of CPU per password); every user holds the same sealed verifiers (one SHA-512-crypt hash, 5,000 rounds)'

/** The last rule before the default: it lets every bench user in at the NAS (scale-seed.ts). */
export const LAST_RULE = 'everyone-at-the-nas'

class Rollback extends Error {
  constructor(readonly files: RenderedFile[]) {
    super('rolled back on purpose')
  }
}

/**
 * The files of a registered renderer, read from one repeatable-read snapshot as the deploy reads
 * them, and how long that took. `oneRule`: the same data with every rule but LAST_RULE and the
 * default deleted first, in a transaction that is then rolled back (nothing changes).
 */
export async function renderFiles(s: ScaleApp, rendererId: string, oneRule = false): Promise<{ files: RenderedFile[]; ms: number }> {
  const entry = s.t.app.registry.renderers.find((r) => r.renderer.id === rendererId)
  if (!entry) throw new Error(`no renderer ${rendererId} is registered`)
  const t0 = performance.now()
  if (!oneRule) {
    const files = await s.t.app.db.transaction((trx) => entry.renderer.render(trx), { isolation: 'repeatable read' })
    return { files, ms: performance.now() - t0 }
  }
  try {
    await s.t.app.db.transaction(
      async (trx) => {
        await trx('aaa_policy_rules').where({ is_default: false }).whereNot({ name: LAST_RULE }).del()
        throw new Rollback(await entry.renderer.render(trx))
      },
      { isolation: 'repeatable read' },
    )
  } catch (e) {
    if (e instanceof Rollback) return { files: e.files, ms: performance.now() - t0 }
    throw e
  }
  throw new Error('unreachable: the one-rule render always rolls back')
}

/** The load rounds' shape, from the environment: BENCH_ROUNDS (5) of BENCH_ROUND_SECONDS (10) after BENCH_WARMUP_SECONDS (2), BENCH_IN_FLIGHT (8) requests in flight, BENCH_RENDER_REPS (3) timed renders. */
export function loadRoundOptions() {
  return {
    rounds: envInt('BENCH_ROUNDS', 5),
    roundMs: envSeconds('BENCH_ROUND_SECONDS', 10) * 1000,
    warmMs: envSeconds('BENCH_WARMUP_SECONDS', 2) * 1000,
    inFlight: envInt('BENCH_IN_FLIGHT', 8),
    renderReps: envInt('BENCH_RENDER_REPS', 3),
  }
}
