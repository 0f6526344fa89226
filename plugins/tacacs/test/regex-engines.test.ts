/**
 * The simulation's JavaScript RegExp and tac_plus-ng's PCRE2 must decide
 * every command line alike. Here the accepted argument regexes (the
 * allow-list of regex-rules.ts, and the escapes PCRE2 and JavaScript read
 * differently: `\w \W \b \B \s \S`) are compiled into command entries, and
 * every entry's pattern runs in PCRE2 itself (test/pcre2.ts: the daemon's
 * flags, from the `/…/` text of the configuration as the reader gives it
 * back) and in JavaScript over lines made of the characters where the
 * engines could part: `ſ` (U+017F) and `K` (U+212A), which fold to `s` and
 * `k`; the Unicode spaces; U+2028/U+2029, which end a line for JavaScript's
 * `m` flag and `.`; and a few other letters with odd case mappings.
 * Needs a C compiler and libpcre2-8 (pending without them).
 */
import { expect } from 'chai'
import type { Command } from '../api.js'
import { CLEAN_LINE_PCRE, CONTROL_CLASS, compileCommand, decideCommand } from '../services/command-match.js'
import { portablePattern } from '../services/regex-parse.js'
import { checkArgumentRegex } from '../services/regex-rules.js'
import { PCRE2_SKIP, pcre2, type Pcre2 } from './pcre2.js'

/** What tac_plus-ng's reader makes of `/…/` (mavis_parse.c): `\\` → `\`, `\/` → `/`, other escapes kept. */
function readConfigRegex(literal: string): string {
  let out = ''
  const body = literal.slice(1, -1)
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') out += body[i]
    else {
      const n = body[++i]
      out += n === '\\' || n === '/' ? n : `\\${n}`
    }
  }
  return out
}

/** Argument regexes the check accepts: the allow-list's own examples and the escapes that are rewritten. */
const PATTERNS = [
  '\\w+',
  '\\W+',
  '\\w+ \\w+',
  '[\\w.-]+',
  '[\\W_]+',
  '[^\\W]+',
  '[^\\W\\d]+',
  '[\\w\\W]',
  '\\bfoo\\b',
  'x\\B\\w*',
  '.\\b',
  '\\S+',
  '\\s',
  '\\S+\\s\\S+',
  '[\\s\\S]+',
  '[^\\s]+',
  '[^\\S]',
  '\\d+',
  '(?:up|down)',
  'Gi[0-9]+\\x2f[0-9]+',
  '[a-z]+',
  '[^a-z]+',
  '[s-t]+',
  '.*secret.*',
  '.*',
  '.+',
  'vlan [0-9]{1,4}',
  '(?:ab)+',
  '(ab|cd)+',
  '[a-z]+(?=x)',
  '(?!no )\\S+',
  'a+?',
  '[a\\-z\\]\\[]',
  '[^ ]*',
  'a|b|',
  's|k',
  '[^k]',
]

/** Characters where the engines could part, and plain ones around them. */
const ALPHABET = [
  'a', 's', 'S', 'k', 'K', 'z', '0', '_', '-', '.', ' ', '/', 'x',
  '\u017f', // ſ LATIN SMALL LETTER LONG S: folds to s
  '\u212a', // KELVIN SIGN: folds to k
  '\u00df', '\u1e9e', '\u0130', '\u0131', '\u00e9', '\u2126', '\u03c9', '\u00b5',
  '\u00a0', '\u2028', '\u2029', '\u0085', '\u3000', '\ufeff', '\u200b', '\u1680',
  '\u{1f600}',
]

/** `reload X`, `reload XY` for every pair of the alphabet, with and without the ` <cr>` a NAS appends. */
const LINES = (() => {
  const out: string[] = []
  for (const x of ALPHABET) {
    out.push(`reload ${x}`)
    for (const y of ALPHABET) out.push(`reload ${x}${y}`)
  }
  out.push('reload', 'reload foo', 'reload foo bar', 'reload no x', 'reload up', 'reload Gi1/2', 'reload vlan 12', 'reload secret', 'reload xyz')
  return [...out, ...out.map((l) => `${l} <cr>`)]
})()

const entry = (command: string, args: Command['arguments'] = []): Command => ({ command, action: 'permit', arguments: args })

