/**
 * The edit's reach (services/impact-reach.ts) is sound: over random policies, each edited at random
 * (rules moved, toggled, rewritten, added, removed; profiles, command sets, users, groups, devices,
 * device groups changed), a request it calls out of reach is answered alike by both sides, and a
 * request in reach passes the log scan's SQL filter (user name or NAS prefix). Out-of-reach requests
 * must also be common, or the reach would be sound by saying yes to everything.
 * (A helper, not a test file: impact.test.ts runs it on its own app.)
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { changeOf } from '../../../sdk/index.js'
import { tacacsServiceRef } from '../../tacacs/api.js'
import type { PolicyRuleView } from '../api.js'
import { batchEvaluator, batchShared } from '../services/batch-evaluate.js'
import { prefixContains, sourcePrefix } from '../services/conditions.js'
import type { PolicyInputs } from '../services/deployed-inputs.js'
import { editReach, longestIncreasing } from '../services/impact-reach.js'
import { outcomeOf, sameAnswer } from '../services/impact.js'
import { randomInputs, randomRequest, rng } from './batch-evaluate-check.js'

type R = ReturnType<typeof rng>
type Edit = (x: PolicyInputs, r: R) => string

const renumber = (rules: PolicyInputs['rules']) => rules.map((rule, i) => ({ ...rule, position: i + 1 }))

/** Edits as an administrator makes them; each mutates its own copy and says what it did. */
const EDITS: Edit[] = [
  (x, r) => {
    const i = r.int(x.rules.length)
    const [rule] = x.rules.splice(i, 1)
    x.rules.splice(r.int(x.rules.length + 1), 0, rule)
    x.rules = renumber(x.rules)
    return `rule ${rule.name} moved`
  },
  (x, r) => {
    const rule = r.pick(x.rules)
    x.rules = x.rules.map((y) => (y === rule ? { ...y, enabled: !y.enabled } : y))
    return `rule ${rule.name} toggled`
  },
  (x, r) => {
    const rule = r.pick(x.rules)
    x.rules = renumber(x.rules.filter((y) => y !== rule))
    return `rule ${rule.name} removed`
  },
  (x, r) => {
    const from = r.pick(x.rules)
    const rule = { ...from, id: randomUUID(), name: `new-${from.name}`, who: r.pick(x.rules).who, where: r.pick(x.rules).where, enabled: true }
    x.rules.splice(r.int(x.rules.length), 0, rule)
    x.rules = renumber(x.rules)
    return `rule added like ${from.name}`
  },
  (x, r) => {
    const rule = r.pick(x.rules)
    const other = r.pick(x.rules)
    const field = r.pick(['who', 'where', 'tacacs_profile_id', 'radius_profile_id', 'time_window', 'client_prefixes'] as const)
    x.rules = x.rules.map((y) => (y === rule ? ({ ...y, [field]: other[field] } as PolicyRuleView) : y))
    return `rule ${rule.name} takes ${field} of ${other.name}`
  },
  (x, r) => {
    const p = r.pick(x.tacacs_profiles)
    x.tacacs_profiles = x.tacacs_profiles.map((y) => (y === p ? { ...y, privilege_level: y.privilege_level === 15 ? 1 : 15, default_action: r.pick(['permit', 'deny'] as const) } : y))
    return `TACACS+ profile ${p.name} changed`
  },
  (x, r) => {
    const s = r.pick(x.command_sets)
    x.command_sets = x.command_sets.map((y) => (y === s ? { ...y, commands: y.commands.map((c) => ({ ...c, action: c.action === 'permit' ? ('deny' as const) : ('permit' as const) })) } : y))
    return `command set ${s.name} flipped`
  },
  (x, r) => {
    const p = r.pick(x.radius_profiles)
    x.radius_profiles = x.radius_profiles.map((y) => (y === p ? { ...y, attributes: [...y.attributes, { name: 'Session-Timeout', value: '600' }] } : y))
    return `RADIUS profile ${p.name} changed`
  },
  (x, r) => {
    const u = r.pick(x.users)
    const groups = [...new Set(x.users.flatMap((y) => y.group_ids))]
    x.users = x.users.map((y) => (y === u ? { ...y, group_ids: r.chance(0.5) ? [] : [...new Set([...y.group_ids, ...r.some(groups)])].sort() } : y))
    return `user ${u.username}'s groups changed`
  },
  (x, r) => {
    const u = r.pick(x.users)
    x.users = x.users.filter((y) => y !== u)
    return `user ${u.username} gone`
  },
  (x, r) => {
    if (!x.devices.length) return 'no device to change'
    const d = r.pick(x.devices)
    const change = r.pick([{ enabled: !d.enabled }, { has_tacacs_key: !d.has_tacacs_key }, { has_radius_secret: !d.has_radius_secret }, { address: r.pick(['10.1.2.0/25', '192.0.2.9/32', '10.0.0.0/8', '2001:db8::/48']) }, { device_group_id: r.pick([...x.device_groups.map((g) => g.id), null]) }])
    x.devices = x.devices.map((y) => (y === d ? { ...y, ...change } : y))
    return `device ${d.name}: ${JSON.stringify(change)}`
  },
  (x, r) => {
    const g = r.pick(x.device_groups)
    const others = x.device_groups.filter((y) => y.id !== g.id)
    x.device_groups = x.device_groups.map((y) => (y === g ? { ...y, parent_id: r.chance(0.5) || !others.length ? null : r.pick(others).id } : y))
    return `device group ${g.id} re-parented`
  },
]

