/**
 * The one definition of what a command entry matches, used both to write the
 * tac_plus-ng profile (`if (cmd =~ /PCRE/) permit|deny`) and to simulate it
 * (`authorizeCommand`, the policy test). Pure: no database, no I/O.
 *
 * What tac_plus-ng matches against: `cmd` is the NAS's `cmd=` value and each
 * `cmd-arg=` appended after one space (author.c, eval_args), so a Cisco NAS
 * yields `show running-config <cr>`. The pattern of one entry is
 *
 *   ^CMD(?: .*)?$                                        no argument rules
 *   ^CMD (?!<cr>$)(?:A1|A2|…)(?<! <cr>)(?: <cr>)?$       argument rules
 *   ^CMD(?: (?!<cr>$)(?:A1|A2|…)(?<! <cr>))?(?: <cr>)?$  … one of which matches no arguments
 *
 * CMD is the command words with metacharacters escaped, so `show` matches
 * `show running-config` but never `showrun`. Ai is an escaped exact value, an
 * escaped prefix followed by `.*`, or `(?:REGEX)` with REGEX in the spelling
 * PCRE2 and JavaScript read alike (`\w` written `[A-Za-z0-9_]` …: see
 * `portablePattern` in sdk/safe-regex-parse.ts). The arguments are what
 * follows the command words, without the trailing ` <cr>`: the look-around
 * keeps a rule from taking a lone `<cr>` for an argument, or the ` <cr>` for
 * the end of one, so the daemon (which sees `<cr>`) and the simulation
 * (which usually does not) decide alike.
 */
import type { ArgumentRule, Command, CommandDecision, CommandSet, TacacsProfile } from '../api.js'
import { portablePattern, REGEX_FLAGS, sayFrom, type Say } from '../../../sdk/index.js'
import en from '../locales/en.js'

/** English from the plugin's catalogue: a command's reason without a caller's language (the deploy check, tests). */
const ENGLISH: Say = sayFrom(en)

export { REGEX_FLAGS }

/** Regex metacharacters of both engines, and `/`, which delimits the pattern in the configuration. */
const META = /[\\^$.|?*+()[\]{}/]/g

/** A literal, for PCRE and JavaScript alike. */
export const escapeLiteral = (s: string): string => s.replace(META, (c) => `\\${c}`)

/** One alternative of the argument group. */
function argumentAlternative(rule: ArgumentRule): string {
  switch (rule.match_type) {
    case 'exact':
      return escapeLiteral(rule.value)
    case 'prefix':
      return `${escapeLiteral(rule.value)}.*`
    case 'regex':
      return `(?:${portablePattern(rule.value)})`
  }
}

/** The PCRE text of one command entry: what `cmd =~ /…/` compiles (see the file comment). */
export function commandPattern(cmd: Pick<Command, 'command' | 'arguments'>): string {
  const words = escapeLiteral(cmd.command)
  if (!cmd.arguments.length) return `^${words}(?: .*)?$`
  const alts = cmd.arguments.map(argumentAlternative).join('|')
  const args = `(?!<cr>$)(?:${alts})(?<! <cr>)`
  // A rule that accepts no arguments at all makes the argument part optional.
  const emptyOk = new RegExp(`^(?:${alts})$`, REGEX_FLAGS).test('')
  return emptyOk ? `^${words}(?: ${args})?(?: <cr>)?$` : `^${words} ${args}(?: <cr>)?$`
}

/**
 * The pattern as written between the delimiters of `cmd =~ /…/`. The
 * configuration reader turns `\\` into `\` and `\/` into `/` and keeps every
 * other escape (mavis_parse.c), so a backslash is doubled and a slash escaped;
 * what PCRE then compiles means exactly what `pcre` means.
 */
export function configRegex(pcre: string): string {
  let out = ''
  for (let i = 0; i < pcre.length; i++) {
    const c = pcre[i]
    if (c === '\\' && i + 1 < pcre.length) {
      const n = pcre[++i]
      out += n === '\\' ? '\\\\\\\\' : n === '/' ? '\\/' : `\\${n}`
    } else if (c === '/') out += '\\/'
    else out += c
  }
  return `/${out}/`
}

// Compiled patterns and entries: the simulation meets the same entries again and again.
const compiled = new Map<string, RegExp>()
const MAX_CACHED = 10_000

/** The JavaScript RegExp of a PCRE text, with flags that read it as the daemon does (REGEX_FLAGS). */
export function commandRegExp(pcre: string): RegExp {
  let re = compiled.get(pcre)
  if (!re) {
    if (compiled.size >= MAX_CACHED) compiled.clear()
    re = new RegExp(pcre, REGEX_FLAGS)
    compiled.set(pcre, re)
  }
  return re
}

export interface CompiledCommand {
  /** The PCRE text. */
  pcre: string
  /** `/…/` as written into the configuration. */
  config: string
  /** The same pattern for the simulation. */
  regex: RegExp
}

const entries = new Map<string, CompiledCommand>()

