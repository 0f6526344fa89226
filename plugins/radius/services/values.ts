/**
 * Value rules for reply attributes, and how a value is written into a
 * FreeRADIUS `users` file or unlang. The rules make every accepted value safe
 * to render as one double-quoted string with one escape (`\` and `"`):
 *
 * - control characters (C0, DEL, C1), line and paragraph separators, direction
 *   characters (bidi overrides, embeddings, isolates, marks) and lone surrogates
 *   are refused, as in names (sdk NAME_REFUSED_CHAR): a line break would end the
 *   `users` entry, a direction override makes a value read as another, and
 *   devices mishandle them anyway;
 * - `%` is refused: FreeRADIUS expands it, in unlang always and in a `users`
 *   file when the value's first `%` starts `%{`. A value such as
 *   `%{control:Cleartext-Password}` would otherwise send the user's password
 *   to the device. Nothing a device-administration attribute needs uses `%`;
 * - `${` and `$ENV{` are refused: in unlang, which lives in the daemon's
 *   configuration files, FreeRADIUS replaces them while it reads the file
 *   (`$ENV{HOME}`, `${confdir}`), and neither `$$` nor `\$` escapes them.
 *   A lone `$` (a regular expression's end) is fine;
 * - `"` and `\` are accepted (NX-OS needs `shell:roles="network-admin"`) and
 *   escaped by `quoteValue` as `\"` and `\\`, which both the `users` parser
 *   and unlang read back.
 *
 * Checked with FreeRADIUS 3.2.1 and radclient (test/freeradius.test.ts).
 */
import { isIPv4, isIPv6 } from 'node:net'
import { NAME_REFUSED_CHAR } from '../../../sdk/index.js'
import type { RadiusAttribute } from '../api.js'
import { DICTIONARY, MAX_VALUE_OCTETS, suggestName, type DictionaryEntry } from './dictionary.js'
import { PROFILE_REPLY_BUDGET, replyOctets } from './reply-size.js'

/** Why a value was refused: a message key under `radius:errors.value.` and its variables. */
export interface ValueProblem {
  reason: 'control' | 'percent' | 'variable' | 'too_long' | 'integer' | 'enum' | 'ipaddr' | 'ipv6addr' | 'hex' | 'avpair' | 'tag'
  vars: Record<string, unknown>
}

/** Why a list was refused, and which item and field. */
export type AttributeProblem =
  | { kind: 'unknown'; index: number; name: string; suggestion: string | null }
  | { kind: 'repeated'; index: number; name: string }
  | { kind: 'value'; index: number; name: string; problem: ValueProblem }
  /** The whole reply does not fit in a RADIUS packet (services/reply-size.ts): `over` bytes too many from item `index` on. */
  | { kind: 'too_large'; index: number; size: number; max: number; over: number }