/**
 * The log scan's filter, as impact-requests.ts writes it in SQL. An IPv4-mapped NAS address is
 * folded to IPv4 here (sourcePrefix); in SQL the scan's mapped twin of each IPv4 prefix matches it.
 */
function scanAdmits(scan: { usernames: string[]; prefixes: string[] }, username: string, address: string): boolean {
  if (scan.usernames.includes(username.toLowerCase())) return true
  const a = sourcePrefix(address)
  return a !== null && scan.prefixes.some((p) => {
    const q = sourcePrefix(p)
    return q !== null && prefixContains(q, a)
  })
}

export async function reachIsSound(t: TestApp): Promise<void> {
  const { tacacs } = t.app.resolveDeps('tacacs', { tacacs: tacacsServiceRef })
  expect([...longestIncreasing([3, 1, 2, 5, 4])].sort()).to.have.length(3)
  let outside = 0
  let inside = 0
  for (let seed = 1; seed <= 60; seed++) {
    const r = rng(seed * 104729)
    const deployed = randomInputs(r, seed % 3 === 0 ? 'radius' : 'tacacs', 'refused-one')
    const pending: PolicyInputs = structuredClone(deployed)
    const story = Array.from({ length: 1 + r.int(3) }, () => r.pick(EDITS)(pending, r))
    const shared = batchShared()
    const side = (inputs: PolicyInputs) => ({ inputs, evaluator: batchEvaluator(inputs, { tacacs }, new Map(), shared) })
    const a = side(deployed)
    const b = side(pending)
    const reach = editReach(a, b)
    for (let i = 0; i < 150; i++) {
      const req = randomRequest(r, deployed, 'refused-one')
      const kind = req.protocol === 'radius' ? 'radius_authentication' : req.command !== undefined ? 'tacacs_command' : req.method ? 'tacacs_authentication' : 'tacacs_session'
      const before = a.evaluator.evaluate(req)
      const after = b.evaluator.evaluate(req)
      const where = `seed ${seed * 104729} (${story.join('; ')}) request ${i}: ${JSON.stringify(req)}`
      if (!reach.reaches(req.username, req.nas_ip ?? null, req.device_id)) {
        outside++
        expect(sameAnswer(kind, before, after), `out of reach but answered differently: ${where}\nbefore ${JSON.stringify(before)}\nafter ${JSON.stringify(after)}`).to.equal(true)
        expect(changeOf(outcomeOf(kind, before), outcomeOf(kind, after)), where).to.equal(null)
      } else {
        inside++
        if (req.nas_ip && reach.scan) expect(scanAdmits(reach.scan, req.username, req.nas_ip), `in reach but not scanned: ${where}\nscan ${JSON.stringify(reach.scan)}`).to.equal(true)
      }
    }
  }
  // Both are common: the reach proves many requests unaffected, and is not everything.
  expect(outside, 'requests out of reach').to.be.above(1000)
  expect(inside, 'requests in reach').to.be.above(1000)
}
