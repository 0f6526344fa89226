/**
 * The command decision: the PCRE text of each entry, the JavaScript RegExp
 * made from it, and first-match-wins over a profile's sets. Where GNU grep
 * with PCRE2 is on the machine, every case also runs through it, from the
 * `/…/` text as tac_plus-ng's reader turns it back into a pattern: the
 * daemon and the simulation must decide alike.
 */
import { execFileSync } from 'node:child_process'
import { expect } from 'chai'
import type { Command, CommandSet } from '../api.js'
import { commandPattern, compileCommand, configRegex, decideCommand, escapeLiteral, normalizeCommandLine } from '../services/command-match.js'
import { any, CASES, withArgs } from './match-cases.js'
import { skipBecause } from '../../../test/kit/skip.js'

/** What tac_plus-ng's reader makes of `/…/` (mavis_parse.c): `\\` → `\`, `\/` → `/`, other escapes kept. */
function readConfigRegex(literal: string): string {
  expect(literal.startsWith('/') && literal.endsWith('/')).to.equal(true)
  const body = literal.slice(1, -1)
  let out = ''
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '/') throw new Error(`unescaped / in ${literal}`)
    if (body[i] !== '\\') {
      out += body[i]
      continue
    }
    const n = body[++i]
    if (n !== '\\' && n !== '/') out += '\\'
    out += n
  }
  return out
}

const hasGrepP = (() => {
  try {
    return execFileSync('grep', ['-P', '-i', '^a(?<!b)$'], { input: 'A\n', encoding: 'utf8' }).trim() === 'A'
  } catch {
    return false
  }
})()

