/** The AAA policy precomputed into keyed lookups (docs/freeradius.md): first match wins, as the rules are ordered. */
import type { RadiusPolicyRule, RadiusProfile } from '../api.js'
import type { FreeradiusConfigInput } from './input.js'
import { byteOrder, FreeradiusRenderError, HEADER, name, refusal, T, USERNAME } from './syntax.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { PRINCIPALS } from './users.js'

/** The devices written as clients, in name order: enabled, with a secret. */
export function writtenClients(input: FreeradiusConfigInput) {
  return input.devices
    .filter((d) => d.device.enabled && d.radiusSecret !== null && d.radiusSecret !== '')
    .sort((a, b) => byteOrder(a.device.name, b.device.name) || byteOrder(a.device.id, b.device.id))
}

const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const two = (n: number) => String(n).padStart(2, '0')

/** Minutes lo..hi (inclusive, within one hour) as a regex on two digits: `3[0-9]|4[0-5]`. */
function minuteRegex(lo: number, hi: number): string {
  const out: string[] = []
  for (let t = Math.floor(lo / 10); t <= Math.floor(hi / 10); t++) {
    const a = t === Math.floor(lo / 10) ? lo % 10 : 0
    const b = t === Math.floor(hi / 10) ? hi % 10 : 9
    out.push(`${t}${a === b ? a : `[${a}-${b}]`}`)
  }
  return out.join('|')
}

/**
 * A rule's time window as a regex on `%t`, the request's time as ctime(3) writes it in local time
 * ("Mon Nov 23 08:05:00 2026": weekday, month and day of month in 10 characters, then HH:MM):
 * per span, its weekdays and, hour by hour, the minutes it holds. Exact to the minute, as the
 * window is; FreeRADIUS expands `%t` with localtime_r at the packet's arrival, as tac_plus-ng
 * reads localtime(3). Plain groups only, so PCRE and POSIX regex read it alike.
 */
export function timeCondition(spans: readonly { days: readonly number[]; from: number; to: number }[]): string {
  const alternatives = spans.map((s) => {
    const hours: string[] = []
    for (let h = Math.floor(s.from / 60); h * 60 < s.to; h++) {
      const lo = Math.max(s.from, h * 60) - h * 60
      const hi = Math.min(s.to, (h + 1) * 60) - 1 - h * 60
      hours.push(lo === 0 && hi === 59 ? `${two(h)}:[0-9][0-9]` : `${two(h)}:(${minuteRegex(lo, hi)})`)
    }
    return `(${s.days.map((d) => WEEKDAY[d]).join('|')}) .{6} (${hours.join('|')}):`
  })
  return `"%t" =~ /^(${alternatives.join('|')})/`
}

/** The request's source address (the NAS) inside one of the prefixes: `<=` holds for the prefix itself too (a /32). */
export function clientCondition(prefixes: readonly string[]): string {
  const tests = prefixes.map((p) => {
    if (!/^[0-9a-f.:]+\/[0-9]{1,3}$/.test(p)) throw new FreeradiusRenderError(`a NAS address prefix ${JSON.stringify(p)} is not a CIDR prefix`)
    // Present only for its own address family: an absent attribute compared is an error in FreeRADIUS 3.2 (a false reason in the log).
    const a = p.includes(':') ? '&Packet-Src-IPv6-Address' : '&Packet-Src-IP-Address'
    return `(${a} && ${a} <= ${p})`
  })
  return tests.length === 1 ? tests[0] : `(${tests.join(' || ')})`
}

/** A rule as the tree knows it: its principal and location keys, and what unlang must still test. */
export interface CompiledRule {
  rule: RadiusPolicyRule
  /** 1-based, in policy order: the lower wins. */
  index: number
  /** Why the rule can match nobody (written as a comment), or null. */
  skipped: string | null
  /** The principal key: "u<n>" (a user), "g<n>" (a user group) or "*" (anyone). */
  who: string
  /** The location targets: "d<n>" (a device), "dg<n>" (a device group) or "*" (anywhere). */
  where: string
  /** The rule's own conditions (client prefixes, time window) in unlang, tested at request time; null: none. */
  condition: string | null
  profile: Pick<RadiusProfile, 'id' | 'name' | 'attributes' | 'allow_mschapv1'> | null
}

export interface CompiledPolicy {
  rules: CompiledRule[]
  /** Per username: the principal keys of the rules that name them (a user, their groups). */
  principals: Map<string, string[]>
  /** Per client (device name): its location class, "L<n>" (clients with the same set of location targets share one). */
  classes: Map<string, string>
  /** Per "principal:location class" (or "principal:*"): the candidate rules in order, up to the first without conditions. */
  candidates: Map<string, CompiledRule[]>
}

/**
 * The policy precomputed at render time, so that a request touches only the rules that can apply to it:
 * the user's principals (users named by the same targets share the keys), the client's location class,
 * and per pair of both the rules that match, in policy order. A rule after one without conditions for
 * the same pair can never decide and is left out.
 */
