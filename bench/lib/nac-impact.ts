/**
 * The NAC part of the change-impact bench (bench/policy-impact.ts calls `nacImpactBench`): the
 * replay of `requests` distinct 802.1X/MAB requests (default 200,000) against a deployed and a
 * pending NAC policy of `rules` rules (default 500), in memory, as the route runs it after the log
 * scan (plugins/nac/services/impact-replay.ts: resolve on each side, evaluate with the policy test's
 * evaluator, memoized, into the shared accumulator). The bound beside it: evaluateNacPolicy alone
 * over the same distinct requests, resolved beforehand, on both policies (what any replay must do).
 *
 * The traffic: 50 endpoint groups, 20 user groups, 200 switches in 20 device groups, 20,000 users,
 * 100,000 endpoints; requests one in two MAB, two in five PEAP, one in ten EAP-TLS, seen 1–50 times.
 * The rules: two or three conditions each (method, user group, endpoint group, device type, device
 * group, NAS-Port-Type), so a request walks many rules before one holds. The edit: every tenth rule
 * gets another profile, and one rule in the middle is removed.
 *
 * Run alone: node --import tsx bench/lib/nac-impact.ts
 */
import { ImpactAccumulator, type CompiledNacPolicy, type CompiledNacRule, type NacCondition, type NacMethod, type NacRequest } from '../../sdk/index.js'
import type { DistinctRadiusRequest } from '../../plugins/aaa-logs/api.js'
import { evaluateNacPolicy } from '../../plugins/nac/services/evaluate.js'
import type { NacInputs } from '../../plugins/nac/services/impact-inputs.js'
import { replayNac } from '../../plugins/nac/services/impact-replay.js'
import { ImpactSide, treeMac } from '../../plugins/nac/services/impact-side.js'
import { policyMatcher } from '../../plugins/nac/services/impact-match.js'

export interface NacImpactFigures {
  distinct: number
  events: number
  rules: number
  /** The replay: both sides resolved and evaluated, accumulated (ms). */
  replay_ms: number
  /** evaluateNacPolicy (the policy test's evaluator, with its trace) alone over the same requests, both policies (ms): the bound. */
  evaluate_alone_ms: number
  /** Its batch form (no trace) alone, both policies (ms). */
  matcher_alone_ms: number
  /** replay / evaluate_alone, replay / matcher_alone. */
  ratio: number
  ratio_to_matcher: number
  changes_total: number
  unreplayable: number
}

