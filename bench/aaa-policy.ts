/**
 * AAA domain (issue 4): the AAA policy's four heavy routes on a policy of
 * realistic size, each against what bounds it, measured in the same run.
 *
 * Setup. A throwaway PostgreSQL (test/kit startPostgres), and the app started
 * IN PROCESS (kernel startApp, production defaults, a silent pino logger) with
 * the plugins inventory, tacacs, radius and aaa-policy. In process, so that the
 * bounds can call the very plugin code without HTTP (the services and the
 * evaluator, built here from the same modules on the app's own knex). The
 * client is node:http with one keep-alive socket; a request is timed from the
 * write to the last byte of the answer (the body is parsed after the clock
 * stops). Requests are sequential, so client and server never compete.
 *
 * Data, generated with bulk SQL (INSERT … SELECT generate_series, pseudo-random
 * but deterministic through hashint8), inside every constraint of the
 * migrations and the API's schemas (a sample of each kind is checked against
 * the create schemas; command sets, profiles and RADIUS attributes are built in
 * JS and checked with the plugins' own validators before one INSERT each):
 * - BENCH_USERS (50,000) users, enabled, network login on, each in 1–3 of
 *   2,000 user groups;
 * - 500 device groups as a tree: 20 roots, each a binary heap of 25 groups
 *   over 5 levels; BENCH_DEVICES (10,000) devices, unique /32s in 10/8 in the
 *   canonical text form beside the cidr, each with a sealed TACACS+ key and
 *   RADIUS secret (sealed with the app's master key), in a random group;
 * - 200 command sets of 18–22 commands (a third with argument rules: exact,
 *   prefix, regex); 100 TACACS+ profiles using 1–4 sets; 50 RADIUS profiles;
 * - BENCH_RULES (5,000) rules, dense positions 0..n-1 and the migration's
 *   default rule moved last: WHO 60% user / 40% group, WHERE 50% device / 50%
 *   device group, 85% with a TACACS+ profile, 60% with a RADIUS profile, 10%
 *   disabled. Probe users and devices (the last 10 of each) are never targeted
 *   directly; the rule at 90% of the list is pointed at one probe pair (a
 *   group of the user, the root group above the device, a profile with 4
 *   command sets), and the rule at position 3 at another. Each probe's first
 *   match is checked with SQL and with the API before anything is timed.
 *
 * Measured (warm-up BENCH_WARMUP_ITERATIONS, default 10, then
 * BENCH_ITERATIONS, default 100, or BENCH_REORDER_ITERATIONS, default 30, for
 * the reorder; the route and its bounds are interleaved iteration by
 * iteration; median, p95, min):
 * 1. POST /api/v1/aaa/policy/test, tacacs, with a command no entry matches
 *    (the matched profile's sets are walked whole): first match deep (90%),
 *    no match (the default rule decides), and shallow (position 3) for
 *    contrast. Then (issue 12) the deep match with a login `method`: tacacs pap,
 *    tacacs ascii, and radius chap (the probe users hold sealed network
 *    verifiers with the CHAP cleartext, so the login step passes and the rules
 *    decide: permit); an exec start with the NAS's own pairs (merged into the
 *    REPLY as tac_plus-ng merges them); and `trace: relevant` (the steps of rules
 *    about other users left out) on the deep, the pap-with-pairs and the
 *    no-match cases. Bounds: the statements the route ran (captured from
 *    knex's query events during one request) replayed through bare pg in one
 *    repeatable-read transaction; evaluate() called in process without HTTP
 *    (with the in-memory rule cache the route uses, services/cache.ts); and the
 *    kernel's answer writer for the route's schema alone (compileSerializer of
 *    PolicyTestResponse, then Buffer.from), on a fresh in-process answer,
 *    checked to write the route's very bytes.
 * 2. GET /api/v1/aaa/policy/rules?who_user_id=U&where_device_id=D&resolve_groups=true.
 *    Bound: the same filter as one bare SQL statement (memberships and the
 *    group ancestry as subqueries, the same columns and joins), through pg.
 * 3. PUT /api/v1/aaa/policy/rules/reorder with every id, a fresh shuffle each
 *    time, the default last. Bounds: the bare rewrite of every position in one
 *    transaction (UPDATE … FROM unnest($1::uuid[]) WITH ORDINALITY); and the
 *    same plus reading the whole list back (what the route answers).
 * 4. GET /api/v1/aaa/policy/rules/{id}/tacacs/preview for the deep rule.
 *    Bounds: its captured statements replayed through pg; the handler's
 *    reads and renderRule/renderProfile in process; the two renderers alone.
 * Also the data-generation time and the database size.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/aaa-policy.ts
 * (BENCH_JSON=file writes the figures as JSON; BENCH_PARTS=1 runs only the policy
 * test, BENCH_POLICY_CASES=1,4 only those of its ten cases, 1-based).
 */
import http from 'node:http'
import os from 'node:os'
import { randomBytes, randomUUID } from 'node:crypto'
import knexFactory, { type Knex } from 'knex'
import pg from 'pg'
import { pino } from 'pino'
import { startApp, type App } from '../kernel/app.js'
import { loadConfig } from '../kernel/config.js'
import { Validation } from '../kernel/http/validation.js'
import { parseMasterKey } from '../kernel/security/master-key.js'
import { createSecrets } from '../kernel/security/secrets.js'
import { UserCreate } from '../kernel/identity/schemas/users.js'
import { UserGroupCreate } from '../kernel/identity/schemas/user-groups.js'
import { deriveVerifiers, sealVerifiers } from '../kernel/identity/verifiers.js'
import { defineReferenceTarget, type Logger } from '../sdk/index.js'
import { DeviceCreate } from '../plugins/inventory/schemas/devices.js'
import { DeviceGroupCreate } from '../plugins/inventory/schemas/device-groups.js'
import { parsePrefix } from '../plugins/inventory/services/address.js'
import { createInventoryService, SEAL } from '../plugins/inventory/services/inventory.js'
import { CommandSetCreate } from '../plugins/tacacs/schemas/command-sets.js'
import { TacacsProfileCreate } from '../plugins/tacacs/schemas/profiles.js'
import { prepareCommands } from '../plugins/tacacs/services/command-set-store.js'
import { createTacacsService } from '../plugins/tacacs/services/tacacs-service.js'
import { renderProfileText } from '../plugins/tacacs/renderers/profile.js'
import { renderRuleText } from '../plugins/tacacs/renderers/rule.js'
import type { Command, CommandSet, TacacsProfile } from '../plugins/tacacs/api.js'
import { RadiusProfileCreate } from '../plugins/radius/schemas/profiles.js'
import { attributesProblem } from '../plugins/radius/services/values.js'
import { createRadiusService } from '../plugins/radius/services/profiles.js'
import { AaaPolicyRuleCreate } from '../plugins/aaa-policy/schemas/rules.js'
import { PolicyTestResponse } from '../plugins/aaa-policy/schemas/test.js'
import { compileSerializer } from '../kernel/http/serialize.js'
import { evaluate, type EvaluateDeps, type PolicyTestInput } from '../plugins/aaa-policy/services/evaluate.js'
import { createRuleViewCache } from '../plugins/aaa-policy/services/cache.js'
import { policyTargets } from '../plugins/aaa-policy/services/targets.js'
import { loadRow, selectRules, toViewOf } from '../plugins/aaa-policy/services/rules.js'
import { startPostgres } from '../test/kit/postgres.js'
import { adminTokenFor } from '../test/kit/tokens.js'
import { atExit, envInt, machine, median, min, removeDir, tempDir, runAsMain, stats, fmtStats, loadAvg, type Stats, f2 } from './lib.js'

