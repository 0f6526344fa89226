/** The AAA policy as one unlang chain: rules compiled to membership tests, first match wins. */
import type { RadiusPolicyRule, RadiusProfile } from '../api.js'
import { attributesProblem, formatValue, quoteValue } from '../services/values.js'
import type { FreeradiusConfigInput } from './input.js'
import { byteOrder, FreeradiusRenderError, HEADER, name, qname, refusal, T, USERNAME } from './syntax.js'

/** The devices written as clients, in name order: enabled, with a secret. */
export function writtenClients(input: FreeradiusConfigInput) {
  return input.devices
    .filter((d) => d.device.enabled && d.radiusSecret !== null && d.radiusSecret !== '')
    .sort((a, b) => byteOrder(a.device.name, b.device.name) || byteOrder(a.device.id, b.device.id))
}

export interface CompiledRule {
  rule: RadiusPolicyRule
  /**
   * The unlang condition, or null when the rule can match nobody (written as a comment). Several
   * when one would not fit on a line: alternatives with the same body, tried in turn (still first match).
   */
  condition: string[] | null
  why: string
  profile: Pick<RadiusProfile, 'id' | 'name' | 'attributes' | 'allow_mschapv1'> | null
}

/**
 * FreeRADIUS reads a configuration line into 8 KiB (conffile.c: "Line too long", even across `\`
 * continuations). A rule's condition is `(WHO) && (WHERE)` on one line, so each side is cut into
 * disjunctions of at most this many characters; a rule whose lists are longer is written as
 * several `elsif` with the same body (see `policy`).
 */
export const MAX_DISJUNCTION = 3500

/** Disjunctions of `&User-Name == …` or client short name tests, each short enough for a line (`max` characters); null when empty. */
export function anyOf(left: string, values: string[], max = MAX_DISJUNCTION): string[] | null {
  const uniq = [...new Set(values)].sort(byteOrder)
  if (uniq.length === 0) return null
  const chunks: string[][] = [[]]
  let length = 0
  for (const v of uniq) {
    const test = `${left} == ${quoteValue(v)}`
    if (length > 0 && length + test.length + 4 > max) {
      chunks.push([])
      length = 0
    }
    chunks[chunks.length - 1].push(test)
    length += test.length + 4
  }
  return chunks.map((tests) => (tests.length === 1 ? tests[0] : `(${tests.join(' || ')})`))
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
    if (!/^[0-9a-f.:]+\/[0-9]{1,3}$/.test(p)) throw new FreeradiusRenderError(`a client prefix ${JSON.stringify(p)} is not a CIDR prefix`)
    return `${p.includes(':') ? '&Packet-Src-IPv6-Address' : '&Packet-Src-IP-Address'} <= ${p}`
  })
  return tests.length === 1 ? tests[0] : `(${tests.join(' || ')})`
}

export function compileRules(input: FreeradiusConfigInput): CompiledRule[] {
  const groupParent = new Map(input.deviceGroups.map((g) => [g.id, g.parent_id]))
  const ancestry = (groupId: string | null): Set<string> => {
    const seen = new Set<string>()
    for (let g = groupId; g && groupParent.has(g) && !seen.has(g); g = groupParent.get(g) ?? null) seen.add(g)
    return seen
  }
  const clients = writtenClients(input).map(({ device }) => ({ device, groups: ancestry(device.device_group_id) }))
  // Indexes built once: members by user group, client names by device and by group (with every
  // group above the device's own). Filtering every user and client per rule was O(rules × users).
  const push = <V>(m: Map<string, V[]>, k: string, v: V) => (m.get(k) ?? m.set(k, []).get(k)!).push(v)
  const usersIn = new Map<string, string[]>()
  for (const u of input.users) for (const g of u.group_ids) push(usersIn, g, u.username)
  const clientsOf = new Map<string, string[]>()
  const clientsIn = new Map<string, string[]>()
  for (const c of clients) {
    push(clientsOf, c.device.id, c.device.name)
    for (const g of c.groups) push(clientsIn, g, c.device.name)
  }
  const profiles = new Map(input.profiles.map((p) => [p.id, p]))
  const names = new Set<string>()
  const out: CompiledRule[] = []
  for (const rule of input.rules ?? []) {
    name(rule.name, 'rule')
    if (names.has(rule.name.toLowerCase())) throw new FreeradiusRenderError(`two rules are named ${rule.name}`)
    names.add(rule.name.toLowerCase())
    const profile = rule.radius_profile_id ? (profiles.get(rule.radius_profile_id) ?? null) : null
    if (!rule.enabled) {
      out.push({ rule, condition: null, why: 'disabled', profile })
      continue
    }
    let who: string[] | null = ['true']
    let where: string[] | null = ['true']
    // The rule's conditions, ANDed after WHO and WHERE: not holding, the chain goes on to the next rule.
    const extra = [
      ...(rule.client_prefixes?.length ? [clientCondition(rule.client_prefixes)] : []),
      ...(rule.time_window ? [timeCondition(rule.time_window.spans)] : []),
    ].join(' && ')
    // The line holds WHO, WHERE and these: the member lists get what is left of it.
    const max = MAX_DISJUNCTION - Math.ceil(extra.length / 2)
    const w = rule.who
    if (w.type === 'user') who = anyOf('&User-Name', [name(w.username, 'username', USERNAME)], max)
    else if (w.type === 'group') who = anyOf('&User-Name', (usersIn.get(w.group_id) ?? []).map((u) => name(u, 'username', USERNAME)), max)
    const d = rule.where
    const nas = '"%{client:shortname}"'
    if (d.type === 'device') where = anyOf(nas, clientsOf.get(d.device_id) ?? [], max)
    else if (d.type === 'device_group') where = anyOf(nas, clientsIn.get(d.device_group_id) ?? [], max)
    if (who === null) out.push({ rule, condition: null, why: 'no network user in its user group', profile })
    else if (where === null) out.push({ rule, condition: null, why: 'no RADIUS client (enabled device with a secret) in its place', profile })
    else {
      const condition = who.flatMap((w) => where!.map((d) => [w, d, extra].filter((p) => p !== 'true' && p !== '').join(' && ') || 'true'))
      out.push({ rule, condition, why: '', profile })
    }
  }
  return out
}

