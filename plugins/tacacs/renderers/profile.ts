/**
 * One TACACS+ profile as a tac_plus-ng `profile` block, for service shell:
 *
 * 1. A line holding a control character is denied before anything else (see
 *    `CLEAN_LINE_PCRE` in command-match.ts). This comes first because
 *    tac_plus-ng reads a command whose first byte is NUL as the empty command
 *    (`cmd == ""` compares C strings), so the exec-start permit below would
 *    otherwise permit `\0reload`; and because its regexes see bytes past the
 *    NUL that are not the request's, only a pattern that must match the
 *    whole line (`cmd !~ /\A…\z/`) decides such a line reliably.
 * 2. The exec shell start (`cmd == ""`) sets the privilege level and the
 *    shell attributes, and permits.
 * 3. Each command entry of each command set, in the profile's order, is one
 *    `if (cmd =~ /…/) permit|deny` (the first verdict ends the script); an
 *    entry with a minimum privilege level adds `&& priv-lvl =~ /^(?:N|…|15)$/`
 *    (the daemon compares priv-lvl as text: the request's priv_lvl byte).
 * 4. The default action.
 *
 * Each service of `services` (junos-exec, fortigate, PaloAlto, ciscowlc …)
 * is one `if (service == "NAME") { set|add … permit }` after the shell block;
 * any other service gets no verdict, and the daemon denies it.
 *
 * Attributes: mandatory ones are `set` (the NAS gets `name=value`), optional
 * ones `add` (`name*value`, sent whether or not the NAS asked). Not the
 * daemon's `optional`, which answers only a NAS that sent the attribute
 * itself (author.c: the optional list is only looked up for the NAS's
 * pairs), so an NX-OS role would never arrive. Names and values are quoted
 * (`"` and `\` escaped) with `%` doubled: both go through strftime.
 *
 * Before the script, the profile's enable (`enable N = login` or
 * `enable N = crypt "$6$…"`, N its enable_privilege_level): tac_plus-ng runs
 * the ruleset for an enable request too and takes the enable of the profile
 * the matching rule gives (config.c cfg_get_enable: the first entry at the
 * requested level or above, so a NAS asking above N is refused). Mode none
 * writes nothing: no user, profile or device enable, so enable is refused.
 */
import type { CommandSet, ShellAttribute, TacacsProfile } from '../api.js'
import { CLEAN_LINE_PCRE, compileCommand, configRegex, privLevelAtLeast } from '../services/command-match.js'
import { profileIdent } from './names.js'
import { tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

const I = '    '

/** A quoted string that tac_plus-ng passes through strftime(3): `%` doubled, so it arrives as typed. */
const strftimeLiteral = (value: string, what: string): string => tacString(value.replaceAll('%', '%%'), what)

/** `set "name" = "value"` (mandatory) or `add "name" = "value"` (optional, `name*value`). */
function attributeLine(a: ShellAttribute, service: string): string {
  return `${a.optional ? 'add' : 'set'} ${strftimeLiteral(a.name, `an attribute name of service ${service}`)} = ${strftimeLiteral(a.value, `the value of attribute ${a.name} of service ${service}`)}`
}

/** A SHA-512 crypt string as crypt(3) writes it. */
const SHA512_CRYPT = /^\$6\$(rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$/

/** What the renderer reads of a profile (the enable fields absent: enable refused, as before they existed). */
export type RenderableProfile = Pick<TacacsProfile, 'name' | 'privilege_level' | 'shell_attributes' | 'default_action'> & Partial<Pick<TacacsProfile, 'enable_mode' | 'enable_privilege_level' | 'services'>>

function enableLine(profile: RenderableProfile, enableVerifier: string | null): string | null {
  const level = profile.enable_privilege_level ?? 15
  if (!Number.isInteger(level) || level < 0 || level > 15) throw new TacPlusNgRenderError(`profile ${profile.name}: enable level ${level} is not 0-15`)
  switch (profile.enable_mode ?? 'none') {
    case 'none':
      return null
    case 'login':
      return `enable ${level} = login`
    case 'secret':
      if (enableVerifier === null || !SHA512_CRYPT.test(enableVerifier)) throw new TacPlusNgRenderError(`profile ${profile.name}: the stored enable secret is not a SHA-512 crypt string`)
      return `enable ${level} = crypt ${tacString(enableVerifier)}`
  }
}

/** `enableVerifier`: the stored SHA-512 crypt of the enable secret (enable_mode secret only). */
export function renderProfileText(profile: RenderableProfile, sets: readonly Pick<CommandSet, 'name' | 'commands'>[], enableVerifier: string | null = null): string {
  const out: string[] = []
  const line = (depth: number, text: string) => out.push(I.repeat(depth) + text)
  line(0, `profile ${profileIdent(profile.name)} {`)
  const enable = enableLine(profile, enableVerifier)
  if (enable) line(1, enable)
  line(1, 'script {')
  line(2, 'if (service == shell) {')
  line(3, tacComment('A line holding a control character (a NUL byte too) is denied first'))
  line(3, `if (cmd !~ ${configRegex(CLEAN_LINE_PCRE)}) deny`)
  line(3, 'if (cmd == "") {')
  line(4, `set priv-lvl = ${profile.privilege_level}`)
  // Quoted, so that no name is read as a keyword (`radius`). The attribute goes through strftime(3) in the
  // daemon (`%p` would arrive as `PM`, `%n` as a line break): each `%` is written `%%`.
  for (const a of profile.shell_attributes) line(4, attributeLine(a, 'shell'))
  line(4, 'permit')
  line(3, '}')
  for (const set of sets) {
    line(3, tacComment(`command set ${set.name}`))
    for (const cmd of set.commands) {
      const level = cmd.min_privilege_level !== undefined ? ` && priv-lvl =~ ${configRegex(privLevelAtLeast(cmd.min_privilege_level))}` : ''
      line(3, `if (cmd =~ ${compileCommand(cmd).config}${level}) ${cmd.action}`)
    }
  }
  line(3, profile.default_action)
  line(2, '}')
  for (const svc of profile.services ?? []) {
    line(2, `if (service == ${tacString(svc.service, 'a service name')}) {`)
    for (const a of svc.attributes) line(3, attributeLine(a, svc.service))
    line(3, 'permit')
    line(2, '}')
  }
  line(1, '}')
  line(0, '}')
  return out.join('\n') + '\n'
}
