/** Which regex argument rules are accepted: the subset PCRE and JavaScript read alike, without catastrophic backtracking. */
import { execFileSync } from 'node:child_process'
import { expect } from 'chai'
import { checkArgumentRegex } from '../services/regex-rules.js'
import { skipBecause } from '../../../test/kit/skip.js'

const ACCEPTED = [
  '\\d+',
  '(?:up|down)',
  '(up|down)',
  'Gi[0-9]+\\x2f[0-9]+',
  '\\S+ \\S+ \\S+',
  '[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+',
  '.*secret.*',
  'vlan [0-9]{1,4}',
  '(?:ab)+',
  '(ab|cd)+',
  '[a-z]+(?=x)',
  '(?!no )\\S+',
  '\\bfoo\\b',
  'a+?',
  '[a\\-z\\]\\[]',
  '[^ ]*',
  'a|b|',
  '\\t\\n\\r\\f',
]

const REFUSED: [string, string][] = [
  ['a/b', 'slash'],
  ['\\/', 'slash'],
  ['[/]', 'slash'],
  ['^abc', 'anchor'],
  ['abc$', 'anchor'],
  ['(?<=a)b', 'lookbehind'],
  ['(?<!a)b', 'lookbehind'],
  ['(?<n>a)', 'named_group'],
  ['(?P<n>a)', 'named_group'],
  ["(?'n'a)", 'named_group'],
  ['(?i)a', 'group_syntax'],
  ['(?>a)', 'group_syntax'],
  ['(?#c)a', 'group_syntax'],
  ['(a)\\1', 'backreference'],
  ['\\k<n>', 'backreference'],
  ['\\p{L}', 'unicode_property'],
  ['\\P{L}', 'unicode_property'],
  ['\\Qa\\E', 'escape'],
  ['\\u0041', 'escape'],
  ['\\x4', 'escape'],
  ['\\-', 'escape'],
  ['\\A', 'escape'],
  ['\\v', 'escape'],
  ['\\0', 'escape'],
  ['[]a]', 'class'],
  ['[^]', 'class'],
  ['[[:alpha:]]', 'class'],
  ['[\\d-z]', 'class'],
  ['[z-a]', 'class'],
  ['a{,3}', 'quantifier'],
  ['a{', 'quantifier'],
  ['a}', 'quantifier'],
  ['*a', 'quantifier'],
  ['a++', 'quantifier'],
  ['a**', 'quantifier'],
  ['x{1001}', 'quantifier'],
  ['(?=a)+', 'quantifier'],
  ['(a+)+', 'nested_quantifier'],
  ['(a*)*', 'nested_quantifier'],
  ['(\\s\\S+)*', 'nested_quantifier'],
  ['(a{1,5}){2,9}', 'nested_quantifier'],
  ['(a|)*', 'nested_quantifier'],
  ['(a|a)*', 'ambiguous_alternation'],
  ['(ab|ac)+', 'ambiguous_alternation'],
  ['(x|[a-z])+', 'ambiguous_alternation'],
  ['\\d+\\d*', 'adjacent_repeats'],
  ['.*.*', 'adjacent_repeats'],
  ['\\w+(\\d+)', 'adjacent_repeats'],
  ['.*a.*b.*', 'too_ambiguous'],
  ['\\', 'syntax'],
  ['(', 'syntax'],
  [')', 'syntax'],
  ['[ab', 'syntax'],
]

describe('tacacs regex argument rules (services/regex-rules.ts)', () => {
  for (const p of ACCEPTED) {
    it(`accepts ${JSON.stringify(p)}`, () => {
      expect(checkArgumentRegex(p)).to.equal(null)
      expect(() => new RegExp(p, 'imu')).not.to.throw()
    })
  }
  for (const [p, problem] of REFUSED) {
    it(`refuses ${JSON.stringify(p)} (${problem})`, () => {
      expect(checkArgumentRegex(p)).to.equal(problem)
    })
  }

  it('accepts nothing PCRE2 refuses (GNU grep -P, when present)', function () {
    try {
      execFileSync('grep', ['-P', 'a'], { input: 'a\n' })
    } catch {
      skipBecause(this, 'no GNU grep with -P (PCRE2) on this machine')
    }
    for (const p of ACCEPTED) {
      try {
        execFileSync('grep', ['-P', '-i', '-e', p], { input: 'x\n', stdio: ['pipe', 'pipe', 'pipe'] })
      } catch (e) {
        // 1: no match (fine); 2: the pattern does not compile.
        expect((e as { status?: number }).status, p).to.equal(1)
      }
    }
  })

  it('decides a hostile line quickly with every accepted pattern', () => {
    const line = 'a'.repeat(5000) + ' ' + '1'.repeat(5000) + '!'
    for (const p of ACCEPTED) {
      const started = Date.now()
      new RegExp(`^x (?:${p})$`, 'imu').test(`x ${line}`)
      expect(Date.now() - started, p).to.be.below(500)
    }
  })
})