export function compileRules(input: FreeradiusConfigInput): CompiledPolicy {
  const groupParent = new Map(input.deviceGroups.map((g) => [g.id, g.parent_id]))
  const ancestry = (groupId: string | null): string[] => {
    const seen = new Set<string>()
    for (let g = groupId; g && groupParent.has(g) && !seen.has(g); g = groupParent.get(g) ?? null) seen.add(g)
    return [...seen]
  }
  const clients = writtenClients(input).map(({ device }) => ({ device, groups: ancestry(device.device_group_id) }))
  const hasClient = new Set<string>()
  for (const c of clients) for (const k of [`device:${c.device.id}`, ...c.groups.map((g) => `group:${g}`)]) hasClient.add(k)
  const hasUser = new Set<string>()
  for (const u of input.users) for (const g of u.group_ids) hasUser.add(g)
  // A user group mapped to a directory group may hold any directory user (the directory says at each login).
  if (input.directory && input.users.some((u) => u.source === 'directory')) for (const g of input.directory.groups) hasUser.add(g.id)
  const profiles = new Map(input.profiles.map((p) => [p.id, p]))
  const keyOf = new Map<string, string>()
  const id = (prefix: string, v: string) => `${prefix}\u0000${v}`
  const key = (prefix: string, v: string) => keyOf.get(id(prefix, v)) ?? keyOf.set(id(prefix, v), `${prefix}${keyOf.size + 1}`).get(id(prefix, v))!
  const names = new Set<string>()
  const rules: CompiledRule[] = []
  for (const rule of input.rules ?? []) {
    name(rule.name, 'rule')
    if (names.has(rule.name.toLowerCase())) throw new FreeradiusRenderError(`two rules are named ${rule.name}`)
    names.add(rule.name.toLowerCase())
    const profile = rule.radius_profile_id ? (profiles.get(rule.radius_profile_id) ?? null) : null
    const extra = [
      ...(rule.client_prefixes?.length ? [clientCondition(rule.client_prefixes)] : []),
      ...(rule.time_window ? [timeCondition(rule.time_window.spans)] : []),
    ]
    const w = rule.who
    const d = rule.where
    let skipped: string | null = null
    if (!rule.enabled) skipped = 'disabled'
    else if (w.type === 'group' && !hasUser.has(w.group_id)) skipped = 'no network user in its user group'
    else if ((d.type === 'device' && !hasClient.has(`device:${d.device_id}`)) || (d.type === 'device_group' && !hasClient.has(`group:${d.device_group_id}`))) {
      skipped = 'no RADIUS client (enabled device with a secret) in its place'
    }
    const who = skipped ? '' : w.type === 'user' ? key('u', name(w.username, 'username', USERNAME)) : w.type === 'group' ? key('g', w.group_id) : '*'
    const where = skipped ? '' : d.type === 'device' ? key('d', d.device_id) : d.type === 'device_group' ? key('dg', d.device_group_id) : '*'
    rules.push({ rule, index: rules.length + 1, skipped, who, where, condition: extra.length ? extra.join(' && ') : null, profile })
  }
  const live = rules.filter((r) => !r.skipped)
  // The principals of each user: their own key and their groups' keys, where a rule names them.
  const principals = new Map<string, string[]>()
  for (const u of input.users) {
    const own = keyOf.get(id('u', u.username))
    const keys = [...(own ? [own] : []), ...u.group_ids.map((g) => keyOf.get(id('g', g))).filter((k): k is string => k !== undefined)]
    if (keys.length) principals.set(u.username, [...new Set(keys)].sort(byteOrder))
  }
  // The location class of each client: the set of location targets it falls in.
  const classOf = new Map<string, string>([['', 'L0']])
  const classes = new Map<string, string>()
  const targetsOfClass = new Map<string, string[]>()
  for (const c of clients) {
    const targets = [keyOf.get(id('d', c.device.id)), ...c.groups.map((g) => keyOf.get(id('dg', g)))].filter((k): k is string => k !== undefined).sort(byteOrder)
    const set = targets.join(' ')
    if (!classOf.has(set)) {
      classOf.set(set, `L${classOf.size}`)
      targetsOfClass.set(classOf.get(set)!, targets)
    }
    classes.set(c.device.name, classOf.get(set)!)
  }
  const classesWith = new Map<string, string[]>()
  for (const [cls, targets] of targetsOfClass) for (const t of targets) (classesWith.get(t) ?? classesWith.set(t, []).get(t)!).push(cls)
  const candidates = new Map<string, CompiledRule[]>()
  const closed = new Set<string>()
  for (const r of live) {
    for (const loc of r.where === '*' ? ['*'] : (classesWith.get(r.where) ?? [])) {
      const k = `${r.who}:${loc}`
      if (closed.has(k)) continue
      ;(candidates.get(k) ?? candidates.set(k, []).get(k)!).push(r)
      if (r.condition === null) closed.add(k)
    }
  }
  return { rules, principals, classes, candidates }
}

