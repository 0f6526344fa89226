/**
 * Rules evaluated only where they can apply: a realm per location class.
 *
 * tac_plus-ng walks its ruleset rule by rule for every authentication and
 * authorization (config.c eval_ruleset_r). Each rule costs little, about 20 ns,
 * but at 5,000 rules a shell authorization cost the daemon 0.16 ms against
 * 0.05 ms with one rule (docs/benchmarks.md, issue 13). So the renderer
 * precomputes where each rule can apply, as the FreeRADIUS tree does
 * (docs/freeradius.md, "Scale: hashed lookups"):
 *
 * - A device's location class is the set of rule places it falls in: itself,
 *   if a rule names it, and each enclosing device group that a rule names.
 *   Devices with the same set share a class.
 * - Each class is a realm holding only the class's candidate rules: the enabled
 *   rules for any device or for a place in the class, in policy order, up to
 *   the first rule that matches unconditionally (nothing after it is ever tried).
 * - Each device block names its class with `target-realm`. The daemon finds the
 *   device in the top realm's device tree (by the most specific prefix, as
 *   before) and then switches the session to that realm (main.c). Users,
 *   groups, profiles, time windows, logs and MAVIS are looked up through the
 *   realm's parent, so the top realm keeps them.
 *
 * Inside a class realm, a rule's place holds for every device by construction,
 * so the rule is written without its `device ==` part. It must be: a realm has
 * to be declared before the devices that name it, and a `device ==` condition
 * after them. Everything else in the rule is unchanged: its name (which the logs
 * report), who, client prefixes, time window and verdict. The first match in
 * policy order decides, as before, because a realm lists its candidates in
 * policy order and nothing a request could match is left out.
 *
 * A class repeats every rule for any device. When the realms would hold more
 * than MAX_GROWTH times the rules (many classes and many rules for anywhere),
 * the renderer writes the flat ruleset instead and says so in a comment.
 */
import type { PolicyRuleView } from '../api.js'
import { ruleCondition } from './rule.js'

/** The realms may hold at most this many times the number of rules (plus SLACK) before the flat ruleset is used. */
export const MAX_GROWTH = 8
const SLACK = 1000

export interface LocationRealm {
  name: string
  /** The names of its devices, for the comment a reader sees. */
  devices: string[]
  /** Indexes into the rule list, in policy order. */
  rules: number[]
}

export interface LocationDispatch {
  realms: LocationRealm[]
  /** Device id → the name of its class realm. */
  realmOf: Map<string, string>
}

/** The place a rule names, as a key of the class sets; null for any device. */
function placeKey(rule: PolicyRuleView): string | null {
  if (rule.is_default) return null
  if (rule.where.type === 'device') return `d:${rule.where.device_id}`
  if (rule.where.type === 'device_group') return `g:${rule.where.device_group_id}`
  return null
}

/**
 * The class realms, or null when they would grow past MAX_GROWTH times the rules. `devices`: each
 * device that selects a client (written with an address), with the device groups whose blocks enclose it in
 * the rendered device tree, innermost first.
 */
export function locationDispatch(rules: readonly PolicyRuleView[], devices: readonly { id: string; name: string; groups: readonly string[] }[]): LocationDispatch | null {
  const named = new Set(rules.map(placeKey).filter((k): k is string => k !== null))
  const classOf = new Map<string, LocationRealm>()
  const places = new Map<LocationRealm, Set<string>>()
  const realmOf = new Map<string, string>()
  for (const d of devices) {
    const set = [`d:${d.id}`, ...d.groups.map((g) => `g:${g}`)].filter((k) => named.has(k))
    const key = [...set].sort().join(' ')
    let realm = classOf.get(key)
    if (!realm) {
      realm = { name: `location-${classOf.size + 1}`, devices: [], rules: [] }
      classOf.set(key, realm)
      places.set(realm, new Set(set))
    }
    realm.devices.push(d.name)
    realmOf.set(d.id, realm.name)
  }
  let total = 0
  for (const [realm, set] of places) {
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]
      if (!r.enabled) continue
      const place = placeKey(r)
      if (place !== null && !set.has(place)) continue
      realm.rules.push(i)
      if (ruleCondition({ ...r, where: { type: 'any' } }) === null) break
    }
    total += realm.rules.length
  }
  if (total > MAX_GROWTH * rules.length + SLACK) return null
  return { realms: [...classOf.values()], realmOf }
}