export function policy(input: FreeradiusConfigInput, rules: CompiledRule[]): string {
  const out = [HEADER, '# The AAA policy, rules in evaluation order: the first that matches decides.', '# Control Tmp-String-0 = the rule, Tmp-String-1 = its RADIUS profile (the label).']
  if (input.rules === null) {
    out.push('# No AAA policy is loaded: no rule permits anyone.', ...refusal('no_policy', 'no AAA policy is loaded', ''), 'reject', '')
    return out.join('\n')
  }
  let first = true
  for (const c of rules) {
    if (c.condition === null) {
      out.push(`# rule ${c.rule.name}: skipped (${c.why})`)
      continue
    }
    out.push(`# rule ${c.rule.name}${c.rule.is_default ? ' (default)' : ''}`)
    for (const [i, condition] of c.condition.entries()) {
      if (i === 1) out.push(`# rule ${c.rule.name}, continued: its member lists are too long for one line`)
      const cond = condition === 'true' ? '(true)' : `(${condition})`
      out.push(`${first ? 'if' : 'elsif'} ${cond} {`)
      first = false
      out.push(`${T}update control {`, `${T}${T}&Tmp-String-0 := ${quoteValue(c.rule.name)}`)
      if (c.profile) out.push(`${T}${T}&Tmp-String-1 := ${qname(c.profile.name, 'RADIUS profile')}`)
      out.push(`${T}}`)
      if (!c.profile) {
        const msg = c.rule.radius_profile_id ? `AAA policy rule ${c.rule.name}: its RADIUS profile is gone` : `AAA policy rule ${c.rule.name} grants no RADIUS profile`
        // The default rule matches whoever no other rule did: without a RADIUS profile, no rule let them in.
        out.push(...refusal(c.rule.is_default ? 'no_rule' : 'no_radius_profile', msg, T), `${T}reject`)
      }
      out.push('}')
    }
  }
  const noMatch = [...refusal('no_rule', 'no AAA policy rule matches', ''), 'reject']
  if (first) out.push(...noMatch)
  else out.push('else {', ...noMatch.map((l) => T + l), '}')
  out.push('')
  return out.join('\n')
}

/**
 * A stored profile the API would refuse now (a rule added since, a row that bypassed it): not written, since
 * FreeRADIUS would cut a value or drop attributes without a word. The deploy fails and says which profile.
 */
function checkProfile(p: NonNullable<CompiledRule['profile']>): void {
  const problem = attributesProblem(p.attributes)
  if (!problem) return
  const why =
    problem.kind === 'too_large'
      ? `its attributes take ${problem.size} bytes, ${problem.over} over the ${problem.max} a RADIUS packet leaves for them`
      : problem.kind === 'value' && problem.problem.reason === 'too_long'
        ? `the value of attributes[${problem.index}] (${problem.name}) is ${String(problem.problem.vars.over)} bytes too long`
        : `attributes[${problem.index}] breaks the attribute rules (${problem.kind === 'value' ? problem.problem.reason : problem.kind})`
  throw new FreeradiusRenderError(`RADIUS profile ${p.name}: ${why}; change the profile through the API`)
}

export function replies(rules: CompiledRule[]): string {
  const out = [HEADER, "# Each permitting rule's RADIUS profile, in the profile's order (`+=`: repeated attributes are all sent).", 'switch &control:Tmp-String-0 {']
  for (const c of rules) {
    if (c.condition === null || !c.profile) continue
    checkProfile(c.profile)
    out.push(`${T}case ${quoteValue(c.rule.name)} {`)
    if (c.profile.attributes.length) {
      out.push(`${T}${T}update reply {`)
      for (const a of c.profile.attributes) out.push(`${T}${T}${T}&${a.name} += ${formatValue(a)}`)
      out.push(`${T}${T}}`)
    } else out.push(`${T}${T}ok`)
    out.push(`${T}}`)
  }
  out.push(`${T}case {`, `${T}${T}noop`, `${T}}`, '}', '')
  return out.join('\n')
}
