/**
 * Change impact (issue 33): POST /aaa/policy/impact's two parts on a week of logs, against the
 * evaluator run alone over the same distinct requests (the bound).
 *
 * Setup. A throwaway PostgreSQL and the app in process (bench/lib/bench-app.ts, the default
 * edition). Logs written with bulk SQL (INSERT … SELECT generate_series, deterministic):
 * - BENCH_IMPACT_TACACS (1,000,000) distinct TACACS+ command authorizations over the last 7 days
 *   (20,000 users, 5,000 devices, a command line per request), a third of them seen twice more;
 * - BENCH_IMPACT_RADIUS (200,000) distinct RADIUS requests: half device administration (PAP), half
 *   802.1X/MAB (the NAC report's, ib's part below), each seen once or twice.
 * The policy is built in memory as the release keeps it (PolicyInputs): 20,000 users in 2,000
 * groups, 5,000 devices (/32s) in 500 device groups, BENCH_IMPACT_RULES (5,000) rules (WHO 60% a user,
 * 40% a group; WHERE 50% a device, 50% a device group; 10% disabled), 100 TACACS+ profiles over 200
 * command sets, 50 RADIUS profiles. The pending side is the same policy with an edit: 50 rules get
 * another TACACS+ profile and 20 rules are disabled.
 *
 * Measured, once (it is minutes of work; figures vary with the machine's load):
 * - the report, as the route makes it: the edit's reach (services/impact-reach.ts), the log scan of
 *   the requests in reach (`tacacsImpactRequests` + `radiusImpactRequests` with `only`, and the
 *   window's count), the replay of those (`replayAll`); the second of two runs;
 * - every request replayed, as before the reach: the full scan and the full replay, whose changes,
 *   groups and summary the report must equal (printed: yes/no);
 * - bound: `batchEvaluator(...).evaluate` alone on both sides over every distinct request of the
 *   window, already converted; ratio = report / bound, and the scan's share.
 * (The route's reads of the deployed release and the pending inputs are not in it: they are the
 * policy test's, a few hundred ms at this size.)
 * Targets: total < 10 s; ratio ≤ 1.5×. Printed, never enforced.
 */
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import path from 'node:path'
import { existsSync } from 'node:fs'
import { aaaLogsServiceRef } from '../plugins/aaa-logs/api.js'
import { batchEvaluator, batchShared } from '../plugins/aaa-policy/services/batch-evaluate.js'
import type { PolicyInputs } from '../plugins/aaa-policy/services/deployed-inputs.js'
import type { PolicyTestInput } from '../plugins/aaa-policy/services/evaluate.js'
import { editReach } from '../plugins/aaa-policy/services/impact-reach.js'
import { namesOf, replayAll } from '../plugins/aaa-policy/services/impact-run.js'
import { tacacsInput, radiusInput, type Sides } from '../plugins/aaa-policy/services/impact.js'
import { tacacsServiceRef } from '../plugins/tacacs/api.js'
import { ImpactAccumulator } from '../sdk/index.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, loadAvg, machine, ms, repoRoot, runAsMain } from './lib.js'

const USERS = 20_000
const UGROUPS = 2_000
const DEVICES = 5_000
const DGROUPS = 500
const COMMANDS = ['show', 'configure', 'interface', 'ping', 'write', 'reload', 'debug', 'copy', 'clear', 'traceroute']

