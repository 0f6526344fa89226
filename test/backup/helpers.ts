/**
 * What the backup tests share: the plugin set, an installation populated
 * through its API (users, a device, a rule, a deploy, a secret setting, log
 * rows in several months), the answers a user relies on after a restore, the
 * command line, and a restore run in-process on a target's configuration.
 */
import type { ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import path from 'node:path'
import { expect } from 'chai'
import { restoreArchive, type RestoreSummary } from '../../kernel/backup/restore.js'
import { TarWriter } from '../../kernel/backup/tar.js'
import { archiveMembers } from '../../kernel/backup/verify.js'
import { connect } from '../../kernel/db/connect.js'
import { isPortcullisError } from '../../sdk/index.js'
import { migrationOwners } from '../../kernel/cli/backup.js'
import { loadConfig } from '../../kernel/config.js'
import { loadPlugins, orderPlugins } from '../../kernel/plugins/load.js'
import { projectRoot } from '../../kernel/version.js'
import { ensureMonthlyPartitions } from '../../plugins/aaa-logs/ingest/partitions.js'
import { silentLogger, type TestApp, type TestEngine } from '../kit/app.js'
import { created } from '../kit/expect.js'
import { sharedPostgres } from '../kit/shared.js'
import { tacPlusNgBinary } from '../kit/tac-plus-ng.js'
import { scratchFolder } from '../kit/scratch.js'
import { runCommand, spawnCommand } from '../kit/cli.js'

export const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac']
export const RULES = '/api/v1/aaa/policy/rules'
export const ALICE_PASSWORD = 'Tq-backup-round-trip-9z'
export const ALICE_NEW_PASSWORD = 'Zr-after-first-sign-in-4k'
/** A month long before the tests run: its partition exists only because the source made it. */
export const OLD_MONTH = { from: '2025-03-01', partition: 'aaa_log_tacacs_authn_y2025m03' }

/** An installation to restore into: a new database (or DATA_DIR) and the environment of its commands. */
export interface Target {
  engine: TestEngine
  databaseUrl: string | null
  dataDir: string
  env: Record<string, string>
}

export async function freshTarget(engine: TestEngine, masterKey: string, plugins = PLUGINS): Promise<Target> {
  const databaseUrl = engine === 'postgres' ? await (await sharedPostgres()).createDatabase('restore') : null
  const dataDir = scratchFolder('portcullis-restore-')
  // An empty DATABASE_URL is none: the command then opens the embedded engine under DATA_DIR.
  return { engine, databaseUrl, dataDir, env: { DATABASE_URL: databaseUrl ?? '', DATA_DIR: dataDir, MASTER_KEY: masterKey, PLUGINS: plugins.join(',') } }
}

/** `portcullis restore` in this process, on the target's configuration (what the command runs). */
export async function restoreInto(target: Target, file: string, o: { force?: boolean; env?: Record<string, string>; rebuildIndexesFrom?: number } = {}): Promise<RestoreSummary> {
  const config = loadConfig({ ...target.env, ...o.env })
  const plugins = orderPlugins(await loadPlugins(config.plugins, { root: projectRoot(), codeDir: projectRoot() }))
  return restoreArchive({ file, force: o.force ?? false, config, owners: migrationOwners({ config, plugins, codeDir: projectRoot() }), log: silentLogger(), rebuildIndexesFrom: o.rebuildIndexesFrom })
}

const cliEnv = (env: Record<string, string>) => ({ ...process.env, LOG_LEVEL: 'silent', TAC_PLUS_NG: '', ...env })

export const spawnCli = (args: string[], env: Record<string, string>): ChildProcess => spawnCommand(args, cliEnv(env))

export const cli = (args: string[], env: Record<string, string>) => runCommand(args, cliEnv(env))

export interface Populated {
  alice: { id: string; username: string }
  device: { id: string }
  /** A session of alice's that she signed out of: revoked, and must stay so. */
  revokedToken: string
  deployIds: string[]
}

const ok = (r: { status: number; body: unknown }, status: number, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(status)

/** Every kind of record the round trip must carry, made through the API as an operator would. */
export async function populate(t: TestApp): Promise<Populated> {
  const alice = await created(t, '/api/v1/users', { username: 'alice', password: ALICE_PASSWORD, network_login: true, must_change_password: true })
  const ops = await created(t, '/api/v1/user-groups', { name: 'ops' })
  await created(t, '/api/v1/users', { username: 'bob', password: 'Tq-backup-bob-secret-2x', network_login: true, group_ids: [ops.id] })
  const device = await created(t, '/api/v1/devices', { name: 'lo', address: '127.0.0.1/32', tacacs_key: 'backup-tacacs-key', radius_secret: 'backup-radius-secret' })
  const set = await created(t, '/api/v1/tacacs/command-sets', { name: 'show-only', commands: [{ command: 'show', action: 'permit' }] })
  const profile = await created(t, '/api/v1/tacacs/profiles', { name: 'ro', privilege_level: 7, command_set_ids: [set.id], default_action: 'deny' })
  await created(t, RULES, { name: 'alice-lo', who: { user_id: alice.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
  // A secret setting: sealed by the master key in the database, so only the same key reads it after a restore.
  ok(await t.admin('PUT', '/api/v1/settings/mail.smtp_password', { body: { value: 'smtp-secret-of-the-source' } }), 200, 'secret setting')
  // alice's first sign-in: the password change, then a session she signs out of.
  const first = await t.req('POST', '/api/v1/auth/login', { body: { username: 'alice', password: ALICE_PASSWORD } })
  ok(first, 200, 'first sign-in')
  // The change answers her session.
  const session = await t.req('POST', '/api/v1/auth/change-password', { token: first.body.password_change_token, body: { current_password: ALICE_PASSWORD, new_password: ALICE_NEW_PASSWORD } })
  ok(session, 200, 'password change')
  ok(await t.req('POST', '/api/v1/auth/logout', { token: session.body.access_token }), 204, 'sign-out')
  // Log rows in this month, in an old month with its own partition, and in the default partition.
  const knex = t.app.db.knex
  await ensureMonthlyPartitions(knex, silentLogger(), { now: new Date(`${OLD_MONTH.from}T12:00:00Z`), ahead: 0 })
  await knex.raw(`INSERT INTO aaa_log_tacacs_authn (timestamp, username, nas_ip, node_id, source_file, source_offset, status, message)
    SELECT ts, 'user' || (g % 7), ('192.0.2.' || (g % 5))::inet, gen_random_uuid(), '/var/log/tacacs/authn.log', g, CASE WHEN g % 3 = 0 THEN 'failure' ELSE 'success' END, E'line\\twith a tab ' || g
      FROM generate_series(1, 300) g, LATERAL (VALUES (CASE g % 3 WHEN 0 THEN now() - (g || ' minutes')::interval WHEN 1 THEN TIMESTAMPTZ '${OLD_MONTH.from} 10:00:00+00' + (g || ' minutes')::interval ELSE TIMESTAMPTZ '2019-06-01 00:00:00+00' END)) v(ts)`)
  // A deploy, checked by tac_plus-ng when the machine has it, else let through unchecked by the administrator.
  if (!tacPlusNgBinary()) ok(await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } }), 200, 'allow unchecked')
  const dep = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng', comment: 'before the backup' } })
  ok(dep, 201, 'deploy')
  return { alice, device, revokedToken: session.body.access_token, deployIds: dep.body.deploys.map((d: { id: string }) => d.id) }
}

/** Tables whose rows the target's own start adds to (its node, its sign-in of the test kit's administrator). */
const RUNTIME = new Set(['audit_log', 'cluster_nodes', 'cluster_node_daemons', 'users', 'roles', 'user_roles', 'rate_limit_hits', 'deploy_lock'])

export interface DeployAnswer {
  id: string
  daemon: string
  release: string
  status: string
  files: unknown
  comment: string | null
}

export type Answers = Awaited<ReturnType<typeof answers>>

/** What a user of the installation sees: the same before the backup and after the restore. */
export async function answers(t: TestApp, p: Populated) {
  const policy = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: 'alice', device_id: p.device.id, command: 'show running-config' } })
  ok(policy, 200, 'policy test')
  const logs = await t.admin('GET', '/api/v1/aaa/logs/tacacs/authentication?per_page=200&sort_by=timestamp&sort_order=desc')
  ok(logs, 200, 'logs')
  const deploys = await t.admin('GET', '/api/v1/deploys?per_page=50')
  ok(deploys, 200, 'deploys')
  const dryRun = await t.admin('POST', '/api/v1/deploys', { body: { dry_run: true, daemon: 'tac_plus-ng' } })
  ok(dryRun, 200, 'dry run')
  const signIn = await t.req('POST', '/api/v1/auth/login', { body: { username: 'alice', password: ALICE_NEW_PASSWORD } })
  const wrong = await t.req('POST', '/api/v1/auth/login', { body: { username: 'alice', password: ALICE_PASSWORD } })
  const revoked = await t.req('GET', '/api/v1/auth/me', { token: p.revokedToken })
  const setting = await t.admin('GET', '/api/v1/settings/mail.smtp_password')
  const knex = t.app.db.knex
  const counts: Record<string, number> = {}
  for (const { name } of (await knex.raw(`SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)).rows as { name: string }[]) {
    if (!RUNTIME.has(name)) counts[name] = Number((await knex.raw(`SELECT count(*) AS n FROM "${name}"`)).rows[0].n)
  }
  const oldMonth = Number((await knex.raw(`SELECT count(*) AS n FROM ${OLD_MONTH.partition}`)).rows[0].n)
  const rowCounts = (await knex('aaa_log_row_counts').orderBy('table_name').select('table_name', 'n')) as { table_name: string; n: number }[]
  const sealed = (await knex('settings').where({ key: 'mail.smtp_password' }).first('value'))?.value
  // The schema's indexes and constraints: a restore that rebuilds them must leave every one as it was.
  const indexes = ((await knex.raw(`SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1`)).rows as { n: string }[]).map((r) => r.n)
  const constraints = ((await knex.raw(`SELECT c.relname || '.' || conname || ' ' || contype::text AS n FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relnamespace = current_schema()::regnamespace AND k.contype IN ('p', 'u', 'f', 'c', 'x') ORDER BY 1`)).rows as { n: string }[]).map((r) => r.n)
  return {
    policy: policy.body,
    logs: { total: logs.body.total, items: logs.body.items },
    deploys: deploys.body.items.map((d: DeployAnswer): DeployAnswer => ({ id: d.id, daemon: d.daemon, release: d.release, status: d.status, files: d.files, comment: d.comment })) as DeployAnswer[],
    diffs: dryRun.body.daemons.map((d: { changes: { diff: string }[] }) => d.changes.map((c) => c.diff).join('')) as string[],
    pending: dryRun.body.daemons.map((d: { daemon: string; current_release: string | null; changes: { change: string }[] }) => ({ daemon: d.daemon, current: d.current_release, changed: d.changes.filter((c) => c.change !== 'unchanged').length })),
    signIn: { status: signIn.status, session: typeof signIn.body?.access_token === 'string' },
    wrongPassword: wrong.status,
    revoked: revoked.status,
    setting: setting.body,
    sealedSetting: sealed,
    counts,
    oldMonth,
    rowCounts,
    indexes,
    constraints,
  }
}

/** A copy of an archive with its members edited (null drops one), written as a well-formed .tar.gz: what a tamperer makes. */
export async function rewriteArchive(src: string, dst: string, edit: (m: { name: string; data: Buffer }) => Buffer | null | { name: string; data: Buffer }[]): Promise<void> {
  const gzip = createGzip()
  const done = pipeline(gzip, createWriteStream(dst))
  const tar = new TarWriter(gzip)
  for await (const m of archiveMembers(src)) {
    const data = edit(m)
    if (Buffer.isBuffer(data)) await tar.add(m.name, data)
    else for (const x of data ?? []) await tar.add(x.name, x.data)
  }
  await tar.finish()
  gzip.end()
  await done
}

/** Whether the target has any schema: a refused restore must leave a new database as bare as it found it. */
export async function hasAnySchema(target: Target): Promise<boolean> {
  if (target.engine === 'embedded' && !existsSync(path.join(target.dataDir, 'pgdata', 'PG_VERSION'))) return false
  const db = await connect({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
  try {
    return (await db.knex.raw(`SELECT count(*) AS n FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`)).rows[0].n > 0
  } finally {
    await db.knex.destroy()
  }
}

/** The code of the coded error a promise rejects with. */
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    if (isPortcullisError(e)) return e.code
    throw e
  }
  throw new Error('expected a refusal, but it succeeded')
}
