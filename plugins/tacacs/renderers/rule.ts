/**
 * One AAA policy rule as a tac_plus-ng ruleset `rule`. WHO becomes
 * `user == "NAME"` or `member == "GROUP"`; WHERE becomes `device == "NAME"`,
 * or `device == "group:NAME"` for a device group. tac_plus-ng compares
 * `device ==` with the matched device and each of its parents in turn
 * (config.c: `for (h = session->host; h; h = h->parent)`), so the full
 * configuration declares each device group as a device block that its
 * devices and sub-groups nest in (or name with `parent =`), and the condition
 * holds for every device of the group, sub-groups included.
 *
 * A rule with a TACACS+ profile assigns it and permits; one without denies.
 * The default rule, and a rule matching anyone anywhere, has no condition.
 * `member ==` and `device ==` are resolved when the file is read: the
 * configuration must declare every group and device a rule names.
 *
 * Conditions: client prefixes become `device.address == PREFIX` (the NAS's
 * address, ORed), a time window `time == NAME` of a `timespec` declared
 * before the ruleset (`renderTimespec`). A condition that does not hold
 * leaves the script without a verdict, so the next rule is tried.
 *
 * Each rule starts with a comment saying, in the operator's words, what it
 * is: a reviewer reads the policy in the file without knowing its syntax.
 */
