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
 * Each rule starts with a comment saying, in the operator's words, what it
 * is: a reviewer reads the policy in the file without knowing its syntax.
 */
import type { PolicyRuleView } from '../api.js'
import { deviceGroupIdent, deviceIdent, profileIdent, ruleIdent, userGroupIdent, userIdent } from './names.js'
import { tacComment } from './syntax.js'

const I = '    '

/** The condition of a rule, or null when it matches every request. */
export function ruleCondition(rule: PolicyRuleView): string | null {
  if (rule.is_default) return null
  const parts: string[] = []
  if (rule.who.type === 'user') parts.push(`user == ${userIdent(rule.who.username)}`)
  if (rule.who.type === 'group') parts.push(`member == ${userGroupIdent(rule.who.group_name)}`)
  if (rule.where.type === 'device') parts.push(`device == ${deviceIdent(rule.where.device_name)}`)
  if (rule.where.type === 'device_group') parts.push(`device == ${deviceGroupIdent(rule.where.device_group_name)}`)
  return parts.length ? parts.join(' && ') : null
}

/** One line for a person: the rule's name, who, where, and what it gives. */
export function describeRule(rule: PolicyRuleView, profileName: string | null): string {
  const q = (s: string) => `"${s}"`
  const who = rule.is_default || rule.who.type === 'any' ? 'anyone' : rule.who.type === 'user' ? `user ${q(rule.who.username)}` : `members of user group ${q(rule.who.group_name)}`
  const where =
    rule.is_default || rule.where.type === 'any' ? 'any device' : rule.where.type === 'device' ? `device ${q(rule.where.device_name)}` : `the devices of device group ${q(rule.where.device_group_name)}`
  const gives = profileName === null ? 'denied (no TACACS+ profile)' : `TACACS+ profile ${q(profileName)}`
  return `${rule.is_default ? 'Default rule' : 'Rule'} ${q(rule.name)}: ${who} on ${where}: ${gives}${rule.enabled ? '' : ' (disabled)'}`
}

export function renderRuleText(rule: PolicyRuleView, profileName: string | null): string {
  const verdict = profileName === null ? ['deny'] : [`profile = ${profileIdent(profileName)}`, 'permit']
  const cond = ruleCondition(rule)
  const out = [tacComment(describeRule(rule, profileName)), `rule ${ruleIdent(rule.name)} {`, `${I}enabled = ${rule.enabled ? 'yes' : 'no'}`, `${I}script {`]
  if (cond === null) out.push(...verdict.map((v) => I.repeat(2) + v))
  else out.push(`${I.repeat(2)}if (${cond}) {`, ...verdict.map((v) => I.repeat(3) + v), `${I.repeat(2)}}`)
  out.push(`${I}}`, '}')
  return out.join('\n') + '\n'
}
