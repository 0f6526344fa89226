/**
 * The reach of an edit: which logged requests the pending policy can answer differently from the
 * deployed one. A request is out of reach when its user (account, groups, login), the devices its
 * address resolves to (and their device groups), and every rule that could match it (with the
 * profile and command sets it gives) are the same on both sides and keep their relative order: both
 * evaluators then walk the same rules to the same answer, so the report counts it unchanged without
 * replaying it. A week of logs holds a million distinct requests; an edit of 50 rules reaches a few
 * thousand of them.
 *
 * Sound, not exact: `reaches` may say yes to a request whose answer does not change (it is then
 * replayed, as every request was before), never no to one whose answer changes. The property test
 * (test/impact-reach-check.ts) holds it to that over random policies and random edits.
 *
 * `scan` is a superset of `reaches` the log scan can filter on in SQL (user names, NAS prefixes), so
 * the database ships only the requests in reach.
 */
import type { PolicyRuleView } from '../api.js'
import type { BatchEvaluator } from './batch-evaluate.js'
import type { PolicyInputs } from './deployed-inputs.js'

export interface EditReach {
  /** Nothing is proven unaffected: nothing deployed, or an edit that reaches every user on every device. */
  all: boolean
  /** Could the request be answered differently? (`address`: the NAS address; `deviceId` instead when it names the device.) */
  reaches(username: string, address: string | null, deviceId?: string): boolean
  /** What the log scan keeps (lower-case user names OR NAS address in a prefix); null: everything. */
  scan: { usernames: string[]; prefixes: string[] } | null
}

type Side = { inputs: PolicyInputs; evaluator: BatchEvaluator }
type Who = PolicyRuleView['who']
type Where = PolicyRuleView['where']

/** Beyond this many NAS prefixes the scan reads every request (a long `<<= ANY` costs more than it saves). */
const MAX_SCAN_PREFIXES = 256

const EVERYTHING: EditReach = { all: true, reaches: () => true, scan: null }

/**
 * One text per value. The deployed side is read back from the release's JSON, written from the
 * same shapes as the pending side is read, so their key order agrees; where it would not (a release
 * of an older version), the texts differ and the reach only grows: sound, a little less sharp.
 */
const json = (x: unknown) => JSON.stringify(x)
/** The same without the row's times: the release leaves them out, the database has them. */
const withoutTimes = (x: unknown) => JSON.stringify(x, (k, v: unknown) => (k === 'created_at' || k === 'updated_at' ? undefined : v))

const differs = <K, V>(a: Map<K, V>, b: Map<K, V>, key: K, same: (x: V, y: V) => boolean) => {
  const x = a.get(key)
  const y = b.get(key)
  return x === undefined || y === undefined ? x !== y : !same(x, y)
}