import type { PolicyRuleView } from '../api.js'
import { deviceGroupIdent, deviceIdent, profileIdent, ruleIdent, userGroupIdent, userIdent } from './names.js'
import { tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

const I = '    '

/**
 * The tests of a rule: `all` must hold (ANDed), and one of `anyOf` when it is not empty (the client
 * prefixes, ORed). Each is one comparison.
 */
function ruleTests(rule: PolicyRuleView): { all: string[]; anyOf: string[] } {
  if (rule.is_default) return { all: [], anyOf: [] }
  const all: string[] = []
  if (rule.who.type === 'user') all.push(`user == ${userIdent(rule.who.username)}`)
  if (rule.who.type === 'group') all.push(`member == ${userGroupIdent(rule.who.group_name)}`)
  if (rule.where.type === 'device') all.push(`device == ${deviceIdent(rule.where.device_name)}`)
  if (rule.where.type === 'device_group') all.push(`device == ${deviceGroupIdent(rule.where.device_group_name)}`)
  // Declared by `renderTimespec` before the ruleset, under the rule's name.
  if (rule.time_window) all.push(`time == ${ruleIdent(rule.name)}`)
  // The NAS's address as the daemon sees the connection (session->ctx->device_addr); `client` would
  // be the rem_addr the NAS reports for its user, which is not what the API means.
  const prefixes = rule.client_prefixes ?? []
  for (const p of prefixes) if (!CIDR.test(p)) throw new TacPlusNgRenderError(`rule ${rule.name}: NAS address prefix ${JSON.stringify(p)} is not a CIDR prefix`)
  return { all, anyOf: prefixes.map((p) => `device.address == ${tacString(p)}`) }
}

/** The condition of a rule in one expression, for a person and the tests; null when it matches every request. */
export function ruleCondition(rule: PolicyRuleView): string | null {
  const { all, anyOf } = ruleTests(rule)
  const parts = [...all.filter((t) => !t.startsWith('time ')), ...(anyOf.length === 1 ? anyOf : anyOf.length > 1 ? [`(${anyOf.join(' || ')})`] : []), ...all.filter((t) => t.startsWith('time '))]
  return parts.length ? parts.join(' && ') : null
}

/** A canonical IPv4 or IPv6 prefix, as the policy stores them. */
const CIDR = /^[0-9a-f.:]+\/[0-9]{1,3}$/

const range = (a: number, b: number) => (a === b ? String(a) : `${a}-${b}`)

/**
 * One span of a window (minutes of the day, `to` exclusive, on weekdays 0-6) as cron entries of
 * tac_plus-ng's timespec (mavis_parse.c parse_cron: `minute hour day-of-month month day-of-week`,
 * checked against localtime(3) each minute): the partial first hour, the whole hours, the partial last hour.
 */
export function cronEntries(span: { days: readonly number[]; from: number; to: number }): string[] {
  const days = span.days.join(',')
  const out: string[] = []
  let a = span.from
  const b = span.to
  if (a % 60 !== 0) {
    const end = Math.min(b, (Math.floor(a / 60) + 1) * 60)
    out.push(`${range(a % 60, (end - 1) % 60)} ${Math.floor(a / 60)} * * ${days}`)
    a = end
  }
  const wholeEnd = Math.floor(b / 60) * 60
  if (wholeEnd > a) {
    out.push(`* ${range(a / 60, wholeEnd / 60 - 1)} * * ${days}`)
    a = wholeEnd
  }
  if (a < b) out.push(`${range(0, (b % 60) - 1)} ${a / 60} * * ${days}`)
  return out
}

/**
 * The `timespec` a rule with a time window names (`time == NAME`), or null without one. It goes at
 * the top level, before the ruleset (tac_plus-ng resolves the name when it reads the rule). A rule
 * outside its window: the condition is false, the script reaches no verdict, and the next rule is tried.
 */
export function renderTimespec(rule: PolicyRuleView): string | null {
  const w = rule.time_window
  if (!w) return null
  const entries = w.spans.flatMap(cronEntries)
  return [tacComment(`Rule ${JSON.stringify(rule.name)}: ${w.label} (local time)`), `timespec ${ruleIdent(rule.name)} {`, ...entries.map((e) => `${I}${tacString(e)}`), '}'].join('\n') + '\n'
}

/** One line for a person: the rule's name, who, where, and what it gives. */
export function describeRule(rule: PolicyRuleView, profileName: string | null): string {
  const q = (s: string) => `"${s}"`
  const who = rule.is_default || rule.who.type === 'any' ? 'anyone' : rule.who.type === 'user' ? `user ${q(rule.who.username)}` : `members of user group ${q(rule.who.group_name)}`
  const where =
    rule.is_default || rule.where.type === 'any' ? 'any device' : rule.where.type === 'device' ? `device ${q(rule.where.device_name)}` : `the devices of device group ${q(rule.where.device_group_name)}`
  const gives = profileName === null ? 'denied (no TACACS+ profile)' : `TACACS+ profile ${q(profileName)}`
  const from = rule.client_prefixes?.length ? ` from ${rule.client_prefixes.join(', ')}` : ''
  const when = rule.time_window ? ` during ${rule.time_window.label}` : ''
  return `${rule.is_default ? 'Default rule' : 'Rule'} ${q(rule.name)}: ${who} on ${where}${from}${when}: ${gives}${rule.enabled ? '' : ' (disabled)'}`
}

/** `withoutPlace`: inside a location realm (dispatch.ts), where the rule's place holds for every device. */
/**
 * The rule as tac_plus-ng reads it. The tests are nested `if`s of one comparison each, without
 * parentheses; the client prefixes are sibling `if`s, each with the verdict. A parenthesised
 * condition makes the daemon's parser take a 40 KiB buffer it never gives back (mavis_parse.c
 * sym_normalize_cond_start): about 48 KiB of resident memory per rule, 240 MiB for 5,000 rules.
 * Nested tests decide the same: the first failing one leaves the script without a verdict.
 */
export function renderRuleText(rule: PolicyRuleView, profileName: string | null, o: { withoutPlace?: boolean } = {}): string {
  const verdict = profileName === null ? ['deny'] : [`profile = ${profileIdent(profileName)}`, 'permit']
  const { all, anyOf } = ruleTests(o.withoutPlace ? { ...rule, where: { type: 'any' } } : rule)
  const out = [tacComment(describeRule(rule, profileName)), `rule ${ruleIdent(rule.name)} {`, `${I}enabled = ${rule.enabled ? 'yes' : 'no'}`, `${I}script {`]
  const depth = 2 + all.length
  all.forEach((t, i) => out.push(`${I.repeat(2 + i)}if ${t} {`))
  if (!anyOf.length) out.push(...verdict.map((v) => I.repeat(depth) + v))
  for (const t of anyOf) out.push(`${I.repeat(depth)}if ${t} {`, ...verdict.map((v) => I.repeat(depth + 1) + v), `${I.repeat(depth)}}`)
  for (let i = all.length - 1; i >= 0; i--) out.push(`${I.repeat(2 + i)}}`)
  out.push(`${I}}`, '}')
  return out.join('\n') + '\n'
}
