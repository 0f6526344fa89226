/**
 * How platform names become tac_plus-ng object names. Every renderer of the
 * plugin (profiles, rules, the full configuration) names objects through
 * these functions, so a rule's `member == "…"` finds the group the
 * configuration declares.
 *
 * A name made of `A-Z a-z 0-9 . _ @ -` (starting with a letter or digit) is
 * used as is: command sets, profiles and usernames are validated to that.
 * Anything else (a user group called `Net Admins`) keeps its safe characters,
 * the rest becoming `_`, and gains `~` and 16 hex digits of its SHA-256: `~`
 * never occurs in a name used as is, so the two kinds cannot collide. The
 * result holds no `"`, `\`, `$` (the reader expands `${VAR}` from the
 * environment inside quotes), white space or `#`, so it is safe quoted.
 *
 * Devices and device groups are both `device` blocks in tac_plus-ng, one
 * namespace: a device group's block is named `group:` + its name, which no
 * device name can produce (`:` is not kept from a name).
 */
import { createHash } from 'node:crypto'

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/

/** A stable identifier safe in any position of the configuration (see the file comment). */
export function tacIdent(name: string): string {
  if (SAFE.test(name)) return name
  const kept = name.replace(/[^A-Za-z0-9._@-]/g, '_').slice(0, 64)
  return `${kept}~${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16)}`
}

/** `"ident"`: quoted, so that no identifier is ever read as a keyword (`permit`, `deny`). */
export const quoted = (name: string): string => `"${tacIdent(name)}"`

export const profileIdent = (name: string) => quoted(name)
export const ruleIdent = (name: string) => quoted(name)
export const userIdent = (username: string) => quoted(username)
export const userGroupIdent = (name: string) => quoted(name)
export const deviceIdent = (name: string) => quoted(name)
export const deviceGroupIdent = (name: string) => `"group:${tacIdent(name)}"`
