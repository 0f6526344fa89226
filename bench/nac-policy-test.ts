/**
 * The NAC policy test (issue 16) at size: BENCH_NAC_RULES rules (default 500)
 * and BENCH_ENDPOINTS endpoints (default 100,000). Target: the policy test's
 * median under 5 ms.
 *
 * Setup. The default edition in this process (bench/lib/bench-app.ts). Seeded
 * through knex into the plugins' tables as the API writes them: 50 endpoint
 * groups, 20 user groups, a tree of 10 device groups and a switch in a leaf,
 * N endpoints (MAC, a group on nine in ten, a device type on half), 50
 * profiles, and the rules: each with two or three conditions drawn from every
 * type (method, user group, endpoint group, device type, device group,
 * certificate issuer, NAS-Port-Type, a time window that never holds on the
 * bench's requests), none matching the measured requests, so every request
 * walks every rule and falls to the default: the worst case. A user in three
 * user groups.
 *
 * Measured (BENCH_ITERATIONS, default 200, median, p95, min):
 *  - the best case beside it: a MAB request rule 0 takes (a one-step trace);
 *  - the policy test request (POST /api/v1/nac/policy/test, a PEAP request with
 *    a MAC, a username and the switch's address), timed from the write to the
 *    last byte on one keep-alive socket;
 *  - its parts: compileNacPolicy (one read of the rules, profiles and group
 *    names) and evaluateNacPolicy alone (pure, on the compiled policy);
 *  - the bound: a GET of one authorization profile (authentication, one row,
 *    the same server), interleaved with the policy test: the ratio is policy
 *    test / bare GET.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/nac-policy-test.ts
 */
import http from 'node:http'
import { compileNacPolicy } from '../plugins/nac/services/policy-rules.js'
import { evaluateNacPolicy } from '../plugins/nac/services/evaluate.js'
import type { ConditionTargets, StoredCondition } from '../plugins/nac/services/conditions.js'
import { defineReferenceTarget, jsonText, type NacRequest } from '../sdk/index.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, fmtStats, loadAvg, machine, runAsMain, stats, type Stats } from './lib.js'