export function editReach(deployed: Side | null, pending: Side): EditReach {
  if (!deployed) return EVERYTHING
  const sides = [deployed.inputs, pending.inputs] as const
  const protocol = pending.inputs.protocol

  // Users: the account as the daemons know it (id, exact name, groups, login, expiry) or its refusal.
  // Compared field by field: tens of thousands of users, each side read anew.
  const userMaps = sides.map((x) => new Map(x.users.map((u) => [u.username.toLowerCase(), u])))
  const refusedMaps = sides.map((x) => new Map(x.refused.map((u) => [u.username.toLowerCase(), u])))
  const changedUsers = new Set<string>()
  for (const [a, b] of [userMaps, refusedMaps] as const) {
    for (const [k, u] of a as Map<string, object>) if (!sameFlat(u, (b as Map<string, object>).get(k))) changedUsers.add(k)
    for (const k of (b as Map<string, object>).keys()) if (!a.has(k)) changedUsers.add(k)
  }
  const users = userMaps[1]
  const directory = new Set(sides.flatMap((x) => x.users.filter((u) => u.login?.directory).map((u) => u.username.toLowerCase())))

  // Devices: what decides whether and as what an address is answered, and its device groups.
  const chains = sides.map((x) => {
    const parent = new Map(x.device_groups.map((g) => [g.id, g.parent_id]))
    return new Map(
      x.devices.map((d) => {
        const chain: string[] = []
        for (let g = d.device_group_id; g && parent.has(g) && !chain.includes(g); g = parent.get(g) ?? null) chain.push(g)
        return [d.id, chain]
      }),
    )
  })
  const deviceText = sides.map((x, i) => new Map(x.devices.map((d) => [d.id, `${d.address} ${d.enabled} ${d.has_tacacs_key} ${d.has_radius_secret} ${chains[i].get(d.id)!.join(',')}`])))
  const changedDevices = new Set<string>()
  for (const id of new Set([...deviceText[0].keys(), ...deviceText[1].keys()])) if (deviceText[0].get(id) !== deviceText[1].get(id)) changedDevices.add(id)
  const addresses = sides.map((x) => new Map(x.devices.map((d) => [d.id, d.address])))
  const chain = chains[1]

  // Profiles: a TACACS+ profile with its command sets, a RADIUS profile.
  const profileText = sides.map((x) => {
    const sets = new Map(x.command_sets.map((s) => [s.id, s]))
    const out = new Map<string, string>()
    for (const p of x.tacacs_profiles) out.set(p.id, withoutTimes([p, p.command_set_ids.map((id) => sets.get(id) ?? null)]))
    for (const p of x.radius_profiles) out.set(p.id, withoutTimes(p))
    return out
  })
  const profileOf = (r: PolicyRuleView) => (protocol === 'tacacs' ? r.tacacs_profile_id : r.radius_profile_id)
  const profileChanged = (id: string | null) => id !== null && differs(profileText[0], profileText[1], id, (a, b) => a === b)

  // Rules: changed (content, profile, enabled) or moved relative to the unchanged ones.
  const ruleMaps = sides.map((x) => new Map(x.rules.map((r, index) => [r.id, { r, index }])))
  const sameRule = (a: PolicyRuleView, b: PolicyRuleView) => sameFlat(a, b, RULE_PLACE)
  const changed: PolicyRuleView[] = []
  const kept: { id: string; deployed: number; pending: number }[] = []
  for (const id of new Set([...ruleMaps[0].keys(), ...ruleMaps[1].keys()])) {
    const a = ruleMaps[0].get(id)
    const b = ruleMaps[1].get(id)
    const live = [a, b].filter((x) => x?.r.enabled).map((x) => x!.r)
    if (!live.length) continue
    if (!a || !b || !a.r.enabled || !b.r.enabled || !sameRule(a.r, b.r) || profileChanged(profileOf(b.r))) changed.push(...live)
    else kept.push({ id, deployed: a.index, pending: b.index })
  }
  kept.sort((x, y) => x.deployed - y.deployed)
  const stay = longestIncreasing(kept.map((k) => k.pending))
  kept.forEach((k, i) => {
    if (!stay.has(i)) changed.push(ruleMaps[0].get(k.id)!.r, ruleMaps[1].get(k.id)!.r)
  })

  // The changed rules by WHO.
  const anyone: Where[] = []
  const byUser = new Map<string, Where[]>()
  const byGroup = new Map<string, Where[]>()
  const push = (m: Map<string, Where[]>, k: string, w: Where) => (m.get(k) ?? m.set(k, []).get(k)!).push(w)
  for (const r of changed) {
    const who: Who = r.who
    if (who.type === 'any') anyone.push(r.where)
    else if (who.type === 'user') push(byUser, who.user_id, r.where)
    else push(byGroup, who.group_id, r.where)
  }
  const groupRules = [...byGroup.values()].flat()
  const whereMatches = (w: Where, ids: readonly string[]) =>
    w.type === 'any' || ids.some((id) => (w.type === 'device' ? w.device_id === id : (chain.get(id) ?? []).includes(w.device_group_id)))

  function reaches(username: string, address: string | null, deviceId?: string): boolean {
    const name = username.toLowerCase()
    if (changedUsers.has(name)) return true
    let ids: string[]
    if (deviceId !== undefined) {
      if (changedDevices.has(deviceId)) return true
      ids = addresses[1].has(deviceId) ? [deviceId] : []
    } else {
      if (address === null) return false
      const [a, b] = [deployed!.evaluator.devicesAt(address), pending.evaluator.devicesAt(address)]
      if (a[0] !== b[0] || a[1] !== b[1]) return true
      ids = b.filter((x): x is string => x !== null)
      if (ids.some((id) => changedDevices.has(id))) return true
    }
    // No device, or a user the daemons refuse or do not know: refused before any rule, alike.
    const user = users.get(name)
    if (!ids.length || !user) return false
    const wheres = [...anyone, ...(byUser.get(user.id) ?? []), ...user.group_ids.flatMap((g) => byGroup.get(g) ?? []), ...(directory.has(name) ? groupRules : [])]
    return wheres.some((w) => whereMatches(w, ids))
  }

  return { all: false, reaches, scan: scanOf() }

  function scanOf(): EditReach['scan'] {
    const names = new Set(changedUsers)
    const prefixes = new Set<string>()
    const deviceAddresses = (id: string) => [addresses[0].get(id), addresses[1].get(id)].filter((x): x is string => x !== undefined)
    for (const id of changedDevices) for (const a of deviceAddresses(id)) prefixes.add(a)
    for (const w of anyone) {
      if (w.type === 'any') return null
      for (const [id] of addresses[1]) if (whereMatches(w, [id])) for (const a of deviceAddresses(id)) prefixes.add(a)
    }
    const userIds = new Set(byUser.keys())
    for (const x of sides) for (const u of x.users) if (userIds.has(u.id) || u.group_ids.some((g) => byGroup.has(g))) names.add(u.username.toLowerCase())
    if (groupRules.length) for (const d of directory) names.add(d)
    // IPv4-mapped IPv6 NAS addresses are answered as the IPv4 ones.
    for (const p of [...prefixes]) if (/^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(p)) prefixes.add(mapped(p))
    if (prefixes.size > MAX_SCAN_PREFIXES) return null
    return { usernames: [...names].sort(), prefixes: [...prefixes].sort() }
  }
}