/** Deterministic pseudo-random integers (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
  }
}

const deviceIp = (d: number) => `10.20.${Math.floor(d / 250)}.${(d % 250) + 1}`
const uid = (prefix: number, i: number) => `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`

export function policy(rules: number): PolicyInputs {
  const r = rng(33)
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: uid(1, i),
    username: `user${i}`,
    group_ids: [uid(2, i % UGROUPS), uid(2, (i * 7) % UGROUPS)].filter((g, k, a) => a.indexOf(g) === k),
    login: { chap: true, tacacs_chap: true, tacacs_mschap: true },
  }))
  const device_groups = Array.from({ length: DGROUPS }, (_, i) => ({ id: uid(3, i), parent_id: i < 20 ? null : uid(3, Math.floor((i - 20) / 2)) }))
  const devices = Array.from({ length: DEVICES }, (_, d) => ({ id: uid(4, d), name: `nas-${d}`, address: `${deviceIp(d)}/32`, enabled: true, device_group_id: uid(3, d % DGROUPS), has_tacacs_key: true, has_radius_secret: true }))
  const command_sets = Array.from({ length: 200 }, (_, i) => ({
    id: uid(5, i),
    name: `set-${i}`,
    description: null,
    commands: Array.from({ length: 20 }, (_, k) => ({ command: `${COMMANDS[(i + k) % COMMANDS.length]}${k >= COMMANDS.length ? ` x${k}` : ''}`, action: (i + k) % 3 ? ('permit' as const) : ('deny' as const), arguments: [] })),
  }))
  const tacacs_profiles = Array.from({ length: 100 }, (_, i) => ({
    id: uid(6, i),
    name: `tp-${i}`,
    description: null,
    privilege_level: i % 2 ? 15 : 1,
    shell_attributes: [],
    command_set_ids: [uid(5, i), uid(5, (i * 3 + 1) % 200)],
    default_action: 'deny' as const,
    services: [],
    enable_mode: 'login' as const,
    enable_privilege_level: 15,
    has_enable_secret: false,
  }))
  const radius_profiles = Array.from({ length: 50 }, (_, i) => ({ id: uid(7, i), name: `rp-${i}`, description: null, attributes: [{ name: 'Service-Type', value: i % 2 ? 'Administrative-User' : 'NAS-Prompt-User' }], allow_mschapv1: false }))
  const list: PolicyInputs['rules'] = Array.from({ length: rules - 1 }, (_, i) => {
    const u = r(USERS)
    const d = r(DEVICES)
    return {
      id: uid(8, i),
      name: `rule-${i}`,
      position: i,
      enabled: r(10) !== 0,
      is_default: false,
      who: r(10) < 6 ? { type: 'user' as const, user_id: uid(1, u), username: `user${u}` } : { type: 'group' as const, group_id: uid(2, r(UGROUPS)), group_name: 'g' },
      where: r(2) ? { type: 'device' as const, device_id: uid(4, d), device_name: `nas-${d}` } : { type: 'device_group' as const, device_group_id: uid(3, r(DGROUPS)), device_group_name: 'dg' },
      tacacs_profile_id: r(100) < 85 ? uid(6, r(100)) : null,
      radius_profile_id: r(100) < 60 ? uid(7, r(50)) : null,
    }
  })
  list.push({ id: uid(8, rules), name: 'default', position: rules - 1, enabled: true, is_default: true, who: { type: 'any' }, where: { type: 'any' }, tacacs_profile_id: uid(6, 0), radius_profile_id: uid(7, 0) })
  return { format: 1, protocol: 'tacacs', users, refused: [], devices, device_groups, rules: list, tacacs_profiles, command_sets, radius_profiles }
}

/** The pending side: 50 rules with another TACACS+ profile, 20 disabled. */
export function edited(p: PolicyInputs): PolicyInputs {
  const rules = p.rules.map((x, i) => (i % 97 === 0 && i < 50 * 97 ? { ...x, tacacs_profile_id: uid(6, (i + 1) % 100) } : i % 211 === 5 && i < 20 * 211 ? { ...x, enabled: false } : x))
  return { ...p, rules }
}

export interface PolicyImpactBench {
  tacacs_distinct: number
  radius_distinct: number
  rules: number
  reach_ms: number
  scan_ms: number
  replay_ms: number
  total_ms: number
  full_scan_ms: number
  full_replay_ms: number
  bound_ms: number
  ratio: number
  scan_share: number
  changes_total: number
  same_as_full: boolean
  nac: unknown
}