/** A lone surrogate: no character at all. The rest of the refused characters are the names' (NAME_REFUSED_CHAR). */
const LONE_SURROGATE = /\p{Cs}/u
/**
 * What would break the rendered file itself: checked again when a value is quoted. A direction
 * character stored before the rule above existed reads oddly but breaks nothing, so it still renders.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const BREAKS_CONFIG = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u
/** What the configuration parser expands in a double-quoted string: `${name}` and `$ENV{NAME}`. */
const CONFIG_VARIABLE = /\$(ENV)?\{/
const DECIMAL = /^(0|[1-9][0-9]{0,9})$/
const HEX = /^0[xX]([0-9A-Fa-f]{2})+$/
/** `attribute=value` or `attribute*value` (optional), the attribute possibly prefixed by a protocol (`shell:`). */
const AVPAIR = /^[A-Za-z0-9][A-Za-z0-9:#._-]*[=*]/

const octets = (s: string) => Buffer.byteLength(s, 'utf8')

/** Rules shared by every textual value. */
function textProblem(value: string, max: number): ValueProblem | null {
  if (NAME_REFUSED_CHAR.test(value) || LONE_SURROGATE.test(value)) return { reason: 'control', vars: {} }
  if (value.includes('%')) return { reason: 'percent', vars: {} }
  if (CONFIG_VARIABLE.test(value)) return { reason: 'variable', vars: {} }
  const size = octets(value)
  if (size > max) return { reason: 'too_long', vars: { max, size, over: size - max } }
  return null
}

/** The first problem with `value` for attribute `e`, or null when FreeRADIUS will read it as meant. */
export function valueProblem(e: DictionaryEntry, value: string): ValueProblem | null {
  const text = textProblem(value, e.maxLength ?? MAX_VALUE_OCTETS)
  if (text) return text
  // FreeRADIUS reads `:1:100` given to a tagged attribute as tag 1, value 100: the value would not be sent as typed.
  if (e.tagged && value.startsWith(':')) return { reason: 'tag', vars: {} }
  switch (e.type) {
    case 'integer': {
      const n = DECIMAL.test(value) ? Number(value) : NaN
      return n >= e.min! && n <= e.max! ? null : { reason: 'integer', vars: { min: e.min, max: e.max } }
    }
    case 'enum':
      return e.values!.includes(value) ? null : { reason: 'enum', vars: { values: e.values!.join(', ') } }
    case 'ipaddr':
      return isIPv4(value) ? null : { reason: 'ipaddr', vars: {} }
    case 'ipv6addr':
      return isIPv6(value) ? null : { reason: 'ipv6addr', vars: {} }
    case 'octets':
      // FreeRADIUS reads an octets value starting with 0x (or 0X) as hex, and anything else as the text's bytes.
      // The 253-octet bound applies to the text as written, so hex carries at most 125 bytes: plenty for a Class.
      return /^0[xX]/.test(value) && !HEX.test(value) ? { reason: 'hex', vars: {} } : null
    case 'string':
      return e.format === 'avpair' && !AVPAIR.test(value) ? { reason: 'avpair', vars: {} } : null
  }
}

/** The first problem in an ordered list of attributes, or null. */
export function attributesProblem(list: readonly RadiusAttribute[]): AttributeProblem | null {
  const seen = new Set<string>()
  for (const [index, { name, value }] of list.entries()) {
    const e = DICTIONARY.get(name)
    if (!e) return { kind: 'unknown', index, name, suggestion: suggestName(name) }
    const problem = valueProblem(e, value)
    if (problem) return { kind: 'value', index, name, problem }
    if (seen.has(name) && !e.repeatable) return { kind: 'repeated', index, name }
    seen.add(name)
  }
  // Every item is known and valid by now.
  const { size, firstOver } = replyOctets(list, (n) => DICTIONARY.get(n)!)
  if (firstOver !== null) return { kind: 'too_large', index: firstOver, size, max: PROFILE_REPLY_BUDGET, over: size - PROFILE_REPLY_BUDGET }
  return null
}

/** `value` as a FreeRADIUS double-quoted string. Throws on a value the rules above refuse: the caller skipped validation. */
export function quoteValue(value: string): string {
  if (BREAKS_CONFIG.test(value) || value.includes('%') || CONFIG_VARIABLE.test(value)) {
    throw new Error('radius: refusing to quote a value with a control character, "%", "${" or "$ENV{"')
  }
  return `"${value.replace(/[\\"]/g, (c) => '\\' + c)}"`
}

/**
 * A stored value as FreeRADIUS reads it, in a `users` file and in unlang:
 * always double-quoted. A bare word on the right of an unlang `update` that
 * is also an attribute name is read as that attribute (Service-Type's
 * Framed-Management is one), while a quoted value is parsed by the
 * attribute's type, so integers, enum names and addresses are quoted too.
 */
export function formatValue(attr: RadiusAttribute): string {
  const e = DICTIONARY.get(attr.name)
  if (!e) throw new Error(`radius: attribute ${attr.name} is not in the dictionary`)
  // Check again rather than trust the row: a value written into a daemon's configuration must follow the rules.
  if (valueProblem(e, attr.value)) throw new Error(`radius: stored value of ${attr.name} breaks the value rules`)
  // FreeRADIUS 3.2 does not undo `\\` in a quoted octets value (it does for text): `a\b` would reach the
  // device as `a\\b`. Such a text goes as the hex of its bytes, which is what the device receives.
  if (e.type === 'octets' && !/^0[xX]/.test(attr.value) && attr.value.includes('\\')) return `"0x${Buffer.from(attr.value, 'utf8').toString('hex')}"`
  return quoteValue(attr.value)
}