describe('tacacs command matching (services/command-match.ts)', () => {
  describe('the pattern of one entry', () => {
    it('has the documented shapes', () => {
      expect(commandPattern(any('show'))).to.equal('^show(?: .*)?$')
      expect(commandPattern(withArgs('show', ['exact', 'run'], ['prefix', 'st'], ['regex', '\\d+']))).to.equal('^show (?!<cr>$)(?:run|st.*|(?:\\d+))(?<! <cr>)(?: <cr>)?$')
      expect(commandPattern(withArgs('show', ['regex', '\\d*']))).to.equal('^show(?: (?!<cr>$)(?:(?:\\d*))(?<! <cr>))?(?: <cr>)?$')
    })

    it('escapes every metacharacter of literal parts, and / for the delimiters', () => {
      expect(escapeLiteral('10.0.0.0/8')).to.equal('10\\.0\\.0\\.0\\/8')
      expect(escapeLiteral('\\^$.|?*+()[]{}/-<>#"')).to.equal('\\\\\\^\\$\\.\\|\\?\\*\\+\\(\\)\\[\\]\\{\\}\\/-<>#"')
    })

    it('writes the configuration form so that the reader gives back the pattern', () => {
      const pcre = commandPattern(withArgs('echo', ['exact', 'a\\b/c']))
      expect(pcre).to.equal('^echo (?!<cr>$)(?:a\\\\b\\/c)(?<! <cr>)(?: <cr>)?$')
      const literal = configRegex(pcre)
      expect(literal).to.equal('/^echo (?!<cr>$)(?:a\\\\\\\\b\\/c)(?<! <cr>)(?: <cr>)?$/')
      // The reader drops the escape of `/`: the same pattern to PCRE.
      expect(readConfigRegex(literal)).to.equal(pcre.replace('\\/', '/'))
    })

    for (const [entry, line, expected] of CASES) {
      const args = entry.arguments.map((a) => `${a.match_type} ${JSON.stringify(a.value)}`).join(', ') || 'any arguments'
      it(`${JSON.stringify(entry.command)} (${args}) ${expected ? 'matches' : 'does not match'} ${JSON.stringify(line)}`, () => {
        expect(compileCommand(entry).regex.test(line)).to.equal(expected)
      })
    }

    it('agrees with PCRE2 on every case, read from the configuration text (GNU grep -P, when present)', function () {
      if (!hasGrepP) skipBecause(this, 'no GNU grep with -P (PCRE2) on this machine')
      const byEntry = new Map<string, { pcre: string; lines: [string, boolean][] }>()
      for (const [entry, line, expected] of CASES) {
        const { config } = compileCommand(entry)
        const e = byEntry.get(config) ?? { pcre: readConfigRegex(config), lines: [] }
        e.lines.push([line, expected])
        byEntry.set(config, e)
      }
      for (const { pcre, lines } of byEntry.values()) {
        let out = ''
        try {
          // -i: tac_plus-ng compiles its patterns case-insensitive by default.
          out = execFileSync('grep', ['-P', '-i', '-e', pcre], { input: lines.map(([l]) => l).join('\n') + '\n', encoding: 'utf8' })
        } catch (e) {
          if ((e as { status?: number }).status !== 1) throw e // 1: no line matched
        }
        const matched = new Set(out.split('\n').filter(Boolean))
        for (const [line, expected] of lines) expect(matched.has(line), `${pcre} on ${JSON.stringify(line)}`).to.equal(expected)
      }
    })
  })

  describe('the decision of a profile', () => {
    const set = (name: string, ...commands: Command[]): CommandSet => ({ id: `id-${name}`, name, description: null, commands, created_at: '', updated_at: '' })
    const readOnly = set('read-only', { ...withArgs('show', ['prefix', 'run']), action: 'deny' }, any('show'), any('ping'))
    const ops = set('ops', any('show', 'deny'), any('reload'), any('configure terminal'))
    const profile = { privilege_level: 7, default_action: 'deny' as const }

    it('splits the line as a NAS does: on space and TAB only, empty words dropped', () => {
      expect(normalizeCommandLine('  show \t ip   route\t')).to.equal('show ip route')
      // NBSP, the other Unicode spaces and the line breaks stay inside their word.
      expect(normalizeCommandLine('show a\u00a0b\u2003c\u3000d')).to.equal('show a\u00a0b\u2003c\u3000d')
      expect(normalizeCommandLine('configure\nterminal \r')).to.equal('configure\nterminal \r')
    })

    it('denies a line holding LF, CR, VT or FF (control characters inside a word), and decides NBSP as part of an argument', () => {
      const loose = { privilege_level: 7, default_action: 'permit' as const }
      for (const line of ['configure\nterminal', 'show version\r', 'show\u000bx', 'show \fx']) {
        expect(decideCommand(loose, [ops], line).decision, JSON.stringify(line)).to.equal('deny')
      }
      const oneWord = set('one-word', { ...withArgs('show', ['regex', '\\S+']), action: 'permit' }, any('show', 'deny'))
      expect(decideCommand(profile, [oneWord], 'show a\u00a0b').decision).to.equal('permit')
      expect(decideCommand(profile, [oneWord], 'show a\tb').decision).to.equal('deny')
    })

    it('takes the first matching entry of the first set that has one', () => {
      const d1 = decideCommand(profile, [readOnly, ops], 'show   running-config <cr>')
      expect(d1).to.include({ decision: 'deny' })
      expect(d1.matched).to.deep.equal({ command_set_id: 'id-read-only', command_set_name: 'read-only', index: 0, command: 'show' })
      const d2 = decideCommand(profile, [readOnly, ops], 'show version')
      expect(d2.decision).to.equal('permit')
      expect(d2.matched).to.include({ command_set_name: 'read-only', index: 1 })
      // The other order: the ops set's deny of every show wins.
      const d3 = decideCommand(profile, [ops, readOnly], 'show version')
      expect(d3.decision).to.equal('deny')
      expect(d3.matched).to.include({ command_set_name: 'ops', index: 0 })
      expect(decideCommand(profile, [readOnly, ops], 'reload <cr>').matched).to.include({ command_set_name: 'ops', index: 1 })
      expect(d1.reason).to.be.a('string').and.match(/read-only/)
    })

    it('falls back to the default action', () => {
      const deny = decideCommand(profile, [readOnly], 'write memory')
      expect(deny).to.include({ decision: 'deny', matched: null })
      expect(deny.reason).to.match(/default action/)
      expect(decideCommand({ ...profile, default_action: 'permit' }, [readOnly], 'write memory').decision).to.equal('permit')
      expect(decideCommand({ ...profile, default_action: 'permit' }, [], 'anything').decision).to.equal('permit')
    })

    it('permits the start of an exec shell (an empty line), as the rendered profile does', () => {
      const d = decideCommand(profile, [], '   ')
      expect(d).to.include({ decision: 'permit', matched: null })
      expect(d.reason).to.match(/level 7/)
    })

    it('denies a line holding control characters, before any entry', () => {
      expect(decideCommand({ ...profile, default_action: 'permit' }, [ops], 'reload\u0001').decision).to.equal('deny')
    })
  })
})
