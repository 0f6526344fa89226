/**
 * How platform names are written into the tac_plus-ng configuration: as the
 * operator wrote them, inside double quotes. Every renderer of the plugin
 * (profiles, rules, the full configuration) names objects through these
 * functions, so a rule's `member == "…"` finds the group the configuration
 * declares.
 *
 * tac_plus-ng takes a quoted name verbatim (checked with `-P` and real
 * logins): a user `_bob`, `.x`, `-y` or `@z` logs in under exactly that name,
 * which is the name the NAS sends and the name the policy test answers for.
 * A user group may hold any character a name may (spaces, `"`, `\`, `#`, `,`,
 * letters of any script): `tacString` escapes `"` and `\`, and the rest is
 * plain text inside quotes.
 *
 * One sequence cannot be written: the reader replaces `${NAME}` inside any
 * quoted string by the daemon's environment variable NAME when that is set,
 * after the escapes, so no escape of `$` or `{` prevents it. Only user group
 * names can hold `${` (user, device, rule and profile names are limited to
 * `A-Z a-z 0-9 . _ @ -`); such a name is written with the byte 0x01 (`\001`)
 * between `$` and `{`. No name the API accepts holds a control character, so
 * the written name is still unique, and the rule comment (rule.ts) shows the
 * name as typed.
 *
 * Devices and device groups are both `device` blocks in tac_plus-ng, one
 * namespace: a device group's block is named `group:` + its name, which no
 * device name can produce (`:` is not allowed in a device name).
 */
import { tacString } from './syntax.js'

/** `"name"`: the name as written, quoted (so never read as a keyword such as `permit`), `${` defused. */
export function tacName(name: string, what = 'a name'): string {
  return tacString(name.replaceAll('${', '$\u0001{'), what)
}

export const profileIdent = (name: string) => tacName(name, 'a profile name')
export const ruleIdent = (name: string) => tacName(name, 'a rule name')
export const userIdent = (username: string) => tacName(username, 'a user name')
export const userGroupIdent = (name: string) => tacName(name, 'a user group name')
export const deviceIdent = (name: string) => tacName(name, 'a device name')
export const deviceGroupIdent = (name: string) => tacName(`group:${name}`, 'a device group name')