/** Control attributes of the policy: the candidates (without and with conditions), the winner, the lookup key, the rule's refusal. */
export const POLICY_ATTRIBUTES = { plain: 'Tmp-Integer-5', conditional: 'Tmp-Integer-4', best: 'Tmp-Integer-6', key: 'Tmp-String-5', none: 'Tmp-String-6' } as const
const A = POLICY_ATTRIBUTES

export function policy(input: FreeradiusConfigInput, c: CompiledPolicy): string {
  const out = [HEADER, '# The AAA policy, rules in evaluation order: the first that matches decides.', '# Control Tmp-String-0 = the rule, Tmp-String-1 = its RADIUS profile (the label).']
  if (input.rules === null) {
    out.push('# No AAA policy is loaded: no rule permits anyone.', ...refusal('no_policy', 'no AAA policy is loaded', ''), 'reject', '')
    return out.join('\n')
  }
  for (const r of c.rules) {
    if (r.skipped) out.push(`# rule ${r.index} ${r.rule.name}: skipped (${r.skipped})`)
    else out.push(`# rule ${r.index} ${r.rule.name}${r.rule.is_default ? ' (default)' : ''}: ${r.who} at ${r.where}${r.condition ? ', with conditions' : ''}`)
  }
  const lookup = (k: string) => [`${T}update control {`, `${T}${T}&${A.key} := "${k}"`, `${T}}`, `${T}portcullis_rules`]
  out.push(
    '# The candidates: per principal of the user (and anyone), the rules at the client\'s location class and anywhere (portcullis/rules).',
    'update control {',
    `${T}&${PRINCIPALS} += "*"`,
    '}',
    `foreach &control:${PRINCIPALS} {`,
    ...lookup('%{Foreach-Variable-0}:%{client:portcullis_class}'),
    ...lookup('%{Foreach-Variable-0}:*'),
    '}',
    '# The first in policy order wins.',
    `foreach &control:${A.plain} {`,
    `${T}if (!&control:${A.best} || &control:${A.best} > "%{Foreach-Variable-0}") {`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${A.best} := "%{Foreach-Variable-0}"`,
    `${T}${T}}`,
    `${T}}`,
    '}',
  )
  const conditional = c.rules.filter((r) => !r.skipped && r.condition !== null)
  if (conditional.length) {
    out.push(
      '# A rule with conditions (client prefixes, time window) before it decides only if they hold.',
      `foreach &control:${A.conditional} {`,
      `${T}if (!&control:${A.best} || &control:${A.best} > "%{Foreach-Variable-0}") {`,
      `${T}${T}switch "%{Foreach-Variable-0}" {`,
    )
    for (const r of conditional) {
      out.push(`${T}${T}${T}case "${r.index}" {`, `${T}${T}${T}${T}if (${r.condition}) {`, `${T}${T}${T}${T}${T}update control {`, `${T}${T}${T}${T}${T}${T}&${A.best} := ${r.index}`)
      out.push(`${T}${T}${T}${T}${T}}`, `${T}${T}${T}${T}}`, `${T}${T}${T}}`)
    }
    out.push(`${T}${T}${T}case {`, `${T}${T}${T}${T}noop`, `${T}${T}${T}}`, `${T}${T}}`, `${T}}`, '}')
  }
  const message = (code: 'no_rule' | 'no_radius_profile', msg: string) => [
    `${T}update request {`,
    `${T}${T}&Module-Failure-Message := "AAA policy rule %{control:${CONTROL_ATTRIBUTES.ruleName}} ${msg}"`,
    `${T}}`,
    `${T}update control {`,
    `${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "${code}"`,
    `${T}}`,
    `${T}reject`,
  ]
  out.push(
    `if (!&control:${A.best}) {`,
    ...refusal('no_rule', 'no AAA policy rule matches', T),
    `${T}reject`,
    '}',
    '# The winner: its name and profile label, or why it lets nobody in.',
    'update control {',
    `${T}&${A.key} := "r%{control:${A.best}}"`,
    '}',
    'portcullis_rules',
    '# The default rule matches whoever no other rule did: without a RADIUS profile, no rule let them in.',
    '# Tested for presence first: FreeRADIUS 3.2 compares an absent attribute as an error, whose message would stand in the log row as the reason.',
    `if (&control:${A.none}) {`,
    `${T}if (&control:${A.none} == "none") {`,
    ...message('no_radius_profile', 'grants no RADIUS profile').map((l) => T + l),
    `${T}}`,
    `${T}elsif (&control:${A.none} == "gone") {`,
    ...message('no_radius_profile', 'its RADIUS profile is gone').map((l) => T + l),
    `${T}}`,
    `${T}elsif (&control:${A.none} == "default-none") {`,
    ...message('no_rule', 'grants no RADIUS profile').map((l) => T + l),
    `${T}}`,
    `${T}elsif (&control:${A.none} == "default-gone") {`,
    ...message('no_rule', 'its RADIUS profile is gone').map((l) => T + l),
    `${T}}`,
    '}',
    '',
  )
  return out.join('\n')
}