const PLUGINS = 'inventory,tacacs,radius,aaa-policy'
const USER_GROUPS = 2000
const DEVICE_GROUP_ROOTS = 20
const DEVICE_GROUPS_PER_ROOT = 25 // a binary heap: 1 + 2 + 4 + 8 + 10, five levels
const COMMAND_SETS = 200
const TACACS_PROFILES = 100
const RADIUS_PROFILES = 50
/** Users and devices at the end of each range that no generated rule targets directly. */
const PROBES = 10
/** A command line no entry of any set matches: the profile's sets are walked whole, then its default action decides. */
const PROBE_COMMAND = 'bench-probe-command now'

// ---------- small helpers ----------

const kb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`)

/** A knex that only compiles SQL (no connection), for the bare statements. */
const knexForSql = knexFactory({ client: 'pg' })

/** A deterministic pseudo-random non-negative int from an SQL expression and a salt. */
const h = (x: string, salt: number) => `(hashint8((${x})::bigint * 64 + ${salt})::bigint & 2147483647)`

/** Iterations of several timed functions, interleaved: a noisy neighbour hits all of them alike. */
async function interleaved(warmup: number, n: number, fns: (() => Promise<number>)[]): Promise<Stats[]> {
  for (let i = 0; i < warmup; i++) for (const f of fns) await f()
  const out = fns.map(() => [] as number[])
  for (let i = 0; i < n; i++) for (const [k, f] of fns.entries()) out[k].push(await f())
  return out.map(stats)
}

interface HttpAnswer {
  status: number
  ms: number
  bytes: number
  text: string
}

function httpCall(agent: http.Agent, base: string, token: string, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, accept: 'application/json' }
  if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': data.length })
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.request(base + path, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const ms = performance.now() - t0
        const buf = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, ms, bytes: buf.length, text: buf.toString('utf8') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(data)
  })
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

interface Statement {
  sql: string
  bindings: unknown[]
}

/** The statements `fn` runs inside a knex transaction (BEGIN and COMMIT included), in order. */
async function captureTransaction(knex: Knex, fn: () => Promise<unknown>): Promise<Statement[]> {
  const seen: (Statement & { tx?: string })[] = []
  const on = (q: { sql: string; bindings?: unknown[]; __knexTxId?: string }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [], tx: q.__knexTxId })
  knex.on('query', on)
  try {
    await fn()
  } finally {
    knex.removeListener('query', on)
  }
  const inTx = seen.filter((s) => s.tx)
  if (!inTx.length || new Set(inTx.map((s) => s.tx)).size !== 1) throw new Error(`expected the statements of one transaction, got ${JSON.stringify(seen.map((s) => [s.tx, s.sql.slice(0, 60)]))}`)
  return inTx.map(({ sql, bindings }) => ({ sql, bindings }))
}

async function replay(c: pg.Client, statements: Statement[]): Promise<void> {
  for (const s of statements) await c.query(s.sql, s.bindings as unknown[])
}

const shortSql = (s: Statement) => s.sql.replace(/\s+/g, ' ').slice(0, 90)

// ---------- data ----------

const COMMAND_WORDS = [
  'show', 'show running-config', 'show interfaces', 'configure terminal', 'interface', 'shutdown', 'no shutdown', 'reload', 'copy',
  'write memory', 'debug', 'undebug', 'clear', 'ping', 'traceroute', 'terminal length', 'enable', 'disable', 'exit', 'end', 'ip route',
  'username', 'logging', 'snmp-server', 'router bgp', 'router ospf', 'crypto key', 'vlan', 'switchport', 'spanning-tree', 'ntp server',
  'aaa', 'tacacs-server', 'radius-server', 'banner', 'hostname', 'line vty', 'access-list', 'ip access-list', 'dir',
]
const ARGUMENT_RULES: Command['arguments'][] = [
  [{ match_type: 'exact', value: 'running-config' }],
  [{ match_type: 'prefix', value: 'ip' }, { match_type: 'exact', value: 'version' }],
  [{ match_type: 'regex', value: '[0-9.]+' }],
  [{ match_type: 'regex', value: 'Gi\\d+\\x2f\\d+' }, { match_type: 'prefix', value: 'Vlan' }],
  [{ match_type: 'regex', value: 'vlan [0-9]{1,4}' }],
]

function commandSetBody(i: number) {
  const n = 18 + (i % 5)
  return {
    name: `cs-${String(i).padStart(3, '0')}`,
    commands: Array.from({ length: n }, (_, j) => {
      const args = (i + j) % 3 === 0 ? ARGUMENT_RULES[(i + j) % ARGUMENT_RULES.length] : undefined
      return { command: COMMAND_WORDS[(i * 3 + j * 7) % COMMAND_WORDS.length], action: j % 4 === 3 ? ('deny' as const) : ('permit' as const), ...(args ? { arguments: args } : {}) }
    }),
  }
}

/** Profile i (1-based) uses 1 + i % 4 distinct sets, in order. */
const profileSetIndexes = (i: number) => Array.from({ length: 1 + (i % 4) }, (_, j) => ((i * 13 + j * 50) % COMMAND_SETS) + 1)

function tacacsProfileBody(i: number) {
  return {
    name: `tp-${String(i).padStart(3, '0')}`,
    privilege_level: 1 + (i % 15),
    shell_attributes: [
      { name: 'idletime', value: String(10 + (i % 50)) },
      { name: 'timeout', value: String(60 + i) },
    ],
    default_action: i % 7 === 0 ? ('permit' as const) : ('deny' as const),
  }
}

function radiusProfileBody(i: number) {
  return {
    name: `rp-${String(i).padStart(3, '0')}`,
    attributes: [
      { name: 'Service-Type', value: i % 2 ? 'Administrative-User' : 'NAS-Prompt-User' },
      { name: 'Cisco-AVPair', value: `shell:priv-lvl=${1 + (i % 15)}` },
      { name: 'Session-Timeout', value: String(600 + i) },
    ],
  }
}

export interface DataFigures {
  counts: Record<string, number>
  steps: { step: string; ms: number }[]
  totalMs: number
  analyzeMs: number
  dbBytes: number
  tableBytes: Record<string, number>
}

interface Probe {
  username: string
  userId: string
  deviceId: string
  deviceName: string
}

interface Probes {
  deep: Probe & { position: number; ruleId: string }
  none: Probe
  shallow: Probe & { position: number }
  defaultPosition: number
}

/** The columns and joins of the list route, with the filter of `?who_user_id=$1&where_device_id=$2&resolve_groups=true` as one statement. */
function bareFilterSql(knex: Knex): string {
  const q = selectRules(knex)
    // `= ANY(ARRAY(subquery))`: an init plan run once, so the planner can OR the rule indexes (IN (subquery) made it scan).
    .whereRaw('(aaa_policy_rules.who_user_id = ?::uuid OR aaa_policy_rules.who_group_id = ANY(ARRAY(SELECT m.group_id FROM user_group_members m WHERE m.user_id = ?::uuid)) OR aaa_policy_rules.is_default)', ['$U', '$U'])
    .whereRaw(
      `(aaa_policy_rules.where_device_id = ?::uuid OR aaa_policy_rules.where_device_group_id = ANY(ARRAY(
         WITH RECURSIVE up(id, parent_id, depth) AS (
           SELECT g.id, g.parent_id, 0 FROM inventory_devices d JOIN inventory_device_groups g ON g.id = d.device_group_id WHERE d.id = ?::uuid
           UNION ALL
           SELECT g.id, g.parent_id, up.depth + 1 FROM inventory_device_groups g JOIN up ON g.id = up.parent_id WHERE up.depth < 64)
         SELECT id FROM up)) OR aaa_policy_rules.is_default)`,
      ['$D', '$D'],
    )
    .toSQL()
    .toNative()
  // Knex numbered four placeholders; the statement needs two (the user, the device).
  return q.sql.replace(/\$(\d+)/g, (_, n: string) => (Number(n) <= 2 ? '$1' : '$2'))
}

/** What the API would answer to this body: accepted, or a 422 (thrown here). */
function checkBody(v: Validation, fn: (x: unknown) => boolean, body: unknown, what: string): void {
  if (!fn(body)) throw new Error(`${what}: ${v.describe((fn as unknown as { errors: Parameters<Validation['describe']>[0] }).errors)}`)
}

export async function generate(c: pg.Client, o: { users: number; devices: number; rules: number; sealedKey: string; sealedSecret: string; sealedVerifiers?: string }): Promise<{ data: DataFigures; probes: Probes }> {
  const steps: DataFigures['steps'] = []
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    const t0 = performance.now()
    await c.query(sql, params)
    steps.push({ step: name, ms: performance.now() - t0 })
  }
  const t0 = performance.now()
  const { users, devices, rules } = o
  const targetUsers = users - PROBES
  const targetDevices = devices - PROBES

  // Command sets, profiles and RADIUS profiles: built here, checked by the API's schemas and the plugins' validators.
  const v = new Validation()
  const okCommandSet = v.compileBody(CommandSetCreate)
  const okTacacs = v.compileBody(TacacsProfileCreate)
  const okRadius = v.compileBody(RadiusProfileCreate)
  const sets = Array.from({ length: COMMAND_SETS }, (_, k) => {
    const body = commandSetBody(k + 1)
    checkBody(v, okCommandSet, body, `command set ${body.name}`)
    const commands = prepareCommands(body.commands) // throws on a regex outside the allowed subset
    return { i: k + 1, id: randomUUID(), name: body.name, commands, command_count: commands.length }
  })
  const tps = Array.from({ length: TACACS_PROFILES }, (_, k) => {
    const body = tacacsProfileBody(k + 1)
    checkBody(v, okTacacs, body, `TACACS+ profile ${body.name}`)
    return { i: k + 1, id: randomUUID(), ...body }
  })
  const rps = Array.from({ length: RADIUS_PROFILES }, (_, k) => {
    const body = radiusProfileBody(k + 1)
    checkBody(v, okRadius, body, `RADIUS profile ${body.name}`)
    const problem = attributesProblem(body.attributes)
    if (problem) throw new Error(`RADIUS profile ${body.name}: ${JSON.stringify(problem)}`)
    return { i: k + 1, id: randomUUID(), ...body }
  })
  const profileSets = tps.flatMap((p) => profileSetIndexes(p.i).map((si, position) => ({ profile_id: p.id, command_set_id: sets[si - 1].id, position })))

  await c.query('BEGIN')
  // Ids first, in temporary tables, so every later insert joins by index.
  await step(
    `${users.toLocaleString('en-US')} users`,
    `CREATE TEMP TABLE bu ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${users}) i;
     INSERT INTO users (id, username, display_name, enabled, network_login, source)
       SELECT id, 'u' || lpad(i::text, 5, '0'), 'Bench user ' || i, true, true, 'local' FROM bu;
     CREATE UNIQUE INDEX ON bu (i); ANALYZE bu`,
  )
  await step(
    `${USER_GROUPS.toLocaleString('en-US')} user groups`,
    `CREATE TEMP TABLE bg ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${USER_GROUPS}) i;
     INSERT INTO user_groups (id, name, description) SELECT id, 'ug-' || lpad(i::text, 4, '0'), 'Bench group ' || i FROM bg;
     CREATE UNIQUE INDEX ON bg (i); ANALYZE bg`,
  )
  // Each user in 1–3 distinct groups (offsets 0, 667, 1334 modulo 2000 never collide).
  await step(
    'memberships (1–3 groups per user)',
    `INSERT INTO user_group_members (group_id, user_id)
       SELECT bg.id, bu.id FROM bu CROSS JOIN generate_series(0, 2) j
         JOIN bg ON bg.i = 1 + (${h('bu.i', 1)} + j * 667) % ${USER_GROUPS}
        WHERE j < 1 + ${h('bu.i', 2)} % 3`,
  )
  // 20 trees of 25 groups: group m of a tree has parent (m-1)/2, so levels 1, 2, 2, 3 … 5 (depth ≤ 32).
  await step(
    `${DEVICE_GROUP_ROOTS * DEVICE_GROUPS_PER_ROOT} device groups (${DEVICE_GROUP_ROOTS} trees × 5 levels)`,
    `CREATE TEMP TABLE bdg ON COMMIT DROP AS
       SELECT k, gen_random_uuid() AS id, k % ${DEVICE_GROUP_ROOTS} AS r, k / ${DEVICE_GROUP_ROOTS} AS m
         FROM generate_series(0, ${DEVICE_GROUP_ROOTS * DEVICE_GROUPS_PER_ROOT - 1}) k;
     INSERT INTO inventory_device_groups (id, name, description, parent_id)
       SELECT c.id, 'dg-r' || lpad(c.r::text, 2, '0') || '-n' || lpad(c.m::text, 2, '0'), NULL, p.id
         FROM bdg c LEFT JOIN bdg p ON c.m > 0 AND p.r = c.r AND p.m = (c.m - 1) / 2
        ORDER BY c.m;
     CREATE UNIQUE INDEX ON bdg (k); ANALYZE bdg`,
  )
  // Unique /32s in 10/8; the text column is the canonical form (checked below with the plugin's parser).
  await step(
    `${devices.toLocaleString('en-US')} devices`,
    `CREATE TEMP TABLE bd ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${devices}) i;
     INSERT INTO inventory_devices (id, name, address, address_cidr, vendor, model, device_group_id, tacacs_key_sealed, radius_secret_sealed, enabled)
       SELECT bd.id, 'sw-' || lpad(bd.i::text, 5, '0'), a.addr, a.addr::cidr, 'cisco', 'c9300', bdg.id, $1, $2, true
         FROM bd
         CROSS JOIN LATERAL (SELECT '10.' || (bd.i >> 16) || '.' || ((bd.i >> 8) & 255) || '.' || (bd.i & 255) || '/32' AS addr) a
         JOIN bdg ON bdg.k = ${h('bd.i', 3)} % ${DEVICE_GROUP_ROOTS * DEVICE_GROUPS_PER_ROOT};
     CREATE UNIQUE INDEX ON bd (i); ANALYZE bd`.replace('$1', `'${o.sealedKey}'`).replace('$2', `'${o.sealedSecret}'`),
  )
  await step(
    `${COMMAND_SETS} command sets (${sets.reduce((n, s) => n + s.command_count, 0).toLocaleString('en-US')} commands)`,
    `CREATE TEMP TABLE bcs ON COMMIT DROP AS SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, id uuid, name text, commands jsonb, command_count int);
     INSERT INTO tacacs_command_sets (id, name, commands, command_count) SELECT id, name, commands, command_count FROM bcs`.replace('$1', `'${JSON.stringify(sets).replace(/'/g, "''")}'`),
  )
  await step(
    `${TACACS_PROFILES} TACACS+ profiles (${profileSets.length} set links)`,
    `CREATE TEMP TABLE btp ON COMMIT DROP AS SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, id uuid, name text, privilege_level int, shell_attributes jsonb, default_action text);
     INSERT INTO tacacs_profiles (id, name, privilege_level, shell_attributes, default_action) SELECT id, name, privilege_level, shell_attributes, default_action FROM btp;
     INSERT INTO tacacs_profile_command_sets (profile_id, command_set_id, position) SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(profile_id uuid, command_set_id uuid, position int)`
      .replace('$1', `'${JSON.stringify(tps)}'`)
      .replace('$2', `'${JSON.stringify(profileSets)}'`),
  )
  await step(
    `${RADIUS_PROFILES} RADIUS profiles`,
    `CREATE TEMP TABLE brp ON COMMIT DROP AS SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, id uuid, name text, attributes jsonb);
     INSERT INTO radius_profiles (id, name, attributes) SELECT id, name, attributes FROM brp`.replace('$1', `'${JSON.stringify(rps)}'`),
  )
  // The default rule (made by the migration at position 0) goes last; positions are checked at commit.
  await step(
    `${rules.toLocaleString('en-US')} rules + the default rule last`,
    `UPDATE aaa_policy_rules SET position = ${rules} WHERE is_default;
     INSERT INTO aaa_policy_rules (name, description, enabled, position, who_user_id, who_group_id, where_device_id, where_device_group_id, tacacs_profile_id, radius_profile_id)
       SELECT 'rule-' || lpad(s.i::text, 4, '0'), NULL, ${h('s.i', 10)} % 100 >= 10, s.i,
              CASE WHEN ${h('s.i', 11)} % 10 < 6 THEN bu.id END,
              CASE WHEN ${h('s.i', 11)} % 10 >= 6 THEN bg.id END,
              CASE WHEN ${h('s.i', 12)} % 2 = 0 THEN bd.id END,
              CASE WHEN ${h('s.i', 12)} % 2 = 1 THEN bdg.id END,
              CASE WHEN ${h('s.i', 13)} % 100 < 85 THEN btp.id END,
              CASE WHEN ${h('s.i', 14)} % 100 < 60 THEN brp.id END
         FROM generate_series(0, ${rules - 1}) s(i)
         JOIN bu ON bu.i = 1 + ${h('s.i', 15)} % ${targetUsers}
         JOIN bg ON bg.i = 1 + ${h('s.i', 16)} % ${USER_GROUPS}
         JOIN bd ON bd.i = 1 + ${h('s.i', 17)} % ${targetDevices}
         JOIN bdg ON bdg.k = ${h('s.i', 18)} % ${DEVICE_GROUP_ROOTS * DEVICE_GROUPS_PER_ROOT}
         JOIN btp ON btp.i = 1 + ${h('s.i', 19)} % ${TACACS_PROFILES}
         JOIN brp ON brp.i = 1 + ${h('s.i', 20)} % ${RADIUS_PROFILES}`,
  )

  // Probes: pairs of a probe user and a probe device whose first enabled match is the default rule.
  const firstMatchSql = `SELECT min(r.position) AS p FROM (${bareFilterSql(knexForSql)}) r WHERE r.enabled`
  const candidates: Probe[] = []
  for (let k = 0; k < PROBES; k++) {
    const u = (await c.query(`SELECT u.id, u.username FROM users u JOIN bu ON bu.id = u.id WHERE bu.i = $1`, [users - k])).rows[0] as { id: string; username: string }
    const d = (await c.query(`SELECT d.id, d.name FROM inventory_devices d JOIN bd ON bd.id = d.id WHERE bd.i = $1`, [devices - k])).rows[0] as { id: string; name: string }
    const first = Number((await c.query(firstMatchSql, [u.id, d.id])).rows[0].p)
    if (first === rules) candidates.push({ username: u.username, userId: u.id, deviceId: d.id, deviceName: d.name })
  }
  if (candidates.length < 3) throw new Error(`only ${candidates.length} probe pairs reach the default rule; the generated policy is not what the bench expects`)
  const [none, deep, shallow] = candidates
  const deepPosition = Math.floor(rules * 0.9)
  const shallowPosition = Math.min(3, rules - 1)
  // The profile with 4 command sets (profile i uses 1 + i % 4 sets).
  const fullProfile = tps.find((p) => profileSetIndexes(p.i).length === 4)!
  const pointAt = async (position: number, p: Probe) =>
    c.query(
      `UPDATE aaa_policy_rules SET enabled = true, who_user_id = NULL, where_device_id = NULL,
              who_group_id = (SELECT group_id FROM user_group_members WHERE user_id = $1 ORDER BY group_id LIMIT 1),
              where_device_group_id = (WITH RECURSIVE up(id, parent_id) AS (
                  SELECT g.id, g.parent_id FROM inventory_devices d JOIN inventory_device_groups g ON g.id = d.device_group_id WHERE d.id = $2
                  UNION ALL SELECT g.id, g.parent_id FROM inventory_device_groups g JOIN up ON g.id = up.parent_id)
                SELECT id FROM up WHERE parent_id IS NULL),
              tacacs_profile_id = $3, radius_profile_id = (SELECT id FROM brp WHERE i = 1)
        WHERE position = $4`,
      [p.userId, p.deviceId, fullProfile.id, position],
    )
  await pointAt(deepPosition, deep)
  await pointAt(shallowPosition, shallow)
  for (const [p, want] of [[none, rules], [deep, deepPosition], [shallow, shallowPosition]] as const) {
    const first = Number((await c.query(firstMatchSql, [p.userId, p.deviceId])).rows[0].p)
    if (first !== want) throw new Error(`probe ${p.username} on ${p.deviceName}: first match at ${first}, expected ${want}`)
  }
  const deepRuleId = (await c.query('SELECT id FROM aaa_policy_rules WHERE position = $1', [deepPosition])).rows[0].id as string
  // The probe users get network password material with CHAP on (the verifiers a password change
  // would seal), so that a test with a login `method` reaches the rules instead of being refused first.
  if (o.sealedVerifiers) await c.query('UPDATE users SET network_verifiers = $1, chap_enabled = true WHERE id = ANY($2::uuid[])', [o.sealedVerifiers, candidates.map((p) => p.userId)])

  // A sample of every kind against the API's create schemas, and the stored invariants.
  const okUser = v.compileBody(UserCreate)
  const okGroup = v.compileBody(UserGroupCreate)
  const okDevice = v.compileBody(DeviceCreate)
  const okDeviceGroup = v.compileBody(DeviceGroupCreate)
  const okRule = v.compileBody(AaaPolicyRuleCreate)
  const sample = async (sql: string) => (await c.query(sql)).rows as Record<string, unknown>[]
  for (const r of await sample(`(SELECT username, display_name FROM users ORDER BY username LIMIT 2) UNION ALL (SELECT username, display_name FROM users ORDER BY username DESC LIMIT 2)`)) {
    const body = { username: r.username, display_name: r.display_name, network_login: true }
    if (!okUser(body)) throw new Error(`user ${JSON.stringify(body)}: ${v.describe(okUser.errors)}`)
  }
  for (const r of await sample(`SELECT name FROM user_groups ORDER BY random() LIMIT 5`)) if (!okGroup({ name: r.name })) throw new Error(`user group ${String(r.name)}: ${v.describe(okGroup.errors)}`)
  for (const r of await sample(`SELECT name FROM inventory_device_groups ORDER BY random() LIMIT 5`)) if (!okDeviceGroup({ name: r.name })) throw new Error(`device group ${String(r.name)}: ${v.describe(okDeviceGroup.errors)}`)
  for (const r of await sample(`SELECT name, address FROM inventory_devices ORDER BY random() LIMIT 50`)) {
    const body = { name: r.name, address: r.address, tacacs_key: 'bench-key', radius_secret: 'bench-secret' }
    if (!okDevice(body)) throw new Error(`device ${JSON.stringify(body)}: ${v.describe(okDevice.errors)}`)
    const parsed = parsePrefix(String(r.address))
    if (!parsed.ok || parsed.text !== r.address) throw new Error(`device address ${String(r.address)} is not in canonical form (${JSON.stringify(parsed)})`)
  }
  for (const r of await sample(`SELECT name, enabled, who_user_id, who_group_id, where_device_id, where_device_group_id, tacacs_profile_id, radius_profile_id FROM aaa_policy_rules WHERE NOT is_default ORDER BY random() LIMIT 20`)) {
    const body = {
      name: r.name, enabled: r.enabled,
      who: r.who_user_id ? { user_id: r.who_user_id } : { group_id: r.who_group_id },
      where: r.where_device_id ? { device_id: r.where_device_id } : { device_group_id: r.where_device_group_id },
      tacacs_profile_id: r.tacacs_profile_id, radius_profile_id: r.radius_profile_id,
    }
    if (!okRule(body)) throw new Error(`rule ${JSON.stringify(body)}: ${v.describe(okRule.errors)}`)
  }
  const depth = Number(
    (
      await c.query(`WITH RECURSIVE t(id, lvl) AS (SELECT id, 1 FROM inventory_device_groups WHERE parent_id IS NULL
                     UNION ALL SELECT g.id, t.lvl + 1 FROM inventory_device_groups g JOIN t ON g.parent_id = t.id) SELECT max(lvl) AS d, count(*) AS n FROM t`)
    ).rows[0].d,
  )
  if (depth !== 5) throw new Error(`device group depth ${depth}, expected 5`)
  await c.query('COMMIT') // the deferred UNIQUE (position) is checked here
  const order = (await c.query(`SELECT count(*) AS n, min(position) AS lo, max(position) AS hi, count(DISTINCT position) AS d, bool_and(is_default = (position = max_p)) AS default_last
                                  FROM aaa_policy_rules, (SELECT max(position) AS max_p FROM aaa_policy_rules) m`)).rows[0]
  if (Number(order.n) !== rules + 1 || Number(order.lo) !== 0 || Number(order.hi) !== rules || Number(order.d) !== rules + 1 || order.default_last !== true) throw new Error(`rule order broken: ${JSON.stringify(order)}`)
  const totalMs = performance.now() - t0

  const a0 = performance.now()
  await c.query('VACUUM (ANALYZE)')
  const analyzeMs = performance.now() - a0

  const counts: Record<string, number> = {}
  const tableBytes: Record<string, number> = {}
  for (const t of ['users', 'user_groups', 'user_group_members', 'inventory_device_groups', 'inventory_devices', 'tacacs_command_sets', 'tacacs_profiles', 'tacacs_profile_command_sets', 'radius_profiles', 'aaa_policy_rules']) {
    const r = (await c.query(`SELECT count(*) AS n, pg_total_relation_size('${t}') AS b FROM ${t}`)).rows[0]
    counts[t] = Number(r.n)
    tableBytes[t] = Number(r.b)
  }
  const dbBytes = Number((await c.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b)
  return {
    data: { counts, steps, totalMs, analyzeMs, dbBytes, tableBytes },
    probes: {
      none,
      deep: { ...deep, position: deepPosition, ruleId: deepRuleId },
      shallow: { ...shallow, position: shallowPosition },
      defaultPosition: rules,
    },
  }
}