function request(agent: http.Agent, base: string, token: string, method: string, p: string, body?: string): Promise<{ status: number; ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (body) headers['content-type'] = 'application/json'
    const req = http.request(base + p, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const mac = (i: number) => `0050c2${i.toString(16).padStart(6, '0')}`.match(/../g)!.join(':')

export interface NacPolicyBench {
  rules: number
  endpoints: number
  test: Stats
  /** Decided by the first rule (a one-step trace). */
  test_first_rule: Stats
  bare_get: Stats
  ratio: number
  compile: Stats
  evaluate: Stats
}

export async function runNacPolicyTest(o: { printMachine?: boolean } = {}): Promise<NacPolicyBench> {
  if (o.printMachine !== false) console.log(machine().line)
  const R = envInt('BENCH_NAC_RULES', 500)
  const N = envInt('BENCH_ENDPOINTS', 100_000)
  const ITER = envInt('BENCH_ITERATIONS', 200)
  const b = await startBenchApp('nacpolicy')
  const knex = b.app.db.knex
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    console.log(`\nnac policy test: seeding ${R} rules, ${N.toLocaleString('en')} endpoints (load average ${loadAvg()})`)
    const ids = async (table: string, rows: Record<string, unknown>[]) => (await knex(table).insert(rows).returning('id')).map((r: { id: string }) => r.id)
    const egroups = await ids('nac_endpoint_groups', Array.from({ length: 50 }, (_, i) => ({ name: `eg-${i}` })))
    // Other plugins' records through their API, never their tables.
    const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
      const r = await request(agent, b.app.url, b.token, 'POST', path, JSON.stringify(body))
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`)
      return (JSON.parse(r.text) as { id: string }).id
    }
    const ugroups: string[] = []
    for (let i = 0; i < 20; i++) ugroups.push(await post('/api/v1/user-groups', { name: `ug-${i}` }))
    const dgroups: string[] = []
    for (let i = 0; i < 10; i++) dgroups.push(await post('/api/v1/device-groups', { name: `dg-${i}`, ...(i ? { parent_id: dgroups[i - 1] } : {}) }))
    await post('/api/v1/devices', { name: 'bench-sw', address: '10.99.0.0/24', radius_secret: 'bench-secret', device_group_id: dgroups[9] })
    await post('/api/v1/users', { username: 'bench-alice', password: 'Bench-Alice-Secret-1', network_login: true, group_ids: ugroups.slice(0, 3) })
    const TYPES = ['printer', 'ip-phone', 'camera', 'laptop']
    for (let s = 0; s < N; s += 1000) {
      const rows = []
      for (let i = s; i < Math.min(N, s + 1000); i++) rows.push({ mac: mac(i), endpoint_group_id: i % 10 ? egroups[i % 50] : null, device_type: i % 2 ? TYPES[i % 4] : null })
      await knex('nac_endpoints').insert(rows)
    }
    const profiles = await ids('nac_authorization_profiles', Array.from({ length: 50 }, (_, i) => ({ name: `p-${i}`, vlan: String(100 + i), acl: `ACL-${i}` })))
    // Conditions none of the measured requests satisfy: each rule fails on its last condition at the latest.
    const never = (i: number) => {
      switch (i % 6) {
        case 0: return { type: 'user_group', group_ids: [ugroups[10 + (i % 10)]] }
        case 1: return { type: 'endpoint_group', group_ids: [egroups[(i % 49) + 1 === 7 ? 8 : (i % 49) + 1]] }
        case 2: return { type: 'certificate', field: 'issuer_cn', values: [`CA ${i}`] }
        case 3: return { type: 'nas_port_type', values: ['Wireless-802.11'] }
        case 4: return { type: 'time_window', days: ['sun'], start: '03:00', end: '03:01' }
        default: return { type: 'device_type', device_types: ['thermostat'] }
      }
    }
    // Rule 0 takes MAB requests from endpoint group eg-1 (the best case: decided by the first rule); the R-1 others never match the measured requests.
    const first = { type: 'endpoint_group', group_ids: [egroups[1]] }
    const rules = Array.from({ length: R }, (_, i) => {
      if (i === 0) return { name: 'rule-0', position: 0, conditions: jsonText([{ type: 'method', methods: ['mab'] }, first] as unknown as StoredCondition[]), authorization_profile_id: profiles[0], user_group_ids: [], endpoint_group_ids: [egroups[1]], device_group_ids: [] }
      const conditions = [{ type: 'method', methods: ['peap', 'eap-tls'] }, { type: 'device_group', group_ids: [dgroups[i % 10]] }, never(i)].slice(i % 3 === 0 ? 1 : 0)
      const refs = (k: string) => conditions.flatMap((c) => (c.type === k ? (c as { group_ids: string[] }).group_ids : []))
      return {
        name: `rule-${i}`, position: i, conditions: jsonText(conditions as unknown as StoredCondition[]), authorization_profile_id: profiles[i % 50],
        user_group_ids: refs('user_group'), endpoint_group_ids: refs('endpoint_group'), device_group_ids: refs('device_group'),
      }
    })
    await knex.transaction(async (trx) => {
      await trx('nac_policy_rules').where({ is_default: true }).update({ position: R })
      for (let i = 0; i < R; i += 100) await trx('nac_policy_rules').insert(rules.slice(i, i + 100))
    })
    await knex.raw('ANALYZE')

    // The request: endpoint 7 (group eg-7, a device type), a user in three groups, the switch's address, a Monday morning.
    const body = JSON.stringify({ method: 'peap', mac: mac(7), username: 'bench-alice', nas: '10.99.0.5', nas_port_type: 'Ethernet', time: '2026-11-30T09:00:00Z' })
    const warm = await request(agent, b.app.url, b.token, 'POST', '/api/v1/nac/policy/test', body)
    if (warm.status !== 200) throw new Error(`policy test: ${warm.status} ${warm.text.slice(0, 300)}`)
    const answer = JSON.parse(warm.text) as { rule: { is_default: boolean }; trace: unknown[] }
    if (!answer.rule.is_default || answer.trace.length !== R + 1) throw new Error(`expected the default after ${R} rules: ${warm.text.slice(0, 300)}`)
    const bare = `/api/v1/nac/authorization-profiles/${profiles[0]}`
    // The best case: MAB from endpoint 1 (group eg-1), decided by the first rule; a one-step trace.
    const best = JSON.stringify({ method: 'mab', mac: mac(1), nas: '10.99.0.5' })
    const bestWarm = JSON.parse((await request(agent, b.app.url, b.token, 'POST', '/api/v1/nac/policy/test', best)).text) as { rule: { name: string } }
    if (bestWarm.rule.name !== 'rule-0') throw new Error(`expected rule-0 for the best case: ${JSON.stringify(bestWarm).slice(0, 300)}`)
    const test: number[] = []
    const first1: number[] = []
    const get: number[] = []
    for (let i = 0; i < ITER; i++) {
      test.push((await request(agent, b.app.url, b.token, 'POST', '/api/v1/nac/policy/test', body)).ms)
      first1.push((await request(agent, b.app.url, b.token, 'POST', '/api/v1/nac/policy/test', best)).ms)
      get.push((await request(agent, b.app.url, b.token, 'GET', bare)).ms)
    }

    // The parts, in this process: compile (the database read) and evaluate (pure).
    const targets: ConditionTargets = {
      user_group: defineReferenceTarget({ kind: 'user_group', table: 'user_groups', nameColumn: 'name' }),
      endpoint_group: defineReferenceTarget({ kind: 'endpoint_group', table: 'nac_endpoint_groups', nameColumn: 'name' }),
      device_group: defineReferenceTarget({ kind: 'device_group', table: 'inventory_device_groups', nameColumn: 'name' }),
    }
    const compileMs: number[] = []
    let compiled = await compileNacPolicy(knex, targets)
    for (let i = 0; i < Math.min(ITER, 50); i++) {
      const t0 = performance.now()
      compiled = await compileNacPolicy(knex, targets)
      compileMs.push(performance.now() - t0)
    }
    const req: NacRequest = {
      method: 'peap', mac: mac(7), username: 'bench-alice', user_group_ids: ugroups.slice(0, 3), endpoint_group_ids: [egroups[7]], device_type: 'laptop',
      device_group_ids: [...dgroups].reverse(), certificate: null, nas_port_type: 'Ethernet', local_time: { day: 1, minute: 600 },
    }
    const evalMs: number[] = []
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now()
      evaluateNacPolicy(compiled, req)
      evalMs.push(performance.now() - t0)
    }
    const r: NacPolicyBench = { rules: R, endpoints: N, test: stats(test), test_first_rule: stats(first1), bare_get: stats(get), ratio: stats(test).median / stats(get).median, compile: stats(compileMs), evaluate: stats(evalMs) }
    console.log(`  policy test (${R} rules walked, default decides): ${fmtStats(r.test)}`)
    console.log(`  policy test decided by the first rule (MAB, one-step trace): ${fmtStats(r.test_first_rule)}; ratio to bare GET ${(r.test_first_rule.median / r.bare_get.median).toFixed(2)}`)
    console.log(`  bare GET of one profile: ${fmtStats(r.bare_get)}; ratio policy test / bare GET ${r.ratio.toFixed(2)}`)
    console.log(`  compileNacPolicy: ${fmtStats(r.compile)}`)
    console.log(`  evaluateNacPolicy alone: ${fmtStats(r.evaluate)}`)
    console.log(`  target: policy test median < 5 ms: ${r.test.median < 5 ? 'met' : 'NOT met'} (${(r.test.median / 5).toFixed(2)} of the target)`)
    console.log(`  load average at the end: ${loadAvg()}`)
    return r
  } finally {
    agent.destroy()
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runNacPolicyTest())