/** A small deterministic generator (mulberry32): the same traffic every run. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const id = (kind: string, i: number) => `00000000-0000-4000-8000-${kind}${String(i).padStart(12 - kind.length, '0')}`
const mac = (i: number) => `02:00:${[(i >> 24) & 255, (i >> 16) & 255, (i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`

export function nacImpactFixture(o: { requests?: number; rules?: number; seed?: number } = {}) {
  const n = o.requests ?? 200_000
  const ruleCount = o.rules ?? 500
  const r = rng(o.seed ?? 33)
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]
  const eg = Array.from({ length: 50 }, (_, i) => id('e', i))
  const ug = Array.from({ length: 20 }, (_, i) => id('u', i))
  const dg = Array.from({ length: 20 }, (_, i) => id('d', i))
  const types = ['printer', 'phone', 'camera', 'windows', 'linux']
  const methods: NacMethod[] = ['mab', 'peap', 'eap-tls']
  const condition = (): NacCondition => {
    switch (Math.floor(r() * 6)) {
      case 0:
        return { type: 'method', methods: [pick(methods)] }
      case 1:
        return { type: 'user_group', groups: [{ id: pick(ug), name: '' }] }
      case 2:
        return { type: 'endpoint_group', groups: [{ id: pick(eg), name: '' }, { id: pick(eg), name: '' }] }
      case 3:
        return { type: 'device_type', device_types: [pick(types)] }
      case 4:
        return { type: 'device_group', groups: [{ id: pick(dg), name: '' }] }
      default:
        return { type: 'nas_port_type', values: [pick(['Ethernet', 'Wireless-802.11'])] }
    }
  }
  const auth = (i: number, deny: boolean) => ({ profile_id: id('p', i), profile_name: `p${i}`, deny, reply: deny ? [] : [{ attribute: 'Tunnel-Private-Group-Id', value: String(100 + i) }] })
  const rules: CompiledNacRule[] = Array.from({ length: ruleCount }, (_, i) => ({
    id: id('r', i),
    name: `rule${i}`,
    position: i + 1,
    conditions: Array.from({ length: 2 + Math.floor(r() * 2) }, condition),
    authorization: auth(i % 40, i % 7 === 0),
  }))
  const deployedPolicy: CompiledNacPolicy = { rules, default: { id: id('r', 999999), name: 'default', authorization: auth(99, true) } }
  const edited = rules.filter((_, i) => i !== Math.floor(ruleCount / 2)).map((x, i) => ({ ...x, position: i + 1, authorization: i % 10 === 0 ? auth(41, false) : x.authorization }))
  const pendingPolicy: CompiledNacPolicy = { ...deployedPolicy, rules: edited }
  const clients = Array.from({ length: 200 }, (_, i) => ({ id: id('c', i), name: `sw${i}`, address: `10.${i >> 8}.${i & 255}.0/24`, device_group_ids: [dg[i % dg.length]] }))
  const users = Array.from({ length: 20_000 }, (_, i) => ({ username: `user${i}`, group_ids: [ug[i % ug.length], ug[(i * 7) % ug.length]].filter((g, j, a) => a.indexOf(g) === j).sort(), network_password: true }))
  const endpoints = Array.from({ length: 100_000 }, (_, i) => ({ mac: mac(i), endpoint_group_ids: r() < 0.9 ? [pick(eg)] : [], device_type: r() < 0.5 ? pick(types) : null }))
  const inputs = (policy: CompiledNacPolicy): NacInputs => ({ format: 1, policy, endpoints, users, refused: [], clients })
  const now = Date.now()
  const requests: DistinctRadiusRequest[] = Array.from({ length: n }, (_, i) => {
    const x = r()
    const method: NacMethod = x < 0.5 ? 'mab' : x < 0.9 ? 'peap' : 'eap-tls'
    const events = 1 + Math.floor(r() * 50)
    const user = method === 'mab' ? null : `user${Math.floor(r() * users.length)}`
    return {
      username: user ?? mac(i).replace(/:/g, ''),
      // The switch's own address: one per switch, as the packets come from it.
      nas_ip: `10.${(i % 200) >> 8}.${(i % 200) & 255}.1`,
      auth_type: method === 'mab' ? 'MAB' : method === 'peap' ? 'PEAP' : 'EAP-TLS',
      nac_method: method,
      nac_user: user,
      calling_station_id: mac(Math.floor(r() * 150_000)).toUpperCase().replace(/:/g, '-'),
      nas_port_type: r() < 0.7 ? 'Ethernet' : 'Wireless-802.11',
      events,
      permitted: events,
      last_seen: new Date(now - Math.floor(r() * 7 * 86_400_000)),
      last: { permitted: true, rule_name: null, profile: null, result_code: null, message: null },
    }
  })
  return { requests, deployed: inputs(deployedPolicy), pending: inputs(pendingPolicy) }
}

/** The replay and its bound over the same distinct requests. Figures only: nothing fails on a timing. */
export async function nacImpactBench(o: { requests?: number; rules?: number } = {}): Promise<NacImpactFigures> {
  const f = nacImpactFixture(o)
  const at = new Date()

  // The bound: every request resolved beforehand (outside the timing), then evaluated alone on both policies.
  const sides = [new ImpactSide(f.deployed), new ImpactSide(f.pending)]
  const resolved: NacRequest[][] = sides.map((side) =>
    f.requests.map((q) => {
      const t = q.events === 1 ? q.last_seen : null
      const x = side.resolve(q.nac_method!, q.nac_method === 'mab' ? null : q.nac_user, treeMac(q.calling_station_id), q.nas_ip, q.nas_port_type, t ? { day: t.getDay(), minute: t.getHours() * 60 + t.getMinutes() } : null)
      return {
        method: x.method,
        mac: x.mac,
        username: x.named,
        user_group_ids: x.user_group_ids,
        endpoint_group_ids: x.endpoint_group_ids,
        device_type: x.device_type,
        device_group_ids: x.client?.device_group_ids ?? [],
        certificate: x.method === 'eap-tls' ? {} : null,
        nas_port_type: x.nas_port_type,
        local_time: x.local_time ?? { day: 0, minute: 0 },
      }
    }),
  )
  let t0 = performance.now()
  let sink = 0
  for (const [i, side] of sides.entries()) for (const q of resolved[i]) sink += evaluateNacPolicy(side.policy, q).decision === 'accept' ? 1 : 0
  const evaluateAlone = performance.now() - t0
  // The batch form of the same evaluator (services/impact-match.ts) alone: the replay's own bound.
  t0 = performance.now()
  for (const [i, side] of sides.entries()) {
    const first = policyMatcher(side.policy)
    for (const q of resolved[i]) sink += typeof first({ ...q, local_time: q.local_time }) === 'number' ? 1 : 0
  }
  const matcherAlone = performance.now() - t0
  if (sink < 0) throw new Error('unreachable')

  // The replay as the route runs it, fresh sides (no memo carried over).
  const acc = new ImpactAccumulator({ changesLimit: 200, groupLimit: 25 })
  t0 = performance.now()
  replayNac(f.requests, new ImpactSide(f.deployed), new ImpactSide(f.pending), acc, { deadline: Date.now() + 300_000, names: new Map(), at })
  const result = acc.result()
  const replay = performance.now() - t0
  return {
    distinct: f.requests.length,
    events: f.requests.reduce((s, q) => s + q.events, 0),
    rules: f.deployed.policy.rules.length,
    replay_ms: Math.round(replay),
    evaluate_alone_ms: Math.round(evaluateAlone),
    matcher_alone_ms: Math.round(matcherAlone),
    ratio: Math.round((replay / evaluateAlone) * 100) / 100,
    ratio_to_matcher: Math.round((replay / matcherAlone) * 100) / 100,
    changes_total: result.changes_total,
    unreplayable: result.requests.unreplayable.requests,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  nacImpactBench({ requests: Number(process.env.BENCH_NAC_IMPACT_REQUESTS ?? 200_000) }).then((x) => console.log(JSON.stringify(x, null, 2)))
}