export function compileCommand(cmd: Pick<Command, 'command' | 'arguments'>): CompiledCommand {
  const key = cmd.arguments.length ? `${cmd.command}\n${JSON.stringify(cmd.arguments.map((a) => [a.match_type, a.value]))}` : cmd.command
  let c = entries.get(key)
  if (!c) {
    const pcre = commandPattern(cmd)
    c = { pcre, config: configRegex(pcre), regex: commandRegExp(pcre) }
    if (entries.size >= MAX_CACHED) entries.clear()
    entries.set(key, c)
  }
  return c
}

/**
 * A command line as a NAS sends it: split into words on space and TAB only (the first word is
 * `cmd`, each other one a `cmd-arg`; empty words dropped), and the words joined by one space, as
 * tac_plus-ng joins `cmd` and the `cmd-arg`s (author.c, eval_args). Every other character stays
 * inside its word: NBSP and the other Unicode spaces are part of an argument, and a line feed,
 * carriage return, vertical tab or form feed is a control character, which the profile denies
 * (below). JavaScript's `\s` would have split on all of them: `show a<NBSP>b` was decided as
 * `show a b`, and `configure<LF>terminal` as `configure terminal`.
 */
export const commandWords = (line: string): string[] => line.split(/[ \t]+/).filter((w) => w !== '')

/** The line the daemon matches, without the ` <cr>` a Cisco NAS appends (the patterns take it or not alike). */
export const normalizeCommandLine = (line: string): string => commandWords(line).join(' ')

/**
 * Control characters. The daemon compiles patterns multi-line, so a line
 * holding a line break could match a permit on its second line; and it reads
 * a command whose first byte is NUL as the empty command, the exec start,
 * which every profile permits. The rendered profile denies a line holding any
 * control character before anything else, the exec start included; so does
 * the simulation.
 *
 * In the profile the test is `cmd !~ /CLEAN_LINE_PCRE/`, a pattern that must
 * match the whole line, not `cmd =~ /[\x00-\x1f\x7f]/`: tac_plus-ng keeps a
 * copy of the line that ends at its first NUL but matches over the length the
 * NAS sent, so after a NUL it reads bytes that are not the request's (an
 * upstream bug, docs/tac_plus-ng.md), and with PCRE2_UTF those usually fail
 * the UTF-8 check, which reads as "no match": the plain deny let `\0reload`
 * through (checked). "Does not match the whole line" is a deny whatever those
 * bytes are. A line that is not valid UTF-8 is denied by it too.
 */
export const CONTROL_CLASS = '[\\x00-\\x1f\\x7f]'
export const CLEAN_LINE_PCRE = '\\A[^\\x00-\\x1f\\x7f]*\\z'
const CONTROL = new RegExp(CONTROL_CLASS)

/** PCRE for a privilege level (as tac_plus-ng writes it: decimal, no leading zero) of `min` or above. */
export const privLevelAtLeast = (min: number): string => `^(?:${Array.from({ length: 16 - min }, (_, i) => String(min + i)).join('|')})$`

/**
 * The decision of `profile` on `line`, with `sets` the profile's command sets
 * in the profile's order: the first entry of the first set whose pattern
 * matches decides; none matching, the profile's default action does. An
 * empty line is the start of an exec shell, which every profile permits.
 * An entry with `min_privilege_level` above `privLvl` (the request's level,
 * by default the profile's) is skipped, as the rendered
 * `&& priv-lvl =~ /^(?:N|…|15)$/` makes the daemon skip it.
 */
export function decideCommand(
  profile: Pick<TacacsProfile, 'privilege_level' | 'default_action'>,
  sets: readonly Pick<CommandSet, 'id' | 'name' | 'commands'>[],
  line: string,
  privLvl: number = profile.privilege_level,
  say: Say = ENGLISH,
): CommandDecision {
  const w = (key: string, vars?: Record<string, unknown>) => say(`tacacs:command_reason.${key}`, vars)
  const cmd = normalizeCommandLine(line)
  // In the rendered profile's order: the control-character deny, then the exec start.
  if (CONTROL.test(cmd)) return { decision: 'deny', matched: null, reason: w('control') }
  if (cmd === '') {
    return { decision: 'permit', matched: null, reason: w('exec', { level: profile.privilege_level }) }
  }
  for (const set of sets) {
    for (const [index, entry] of set.commands.entries()) {
      if (entry.min_privilege_level !== undefined && privLvl < entry.min_privilege_level) continue
      if (!compileCommand(entry).regex.test(cmd)) continue
      const details = describeArguments(entry, w) + (entry.min_privilege_level !== undefined ? w('at_level', { level: entry.min_privilege_level }) : '')
      return {
        decision: entry.action,
        matched: { command_set_id: set.id, command_set_name: set.name, index, command: entry.command },
        reason: w(entry.action === 'permit' ? 'entry_permits' : 'entry_denies', { number: index + 1, command: entry.command, details, set: set.name }),
      }
    }
  }
  return {
    decision: profile.default_action,
    matched: null,
    reason: w(profile.default_action === 'permit' ? 'default_permits' : 'default_denies'),
  }
}

function describeArguments(entry: Pick<Command, 'arguments'>, w: (key: string, vars?: Record<string, unknown>) => string): string {
  if (!entry.arguments.length) return w('any_arguments')
  return w('arguments', { rules: entry.arguments.map((r) => `${r.match_type} "${r.value}"`).join(w('arguments_or')) })
}