describe('tacacs regexes: the simulation and PCRE2 decide alike (test/pcre2.ts)', function () {
  let engine: Pcre2
  before(function () {
    const p = pcre2()
    if (!p) {
      console.log(`      skipped: ${PCRE2_SKIP}`)
      return this.skip()
    }
    engine = p
  })

  it('every test pattern is one the API accepts', () => {
    for (const p of PATTERNS) expect(checkArgumentRegex(p), p).to.equal(null)
  })

  it('decides every line alike for every accepted argument regex', () => {
    const failures: string[] = []
    for (const p of PATTERNS) {
      const c = compileCommand(entry('reload', [{ match_type: 'regex', value: p }]))
      const pcre = readConfigRegex(c.config)
      const daemon = engine.match(pcre, LINES)
      LINES.forEach((line, i) => {
        const simulated = c.regex.test(line)
        if (simulated !== daemon[i]) failures.push(`${p} (${pcre}) on ${JSON.stringify(line)}: PCRE2 ${daemon[i]}, simulation ${simulated}`)
      })
    }
    expect(failures.slice(0, 20), `${failures.length} disagreements`).to.deep.equal([])
  })

  it('decides command words and exact and prefix arguments alike too (letters that fold: ſ, K)', () => {
    const entries = [entry('show'), entry('kill'), entry('reload', [{ match_type: 'exact', value: 'sk' }]), entry('reload', [{ match_type: 'prefix', value: 'k' }])]
    const lines = [...ALPHABET.flatMap((x) => [`${x}how`, `${x}ill x`, `sho${x}`]), ...LINES]
    const failures: string[] = []
    for (const e of entries) {
      const c = compileCommand(e)
      const daemon = engine.match(readConfigRegex(c.config), lines)
      lines.forEach((line, i) => {
        if (c.regex.test(line) !== daemon[i]) failures.push(`${e.command} ${JSON.stringify(e.arguments)} on ${JSON.stringify(line)}: PCRE2 ${daemon[i]}`)
      })
    }
    expect(failures.slice(0, 20), `${failures.length} disagreements`).to.deep.equal([])
  })

  it('`reload ſ` and `reload K` do not escape a rule denying `reload \\w+`', () => {
    const noReload = { id: 's', name: 'no-reload', commands: [{ ...entry('reload', [{ match_type: 'regex', value: '\\w+' }]), action: 'deny' as const }] }
    for (const line of ['reload \u017f', 'reload \u212a', 'reload k']) {
      expect(decideCommand({ privilege_level: 1, default_action: 'permit' }, [noReload], line).decision, line).to.equal('deny')
    }
    const pcre = readConfigRegex(compileCommand(noReload.commands[0]).config)
    expect(engine.match(pcre, ['reload \u017f <cr>', 'reload \u212a <cr>'])).to.deep.equal([true, true])
  })

  it('writes the escapes the engines read differently as classes both read alike', () => {
    expect(portablePattern('\\w+')).to.equal('[A-Za-z0-9_]+')
    expect(portablePattern('\\W')).to.equal('[^A-Za-z0-9_]')
    expect(portablePattern('[\\w.-]+')).to.equal('[A-Za-z0-9_.-]+')
    expect(portablePattern('\\S+\\s')).to.equal('[^\\t\\n\\x0b\\f\\r ]+[\\t\\n\\x0b\\f\\r ]')
    expect(portablePattern('[\\W_]')).to.equal('[^0-9A-Za-z]')
    expect(portablePattern('\\bx')).to.equal('(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))x')
    // Everything else is kept as written.
    for (const p of ['(?:up|down)', 'Gi[0-9]+\\x2f[0-9]+', '[a\\-z\\]\\[]', 'a+?', 'vlan [0-9]{1,4}', '[\\b]', '\\d\\D']) expect(portablePattern(p)).to.equal(p)
  })

  it('decides a hostile line quickly with every pattern as rewritten', () => {
    const line = 'reload ' + 'a'.repeat(5000) + ' ' + '\u017f'.repeat(3000) + ' ' + '1'.repeat(5000) + '!'
    for (const p of PATTERNS) {
      const { regex } = compileCommand(entry('reload', [{ match_type: 'regex', value: p }]))
      const started = Date.now()
      regex.test(line)
      expect(Date.now() - started, p).to.be.below(500)
    }
  })

  it('the profile’s clean-line test and the simulation’s control check agree, on NUL, line breaks and bytes that are not UTF-8', () => {
    const control = new RegExp(CONTROL_CLASS)
    const lines = ['', 'show', 'show run <cr>', '\0reload', 'show\0 x', 'configure\nterminal', 'a\rb', 'a\tb', 'x\x7f', 'x\x1f', 'ſ\u2028K', '\u0085']
    const clean = engine.match(CLEAN_LINE_PCRE, lines)
    lines.forEach((l, i) => expect(clean[i], JSON.stringify(l)).to.equal(!control.test(l)))
    // Bytes that are not UTF-8 fail PCRE2's UTF check: no match, so `cmd !~` denies them.
    expect(engine.results(CLEAN_LINE_PCRE, [Buffer.from([0x73, 0xff])])[0]).to.be.below(0)
  })
})
