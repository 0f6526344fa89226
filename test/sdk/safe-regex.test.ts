/**
 * sdk/safe-regex.ts: the dialect moved from tacacs (its own tests, plugins/tacacs/test/regex-*.test.ts,
 * still cover the check); here the two ways a pattern is compiled for configuration tracking.
 */
import { expect } from 'chai'
import { checkSafeRegex, compileSafeRegex, UnsafeRegexError } from '../../sdk/safe-regex.js'

describe('sdk/safe-regex: compileSafeRegex', () => {
  it("anchors a 'line' pattern at both ends and a 'prefix' pattern at the start, case-insensitively", () => {
    const line = compileSafeRegex('snmp-server community \\S+ ro', 'line')
    expect(line.test('SNMP-server community public RO')).to.equal(true)
    expect(line.test('snmp-server community public ro 10')).to.equal(false)
    expect(line.test('no snmp-server community public ro')).to.equal(false)
    const prefix = compileSafeRegex('username \\S+ secret \\d+ ', 'prefix')
    expect(prefix.test('username admin secret 5 $1$abc')).to.equal(true)
    expect(prefix.test(' username admin secret 5 $1$abc')).to.equal(false)
  })

  it('uses the portable spelling: \\s is ASCII only, as in PCRE2', () => {
    expect(compileSafeRegex('a\\sb', 'line').test('a\u00a0b')).to.equal(false)
    expect(compileSafeRegex('a\\sb', 'line').test('a\tb')).to.equal(true)
    expect(new RegExp('^(?:a\\sb)$', 'isu').test('a\u00a0b')).to.equal(true)
  })

  it('refuses what the check refuses, naming why', () => {
    expect(checkSafeRegex('(a+)+')).to.equal('nested_quantifier')
    expect(checkSafeRegex('ip http server')).to.equal(null)
    expect(() => compileSafeRegex('(a+)+', 'line')).to.throw(UnsafeRegexError).with.property('problem', 'nested_quantifier')
    expect(() => compileSafeRegex('^x', 'prefix')).to.throw(UnsafeRegexError).with.property('problem', 'anchor')
  })

  it('takes `/` only when told (tac_plus-ng writes its patterns between slashes)', () => {
    for (const p of ['interface Gi0/\\d+', 'ip route 0\\.0\\.0\\.0\\/0 .*', 'x[/a]y']) {
      expect(checkSafeRegex(p), p).to.equal('slash')
      expect(checkSafeRegex(p, { allowSlash: true }), p).to.equal(null)
    }
    expect(compileSafeRegex('interface Gi0/\\d+', 'line', { allowSlash: true }).test('interface gi0/12')).to.equal(true)
    expect(compileSafeRegex('a\\/b', 'line', { allowSlash: true }).test('a/b')).to.equal(true)
    expect(compileSafeRegex('x[/a]y', 'line', { allowSlash: true }).test('x/y')).to.equal(true)
    expect(checkSafeRegex('(a/+)+', { allowSlash: true })).to.equal('nested_quantifier')
  })
})
