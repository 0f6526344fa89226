/** services/evaluate.ts: the rule check of one configuration. Pure, no app. */
import { expect } from 'chai'
import { UnsafeRegexError } from '../../../sdk/index.js'
import { violationMailText } from '../services/compliance-mail.js'
import { compileRule, evaluateConfig, MAX_EVIDENCE, MAX_TESTED_CHARS, type RuleSpec } from '../services/evaluate.js'

const RAW = ['hostname sw1', '!', 'ip http server', ' no ip http secure-server', 'snmp-server community s3cret RO', 'interface Gi0/1', ' description uplink', 'username admin secret 5 $1$abc$def', ''].join('\n')
const MASKED = RAW.replace('s3cret', '***').replace('$1$abc$def', '<secret hidden>')

const rule = (id: string, requirement: RuleSpec['requirement'], match: RuleSpec['match'], pattern: string) => compileRule({ id, requirement, match, pattern })
const run = (...rules: ReturnType<typeof rule>[]) => evaluateConfig(RAW, MASKED, rules)

describe('ncm compliance: evaluating a configuration', () => {
  it('literal: a whole trimmed line equals the pattern, case and all', () => {
    const r = run(
      rule('a', 'must_not_contain', 'literal', 'ip http server'),
      rule('b', 'must_contain', 'literal', 'no ip http secure-server'),
      rule('c', 'must_contain', 'literal', 'ip http'),
      rule('d', 'must_contain', 'literal', 'IP HTTP SERVER'),
    )
    expect(r.get('a')).to.deep.equal({ status: 'fail', evidence: [{ line: 3, text: 'ip http server' }], match_count: 1 })
    expect(r.get('b')).to.deep.equal({ status: 'pass', evidence: [{ line: 4, text: 'no ip http secure-server' }], match_count: 1 })
    expect(r.get('c')).to.deep.equal({ status: 'fail', evidence: [], match_count: 0 })
    expect(r.get('d')!.status).to.equal('fail')
  })

  it('a line search for `ip http server` does not take `no ip http server`', () => {
    const r = evaluateConfig('no ip http server\n', 'no ip http server\n', [rule('a', 'must_not_contain', 'literal', 'ip http server'), rule('b', 'must_not_contain', 'regex', 'ip http server')])
    expect(r.get('a')!.status).to.equal('pass')
    expect(r.get('b')!.status).to.equal('pass')
  })

  it('regex: a whole trimmed line, case-insensitive; evidence from the masked copy, never the raw text', () => {
    const r = run(rule('a', 'must_not_contain', 'regex', 'snmp-server community \\S+ (ro|rw)'), rule('b', 'must_contain', 'regex', 'username \\S+ secret 5 .*'), rule('c', 'must_contain', 'regex', 'hostname'))
    expect(r.get('a')).to.deep.equal({ status: 'fail', evidence: [{ line: 5, text: 'snmp-server community *** RO' }], match_count: 1 })
    expect(r.get('b')).to.deep.equal({ status: 'pass', evidence: [{ line: 8, text: 'username admin secret 5 <secret hidden>' }], match_count: 1 })
    expect(r.get('c')!.status).to.equal('fail')
    expect(JSON.stringify([...r.values()])).not.to.include('s3cret').and.not.to.include('$1$abc')
  })

  it('keeps at most five lines of evidence and counts them all', () => {
    const text = Array.from({ length: 12 }, (_, i) => `interface Gi0/${i}`).join('\n')
    const r = evaluateConfig(text, text, [rule('a', 'must_not_contain', 'regex', 'interface Gi0/\\d+')])
    expect(r.get('a')!.match_count).to.equal(12)
    expect(r.get('a')!.evidence.map((e) => e.line)).to.deep.equal([1, 2, 3, 4, 5])
    expect(MAX_EVIDENCE).to.equal(5)
  })

  it('shows no text when the masked copy does not line up with the raw one', () => {
    const r = evaluateConfig('a\nb\n', 'a\n', [rule('a', 'must_contain', 'literal', 'b')])
    expect(r.get('a')).to.deep.equal({ status: 'pass', evidence: [{ line: 2, text: '' }], match_count: 1 })
  })

  it('tests only the first 4,096 characters of a line, so a hostile line stays fast', () => {
    const long = `description ${'a'.repeat(200_000)}!`
    const started = process.hrtime.bigint()
    const r = evaluateConfig(long, long, [rule('a', 'must_not_contain', 'regex', 'description .*!'), rule('b', 'must_contain', 'regex', 'description a*')])
    expect(r.get('a')!.status).to.equal('pass') // the `!` lies past the tested part
    expect(r.get('b')!.status).to.equal('pass')
    expect(MAX_TESTED_CHARS).to.equal(4096)
    // Not a timing assertion on the machine: a bound that only a runaway regex could cross.
    expect(Number(process.hrtime.bigint() - started) / 1e9).to.be.below(5)
  })

  it('refuses to compile an unsafe pattern', () => {
    expect(() => rule('a', 'must_contain', 'regex', '(a+)+b')).to.throw(UnsafeRegexError)
  })
})

describe('ncm compliance: the violation mail text', () => {
  it('lists each rule with its evidence, and no value can forge a line', () => {
    const m = violationMailText({
      device: 'sw1\nBcc: evil@example.net',
      versionId: '00000000-0000-4000-8000-000000000001',
      fetchedAt: new Date('2026-11-28T21:00:00Z'),
      violations: [
        { name: 'no-http', requirement: 'must_not_contain', pattern: 'ip http server', evidence: [{ line: 3, text: 'ip http server' }] },
        { name: 'ntp', requirement: 'must_contain', pattern: 'ntp server \\S+', evidence: [] },
      ],
    })
    expect(m.subject).to.equal('Compliance: sw1\\u{A}Bcc: evil@example.net violates 2 rule(s)')
    expect(m.text).to.include('- no-http: must not contain "ip http server"\n    3: ip http server')
    expect(m.text).to.include('- ntp: must contain "ntp server \\S+"\n    (no line matches)')
    expect(m.text.split('\n').some((l) => l.startsWith('Bcc:'))).to.equal(false)
  })
})