// ---------- the benchmark ----------

export interface Figure {
  label: string
  target: number | null
  api: Stats
  bytes: number
  bounds: { label: string; stats: Stats }[]
  notes: string[]
}

export interface AaaResult {
  machine: string
  loadStart: string
  loadEnd: string
  data: DataFigures
  figures: Figure[]
}

export async function runAaaPolicy(o: { printMachine?: boolean } = {}): Promise<AaaResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  const loadStart = loadAvg()
  console.log(`load average at start: ${loadStart} (figures are only comparable on an otherwise idle machine)`)
  const users = envInt('BENCH_USERS', 50_000)
  const devices = envInt('BENCH_DEVICES', 10_000)
  const rules = envInt('BENCH_RULES', 5_000)
  const n = envInt('BENCH_ITERATIONS', 100)
  const warm = envInt('BENCH_WARMUP_ITERATIONS', 10)
  const nReorder = envInt('BENCH_REORDER_ITERATIONS', 30)
  // BENCH_PARTS=1 runs only the policy test; BENCH_POLICY_CASES=1,4 only those of its cases (1-based).
  const list = (name: string) => (process.env[name] ? process.env[name]!.split(',').map(Number) : null)
  const parts = list('BENCH_PARTS')
  const part = (k: number) => parts === null || parts.includes(k)
  const policyCases = list('BENCH_POLICY_CASES')

  const pgc = await startPostgres()
  const stopPg = atExit(() => pgc.destroy())
  const databaseUrl = await pgc.createDatabase('benchaaa')
  const masterKey = randomBytes(32).toString('hex')
  const dataDir = tempDir('portcullis-bench-aaa-')
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MASTER_KEY: masterKey, DATABASE_URL: databaseUrl, PLUGINS, LOG_LEVEL: 'silent' })
  let app: App | null = null
  const c = new pg.Client({ connectionString: databaseUrl })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    app = await startApp(config, { log: silent })
    await c.connect()
    const token = await adminTokenFor({ databaseUrl, masterKey })
    const knex = app.db.knex
    const secrets = createSecrets(parseMasterKey(masterKey, 'masterKey'))

    console.log(`\n== Data: ${users.toLocaleString('en-US')} users, ${devices.toLocaleString('en-US')} devices, ${rules.toLocaleString('en-US')} rules (bulk SQL in one transaction) ==`)
    const { data, probes } = await generate(c, {
      users,
      devices,
      rules,
      sealedKey: secrets.encrypt(SEAL.tacacs_key, 'bench-tacacs-key'),
      sealedSecret: secrets.encrypt(SEAL.radius_secret, 'bench-radius-secret'),
      sealedVerifiers: sealVerifiers(secrets, deriveVerifiers('bench-probe-password', true)),
    })
    for (const s of data.steps) console.log(`  ${s.step.padEnd(44)} ${f2(s.ms).padStart(7)} ms`)
    console.log(`generated in ${(data.totalMs / 1000).toFixed(2)} s (with the checks); VACUUM (ANALYZE) ${(data.analyzeMs / 1000).toFixed(2)} s`)
    console.log(`database size ${kb(data.dbBytes)}; ${Object.entries(data.counts).map(([t, k]) => `${t} ${k.toLocaleString('en-US')} (${kb(data.tableBytes[t])})`).join(', ')}`)
    console.log(`probes: deep ${probes.deep.username} on ${probes.deep.deviceName} (rule at ${probes.deep.position}), no match ${probes.none.username} on ${probes.none.deviceName} (default at ${probes.defaultPosition}), shallow ${probes.shallow.username} on ${probes.shallow.deviceName} (rule at ${probes.shallow.position})`)

    const call = (method: string, path: string, body?: unknown) => httpCall(agent, app!.url, token, method, path, body)
    const ok = (a: HttpAnswer, what: string) => {
      if (a.status !== 200) throw new Error(`${what}: ${a.status} ${a.text.slice(0, 500)}`)
      return a
    }
    const figures: Figure[] = []

    // The plugins' services, built from the same modules on the app's knex, for the in-process bounds;
    // the rules come from the same in-memory cache the route uses (services/cache.ts: the version row read per request).
    const tacacs = createTacacsService(app.db)
    const inventory = createInventoryService(knex, secrets, {
      device: defineReferenceTarget({ kind: 'device', table: 'inventory_devices', nameColumn: 'name' }),
      device_group: defineReferenceTarget({ kind: 'device_group', table: 'inventory_device_groups', nameColumn: 'name' }),
    })
    const radius = createRadiusService(knex)
    const targets = policyTargets({ identity: app.identity, inventory, tacacs, radius })
    const ruleCache = createRuleViewCache(targets)
    const deps: EvaluateDeps = { identity: app.identity, inventory, tacacs, radius, listRules: (db) => ruleCache.views(db) }
    const rr = { isolation: 'repeatable read' as const }
    const FROM_DATABASE = { against: 'database' as const, daemon: null, release: null, deploy_id: null, deployed_at: null }
    const writeAnswer = compileSerializer(PolicyTestResponse)

    // 1. The policy test.
    if (part(1)) console.log(`\n== 1. POST /api/v1/aaa/policy/test (tacacs, command "${PROBE_COMMAND}"; load ${loadAvg()}) ==`)
    const tacacsTest = (p: Probe, method?: PolicyTestInput['method']): PolicyTestInput => ({ username: p.username, device_id: p.deviceId, protocol: 'tacacs', command: PROBE_COMMAND, ...(method ? { method } : {}) })
    const execStart = (p: Probe): PolicyTestInput => ({ username: p.username, device_id: p.deviceId, protocol: 'tacacs' })
    // What an IOS NAS adds to an exec start, and a vendor pair: an optional priv-lvl (replaced by the profile's) and a protocol (passed through).
    const NAS_PAIRS = [{ name: 'priv-lvl', value: '1', optional: true }, { name: 'protocol', value: 'ip' }]
    const cases: [string, Probe, number, PolicyTestInput][] = [
      ['first match deep', probes.deep, probes.deep.position, tacacsTest(probes.deep)],
      ['no match: the default rule', probes.none, probes.defaultPosition, tacacsTest(probes.none)],
      ['first match shallow', probes.shallow, probes.shallow.position, tacacsTest(probes.shallow)],
      // Issue 12: the login methods (the probe users hold verifiers and the CHAP cleartext).
      ['first match deep, method pap', probes.deep, probes.deep.position, tacacsTest(probes.deep, 'pap')],
      ['first match deep, method ascii', probes.deep, probes.deep.position, tacacsTest(probes.deep, 'ascii')],
      ['first match deep, RADIUS, method chap', probes.deep, probes.deep.position, { username: probes.deep.username, device_id: probes.deep.deviceId, protocol: 'radius', method: 'chap' }],
      // Issue 12: the NAS's own pairs (an exec start, merged into the REPLY), and the trace of the rules about this user only.
      ['first match deep, exec start with NAS pairs', probes.deep, probes.deep.position, { ...execStart(probes.deep), nas_attributes: NAS_PAIRS }],
      ['first match deep, trace relevant', probes.deep, probes.deep.position, { ...tacacsTest(probes.deep), trace: 'relevant' }],
      ['first match deep, method pap, NAS pairs, trace relevant', probes.deep, probes.deep.position, { ...execStart(probes.deep), method: 'pap', nas_attributes: NAS_PAIRS, trace: 'relevant' }],
      ['no match: the default rule, trace relevant', probes.none, probes.defaultPosition, { ...tacacsTest(probes.none), trace: 'relevant' }],
    ]
    for (const [label, , want, body] of cases.filter((_, i) => part(1) && (policyCases === null || policyCases.includes(i + 1)))) {
      const first = ok(await call('POST', '/api/v1/aaa/policy/test', body), label)
      const answer = JSON.parse(first.text) as { decision: string; reason: string; matched_rule: { position: number } | null; trace: unknown[]; rules_tried: number; command_decision: unknown }
      if (answer.matched_rule?.position !== want) throw new Error(`${label}: matched ${JSON.stringify(answer.matched_rule)}, expected position ${want} (${answer.reason})`)
      if (body.method && answer.decision !== 'permit') throw new Error(`${label}: ${answer.decision}, expected permit (${answer.reason})`)
      const statements = await captureTransaction(knex, () => call('POST', '/api/v1/aaa/policy/test', body))
      // As the route answers it: evaluate's answer, and what answered (the database, here).
      const inProc = async () => ({ ...(await app!.db.transaction((trx) => evaluate(deps, trx, body), rr)), answered_from: FROM_DATABASE })
      const inProcResult = await inProc()
      // The kernel's writer for the route's answer schema, as the route compiles it (kernel/http/serialize.ts).
      // On a fresh answer each time (made outside the clock): a written answer's strings stay flattened, so rewriting one would flatter the writer.
      const write = async () => {
        const fresh = await inProc()
        return timed(async () => Buffer.from(writeAnswer(fresh)))
      }
      if (writeAnswer(inProcResult) !== JSON.stringify(JSON.parse(first.text))) throw new Error(`${label}: the in-process answer, written, differs from the route's`)
      const [api, sql, proc, ser] = await interleaved(warm, n, [
        async () => ok(await call('POST', '/api/v1/aaa/policy/test', body), label).ms,
        () => timed(() => replay(c, statements)),
        () => timed(inProc),
        write,
      ])
      const j0 = performance.now()
      for (let i = 0; i < 20; i++) JSON.stringify(inProcResult)
      const jsonMs = (performance.now() - j0) / 20
      const fig: Figure = {
        label: `policy test, ${body.protocol}, ${label} (position ${want}, ${answer.rules_tried} rules tried, trace ${answer.trace.length} steps)`,
        target: 5,
        api,
        bytes: first.bytes,
        bounds: [
          { label: `the route's ${statements.length} statements replayed through pg (one repeatable-read transaction)`, stats: sql },
          { label: 'evaluate() in process, no HTTP (its own repeatable-read transaction)', stats: proc },
          { label: "the route's answer writer alone (fast-json-stringify by PolicyTestResponse, then to bytes), on a fresh in-process answer", stats: ser },
        ],
        notes: [`decision ${answer.decision}, command_decision ${JSON.stringify(answer.command_decision).slice(0, 80)}…`, `JSON.stringify of the answer alone: ${f2(jsonMs)} ms`, ...statements.map((s) => `  sql: ${shortSql(s)}`)],
      }
      figures.push(fig)
      printFigure(fig)
    }

    // 2. The list, filtered with resolve_groups.
    if (part(2)) {
      console.log(`\n== 2. GET /api/v1/aaa/policy/rules?who_user_id=U&where_device_id=D&resolve_groups=true (load ${loadAvg()}) ==`)
      const p = probes.deep
      const path = `/api/v1/aaa/policy/rules?who_user_id=${p.userId}&where_device_id=${p.deviceId}&resolve_groups=true`
      const first = ok(await call('GET', path), 'list')
      const listed = JSON.parse(first.text) as { id: string; position: number }[]
      const sql = bareFilterSql(knexForSql)
      const bare = (await c.query(sql, [p.userId, p.deviceId])).rows as { id: string }[]
      if (JSON.stringify(bare.map((r) => r.id)) !== JSON.stringify(listed.map((r) => r.id))) throw new Error(`the bare filter answers other rules than the route: ${bare.length} vs ${listed.length}`)
      const [api, bound] = await interleaved(warm, n, [async () => ok(await call('GET', path), 'list').ms, () => timed(() => c.query(sql, [p.userId, p.deviceId]))])
      const fig: Figure = {
        label: `rules list, resolve_groups, user ${p.username} on ${p.deviceName}`,
        target: 50,
        api,
        bytes: first.bytes,
        bounds: [{ label: 'the same filter as one bare SQL statement through pg', stats: bound }],
        notes: [`answer: ${listed.length} rules (positions ${listed.map((r) => r.position).join(', ')}), ${kb(first.bytes)}`],
      }
      figures.push(fig)
      printFigure(fig)
    }

    // 3. The reorder.
    if (part(3)) {
      console.log(`\n== 3. PUT /api/v1/aaa/policy/rules/reorder, all ${rules + 1} ids, a fresh shuffle each time (load ${loadAvg()}) ==`)
      const all = (await c.query('SELECT id, is_default FROM aaa_policy_rules ORDER BY position')).rows as { id: string; is_default: boolean }[]
      const defaultId = all.find((r) => r.is_default)!.id
      const others = all.filter((r) => !r.is_default).map((r) => r.id)
      const shuffled = () => {
        const a = [...others]
        for (let i = a.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1))
          ;[a[i], a[j]] = [a[j], a[i]]
        }
        return [...a, defaultId]
      }
      const write = `UPDATE aaa_policy_rules AS r SET position = o.ord - 1 FROM unnest($1::uuid[]) WITH ORDINALITY AS o(id, ord) WHERE r.id = o.id AND r.position <> o.ord - 1`
      const readAll = selectRules(knexForSql).toSQL().toNative()
      let bytes = 0
      const [api, bare, bareRead] = await interleaved(Math.min(warm, 3), nReorder, [
        async () => {
          const ids = shuffled()
          const a = ok(await call('PUT', '/api/v1/aaa/policy/rules/reorder', { rule_ids: ids }), 'reorder')
          bytes = a.bytes
          return a.ms
        },
        async () => {
          const ids = shuffled()
          return timed(async () => {
            await c.query('BEGIN')
            await c.query(write, [ids])
            await c.query('COMMIT')
          })
        },
        async () => {
          const ids = shuffled()
          return timed(async () => {
            await c.query('BEGIN')
            await c.query(write, [ids])
            await c.query(readAll.sql, readAll.bindings as unknown[])
            await c.query('COMMIT')
          })
        },
      ])
      const audit = (await c.query(`SELECT count(*) AS n, avg(pg_column_size(a.*)) AS b FROM audit_log a WHERE action = 'aaa_policy_rule.reorder'`).catch(() => ({ rows: [{ n: null, b: null }] }))).rows[0]
      const fig: Figure = {
        label: `reorder, ${rules + 1} ids`,
        target: 500,
        api,
        bytes,
        bounds: [
          { label: 'bare SQL: every position rewritten in one transaction (UPDATE … FROM unnest($1::uuid[]) WITH ORDINALITY)', stats: bare },
          { label: 'the same, plus reading the whole list back (the columns and joins the route answers)', stats: bareRead },
        ],
        notes: [`answer ${kb(bytes)}`, audit.n !== null ? `audit rows for reorders: ${audit.n}, ~${kb(Number(audit.b))} each` : 'audit table not found under audit_log'],
      }
      figures.push(fig)
      printFigure(fig)
    }

    // 4. The preview.
    if (part(4)) {
      console.log(`\n== 4. GET /api/v1/aaa/policy/rules/{id}/tacacs/preview (load ${loadAvg()}) ==`)
      const id = probes.deep.ruleId
      const path = `/api/v1/aaa/policy/rules/${id}/tacacs/preview`
      const first = ok(await call('GET', path), 'preview')
      const statements = await captureTransaction(knex, () => call('GET', path))
      const handlerBody = () =>
        app!.db.transaction(async (trx) => {
          const row = await loadRow(trx, id)
          const profile = row!.tacacs_profile_id ? await tacacs.getProfile(row!.tacacs_profile_id, trx) : null
          return { rule_id: row!.id, snippet: tacacs.renderRule(await toViewOf(row!, targets, trx), profile?.name ?? null), profile_snippet: profile ? await tacacs.renderProfile(profile, trx) : null }
        }, rr)
      const row = (await loadRow(knex, id))!
      const profile = (await tacacs.getProfile(row.tacacs_profile_id!)) as TacacsProfile
      const sets = (await Promise.all(profile.command_set_ids.map((s) => tacacs.getCommandSet(s)))) as CommandSet[]
      const view = await toViewOf(row, targets, knex)
      const renderOnly = async () => {
        renderRuleText(view, profile.name)
        renderProfileText(profile, sets)
      }
      const [api, sql, proc, render] = await interleaved(warm, n, [
        async () => ok(await call('GET', path), 'preview').ms,
        () => timed(() => replay(c, statements)),
        () => timed(handlerBody),
        () => timed(renderOnly),
      ])
      const fig: Figure = {
        label: `TACACS+ preview of the deep rule (profile with ${sets.length} command sets, ${sets.reduce((k, s) => k + s.commands.length, 0)} commands)`,
        target: 20,
        api,
        bytes: first.bytes,
        bounds: [
          { label: `the route's ${statements.length} statements replayed through pg (one repeatable-read transaction)`, stats: sql },
          { label: 'the handler in process: reads + renderRule/renderProfile, no HTTP', stats: proc },
          { label: 'renderRule + renderProfile alone, data in memory', stats: render },
        ],
        notes: [`answer ${kb(first.bytes)}`, ...statements.map((s) => `  sql: ${shortSql(s)}`)],
      }
      figures.push(fig)
      printFigure(fig)
    }

    const loadEnd = loadAvg()
    console.log(`\nload average at the end: ${loadEnd}`)
    console.log('\n| Measure | Route median / p95 / min | Bound median (what) | Ratio | Target |')
    console.log('|---|---|---|---|---|')
    for (const f of figures) {
      const b = f.bounds[0]
      const met = f.target === null ? '' : f.api.median < f.target ? `< ${f.target} ms: met` : `< ${f.target} ms: NOT met`
      console.log(`| ${f.label} | ${f2(f.api.median)} / ${f2(f.api.p95)} / ${f2(f.api.min)} ms | ${f2(b.stats.median)} ms (${b.label}) | ${(f.api.median / b.stats.median).toFixed(1)}× | ${met} |`)
    }
    return { machine: m.line, loadStart, loadEnd, data, figures }
  } finally {
    agent.destroy()
    await c.end().catch(() => undefined)
    if (app) await app.stop().catch(() => undefined)
    stopPg()
    removeDir(dataDir)
  }
}

function printFigure(f: Figure) {
  console.log(`${f.label}`)
  console.log(`  route:  ${fmtStats(f.api)}; answer ${kb(f.bytes)}${f.target !== null ? `; target < ${f.target} ms: ${f.api.median < f.target ? 'met' : 'NOT met'}` : ''}`)
  for (const b of f.bounds) console.log(`  bound:  ${fmtStats(b.stats)}  ← ${b.label}; route/bound ${(f.api.median / b.stats.median).toFixed(1)}×`)
  for (const note of f.notes) console.log(`  ${note}`)
}

runAsMain(import.meta.url, runAaaPolicy)