export async function runPolicyImpact(): Promise<PolicyImpactBench> {
  const T = envInt('BENCH_IMPACT_TACACS', 1_000_000)
  const R = envInt('BENCH_IMPACT_RADIUS', 200_000)
  const RULES = envInt('BENCH_IMPACT_RULES', 5_000)
  console.log(`Change impact (issue 33): ${T.toLocaleString('en-US')} distinct TACACS+ commands, ${R.toLocaleString('en-US')} RADIUS requests, ${RULES} rules; ${machine().line}`)
  const b = await startBenchApp('impact')
  try {
    const node = randomUUID()
    const seedStarted = Date.now()
    // TACACS+: one row per distinct request, and two more rows for every third; spread over 7 days.
    await b.client.query(
      `INSERT INTO aaa_log_tacacs_authz (timestamp, username, nas_ip, node_id, source_file, source_offset, action, service, priv_lvl, command, arguments, rule_name, profile)
       SELECT now() - ((g % 604000) || ' seconds')::interval - (k || ' hours')::interval, 'user' || ((g * 7919) % ${USERS}),
              ('10.20.' || ((g % ${DEVICES}) / 250) || '.' || ((g % ${DEVICES}) % 250 + 1))::inet, $1, '/var/log/tac_plus-ng/authz.log', g * 3 + k,
              'permit', 'shell', 15, (ARRAY[${COMMANDS.map((c) => `'${c}'`).join(',')}])[(g % ${COMMANDS.length}) + 1] || ' ' || g || ' <cr>', '{}', 'rule', 'tp'
         FROM generate_series(0, $2::bigint - 1) g, generate_series(0, 2) k WHERE k = 0 OR g % 3 = 0`,
      [node, T],
    )
    // RADIUS: half device administration (PAP), half NAC (MAB, the endpoint's MAC).
    await b.client.query(
      `INSERT INTO aaa_log_radius_auth (timestamp, username, nas_ip, node_id, source_file, source_offset, status, auth_type, nac_method, calling_station_id)
       SELECT now() - ((g % 604000) || ' seconds')::interval - (k || ' hours')::interval,
              CASE WHEN g % 2 = 0 THEN 'user' || (g / 2 % ${USERS}) ELSE lpad(to_hex(g), 12, '0') END,
              ('10.20.' || ((g / 2 * 7 + g / 40000) % ${DEVICES} / 250) || '.' || ((g / 2 * 7 + g / 40000) % ${DEVICES} % 250 + 1))::inet, $1, '/var/log/freeradius/auth.log', g * 2 + k,
              'accept', CASE WHEN g % 2 = 0 THEN 'PAP' ELSE 'MAB' END, CASE WHEN g % 2 = 0 THEN NULL ELSE 'mab' END,
              CASE WHEN g % 2 = 0 THEN '10.9.9.' || (g % 250) ELSE lpad(to_hex(g), 12, '0') END
         FROM generate_series(0, $2::bigint - 1) g, generate_series(0, 1) k WHERE k = 0 OR g % 2 = 0`,
      [node, R],
    )
    await b.client.query('ANALYZE aaa_log_tacacs_authz; ANALYZE aaa_log_radius_auth')
    console.log(`  seeded in ${ms(Date.now() - seedStarted)}`)

    const logs = b.app.resolveDeps('aaa-logs', { logs: aaaLogsServiceRef }).logs
    const { tacacs } = b.app.resolveDeps('tacacs', { tacacs: tacacsServiceRef })
    const deployed = policy(RULES)
    const pending = edited(deployed)

    // The report as the route makes it: the edit's reach, the scan of the requests in reach (and the
    // window's count), the replay of those. Fresh evaluators each time (nothing memoized before).
    const to = new Date()
    const from = new Date(to.getTime() - 7 * 86_400_000)
    const sidesOf = (withReach: boolean): Map<'tacacs' | 'radius', Sides> => {
      const shared = batchShared()
      const side = (p: PolicyInputs) => ({ inputs: p, evaluator: batchEvaluator(p, { tacacs }, new Map(), shared) })
      const both = (protocol: 'tacacs' | 'radius'): Sides => {
        const a = side({ ...deployed, protocol })
        const b = side({ ...pending, protocol })
        return { deployed: a.evaluator, pending: b.evaluator, deployedRelease: 'bench', ...(withReach ? { reach: editReach(a, b) } : {}) }
      }
      return new Map([
        ['tacacs', both('tacacs')],
        ['radius', both('radius')],
      ])
    }
    const names = namesOf(new Map(deployed.users.map((u) => [u.id, u.group_ids])), new Map(), new Map(deployed.device_groups.map((g) => [g.id, g.parent_id])), new Map(deployed.devices.map((d) => [d.id, d.device_group_id])), new Map())
    const report = async () => {
      const r0 = Date.now()
      const sides = sidesOf(true)
      const reachMs = Date.now() - r0
      const only = (p: 'tacacs' | 'radius') => (sides.get(p)!.reach!.scan ? { only: sides.get(p)!.reach!.scan! } : {})
      const s0 = Date.now()
      const t = await logs.tacacsImpactRequests({ from, to, limit: 1_500_000, ...only('tacacs') })
      const r = await logs.radiusImpactRequests({ from, to, limit: 1_500_000 - t.items.length, ...only('radius') })
      const scanMs = Date.now() - s0
      const acc = new ImpactAccumulator({ changesLimit: 200, groupLimit: 25 })
      const e0 = Date.now()
      await replayAll(acc, sides, names, t.items, r.items, Number.POSITIVE_INFINITY)
      const replayMs = Date.now() - e0
      for (const x of [t, r]) acc.unaffected((x.window_events ?? 0) - x.items.reduce((n, i) => n + ('nac_method' in i && i.nac_method !== null ? 0 : i.events), 0))
      return { reachMs, scanMs, replayMs, totalMs: Date.now() - r0, shipped: t.items.length + r.items.length, result: acc.result(), usernames: sides.get('tacacs')!.reach!.scan?.usernames.length ?? null }
    }
    await report() // warms the JIT and the database's cache
    const rep = await report()
    console.log(
      `  report (the route's work): ${ms(rep.totalMs)} = reach ${ms(rep.reachMs)} + scan ${ms(rep.scanMs)} (${rep.shipped.toLocaleString('en-US')} distinct requests in reach shipped, filter: ${rep.usernames} user names) + replay ${ms(rep.replayMs)}; ${rep.result.changes_total} changed requests (${rep.result.summary.permit_to_deny.requests} permit→deny), ${rep.result.requests.unaffected.events.toLocaleString('en-US')} real requests unaffected`,
    )

    // Every request replayed (what the route did before the reach): the full scan and replay, and the bound.
    const s0 = Date.now()
    const t = await logs.tacacsImpactRequests({ from, to, limit: 1_500_000 })
    const r = await logs.radiusImpactRequests({ from, to, limit: 1_500_000 - t.items.length })
    const scanMs = Date.now() - s0
    console.log(`  full log scan: ${ms(scanMs)} (${t.items.length.toLocaleString('en-US')} TACACS+ and ${r.items.length.toLocaleString('en-US')} RADIUS distinct requests${t.truncated || r.truncated ? ', truncated' : ''})`)
    // The bound: the evaluator alone, both sides, over the same requests already converted.
    const inputs: { protocol: 'tacacs' | 'radius'; input: PolicyTestInput }[] = []
    for (const x of t.items) {
      const c = tacacsInput(x)
      if (!('unreplayable' in c)) inputs.push({ protocol: 'tacacs', input: c.input })
    }
    for (const x of r.items) {
      if (x.nac_method !== null) continue
      const c = radiusInput(x)
      if (!('unreplayable' in c)) inputs.push({ protocol: 'radius', input: c.input })
    }
    const boundOnce = () => {
      const sides = sidesOf(false)
      const e0 = Date.now()
      for (const x of inputs) {
        const s = sides.get(x.protocol)!
        s.deployed!.evaluate(x.input)
        s.pending.evaluate(x.input)
      }
      return Date.now() - e0
    }
    // Twice each, interleaved (replay, bound, replay, bound): the first of each warms the JIT and the
    // command patterns' cache; the figures are the second's.
    const replayOnce = async () => {
      const acc = new ImpactAccumulator({ changesLimit: 200, groupLimit: 25 })
      const r0 = Date.now()
      await replayAll(acc, sidesOf(false), names, t.items, r.items, Number.POSITIVE_INFINITY)
      return { acc, ms: Date.now() - r0 }
    }
    const cold = await replayOnce()
    const boundCold = boundOnce()
    const { acc, ms: replayMs } = await replayOnce()
    const result = acc.result()
    console.log(`  full replay (both sides, accumulated): ${ms(replayMs)}; ${result.changes_total.toLocaleString('en-US')} changed requests (${result.summary.permit_to_deny.requests} permit→deny), ${result.requests.unreplayable.requests} not replayable`)
    // The reach proves the rest unchanged: the report with it finds the same changes.
    const same = JSON.stringify([rep.result.summary, rep.result.groups, rep.result.changes]) === JSON.stringify([result.summary, result.groups, result.changes])
    console.log(`  the report with the reach finds the same changes, groups and summary as the full replay: ${same ? 'yes' : 'NO'}`)

    const boundMs = boundOnce()
    console.log(`  first runs (cold): full replay ${ms(cold.ms)}, evaluator alone ${ms(boundCold)}`)
    const fullMs = scanMs + replayMs
    const totalMs = rep.totalMs
    console.log(`  evaluator alone (the bound, ${inputs.length.toLocaleString('en-US')} requests × 2 sides): ${ms(boundMs)}`)
    console.log(`  report total: ${ms(totalMs)}; target < 10 s: ${totalMs < 10_000 ? 'met' : 'NOT met'}; every request replayed (full scan + full replay): ${ms(fullMs)}`)
    console.log(
      `  ratio report / evaluator alone: ${(totalMs / boundMs).toFixed(3)}× (target ≤ 1.5×); full / evaluator alone: ${(fullMs / boundMs).toFixed(2)}×; the log scan's share of the report: ${((100 * rep.scanMs) / totalMs).toFixed(0)}% (of the full: ${((100 * scanMs) / fullMs).toFixed(0)}%)`,
    )

    // The NAC part (ib): bench/lib/nac-impact.ts when it is on this branch.
    let nac: unknown = null
    const nacFile = path.join(repoRoot, 'bench/lib/nac-impact.ts')
    if (existsSync(nacFile)) {
      const mod = (await import(pathToFileURL(nacFile).href)) as { nacImpactBench(o: { requests: number }): Promise<Record<string, number>> }
      nac = await mod.nacImpactBench({ requests: Math.floor(R) })
      console.log(`  NAC (bench/lib/nac-impact.ts): ${JSON.stringify(nac)}`)
    } else console.log('  NAC part: bench/lib/nac-impact.ts is not on this branch')
    console.log(`  load average at the end: ${loadAvg()}`)
    return {
      tacacs_distinct: t.items.length,
      radius_distinct: r.items.length,
      rules: RULES,
      reach_ms: rep.reachMs,
      scan_ms: rep.scanMs,
      replay_ms: rep.replayMs,
      total_ms: totalMs,
      full_scan_ms: scanMs,
      full_replay_ms: replayMs,
      bound_ms: boundMs,
      ratio: totalMs / boundMs,
      scan_share: rep.scanMs / totalMs,
      changes_total: result.changes_total,
      same_as_full: same,
      nac,
    }
  } finally {
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runPolicyImpact())
