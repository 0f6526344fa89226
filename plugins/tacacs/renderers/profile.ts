/**
 * One TACACS+ profile as a tac_plus-ng `profile` block. The exec shell start
 * (`cmd == ""`) sets the privilege level and the shell attributes; then each
 * command entry of each command set, in the profile's order, is one
 * `if (cmd =~ /…/) permit|deny` (the first verdict ends the script); then the
 * default action. Services other than shell get no verdict: the daemon denies them.
 */
import type { CommandSet, TacacsProfile } from '../api.js'
import { compileCommand, configRegex, CONTROL_PCRE } from '../services/command-match.js'
import { profileIdent } from './names.js'

const I = '    '

export function renderProfileText(profile: TacacsProfile, sets: readonly Pick<CommandSet, 'name' | 'commands'>[]): string {
  const out: string[] = []
  const line = (depth: number, text: string) => out.push(I.repeat(depth) + text)
  line(0, `profile ${profileIdent(profile.name)} {`)
  line(1, 'script {')
  line(2, 'if (service == shell) {')
  line(3, 'if (cmd == "") {')
  line(4, `set priv-lvl = ${profile.privilege_level}`)
  // Quoted, so that no name is read as a keyword (`radius`); names and values hold no `"`, `\` or `$` (validated).
  for (const a of profile.shell_attributes) line(4, `set "${a.name}" = "${a.value}"`)
  line(4, 'permit')
  line(3, '}')
  line(3, `if (cmd =~ ${configRegex(CONTROL_PCRE)}) deny`)
  for (const set of sets) {
    line(3, `# command set ${set.name}`)
    for (const cmd of set.commands) line(3, `if (cmd =~ ${compileCommand(cmd).config}) ${cmd.action}`)
  }
  line(3, profile.default_action)
  line(2, '}')
  line(1, '}')
  line(0, '}')
  return out.join('\n') + '\n'
}