/** Equal objects of scalars, arrays of scalars and such objects (a user, its login material, a refusal). */
function sameFlat(a: unknown, b: unknown, ignore?: ReadonlySet<string>): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameFlat(x, b[i]))
  if (Array.isArray(b)) return false
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  for (const k in x) if (!ignore?.has(k) && !sameFlat(x[k], y[k])) return false
  for (const k in y) if (!(k in x) && !ignore?.has(k) && y[k] !== undefined) return false
  return true
}
/** A rule's place is its index among the others (moves are found apart); its row's times are no part of it. */
const RULE_PLACE = new Set(['position', 'created_at', 'updated_at'])

function mapped(p: string): string {
  const [ip, len] = p.split('/')
  return `::ffff:${ip}/${len === undefined ? 128 : 96 + Number(len)}`
}

/** The positions of one longest strictly increasing subsequence (patience sorting, O(n log n)). */
export function longestIncreasing(xs: readonly number[]): Set<number> {
  const tails: number[] = []
  const prev = new Array<number>(xs.length).fill(-1)
  for (let i = 0; i < xs.length; i++) {
    let lo = 0
    let hi = tails.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (xs[tails[mid]] < xs[i]) lo = mid + 1
      else hi = mid
    }
    if (lo > 0) prev[i] = tails[lo - 1]
    tails[lo] = i
  }
  const out = new Set<number>()
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) out.add(i)
  return out
}
