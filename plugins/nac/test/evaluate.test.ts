/**
 * evaluateNacPolicy, the pure evaluation of the compiled policy: examples of each condition with
 * its reason, and properties over random policies and requests (fast-check): the first rule whose
 * conditions all hold decides, the default otherwise, and the trace lists every earlier rule with a
 * condition that really fails (the conditions before it in that rule holding).
 */
import { expect } from 'chai'
import fc from 'fast-check'
import type { CompiledNacPolicy, CompiledNacRule, NacAuthorization, NacCondition, NacRequest } from '../../../sdk/index.js'
import { toPolicyWindow } from '../../../sdk/index.js'
import { conditionFailure, evaluateNacPolicy } from '../services/evaluate.js'

const G = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c']
const auth = (name: string, deny = false): NacAuthorization => ({ profile_id: G[0], profile_name: name, deny, reply: deny ? [] : [{ attribute: 'Tunnel-Private-Group-Id', value: name }] })
const rule = (i: number, conditions: NacCondition[], a = auth(`p${i}`)): CompiledNacRule => ({ id: `r${i}`, name: `rule${i}`, position: i + 1, conditions, authorization: a })
const policy = (rules: CompiledNacRule[], d = auth('default', true)): CompiledNacPolicy => ({ rules, default: { id: 'def', name: 'default', authorization: d } })

const base: NacRequest = {
  method: 'peap',
  mac: 'aa:bb:cc:00:00:01',
  username: 'alice',
  user_group_ids: [G[0]],
  endpoint_group_ids: [],
  device_type: null,
  device_group_ids: [G[1], G[2]],
  certificate: null,
  nas_port_type: 'Ethernet',
  local_time: { day: 1, minute: 9 * 60 },
}

describe('nac: evaluateNacPolicy', () => {
  it('takes the first rule that holds, with the trace of those before it', () => {
    const p = policy([
      rule(0, [{ type: 'method', methods: ['mab'] }]),
      rule(1, [{ type: 'user_group', groups: [{ id: G[0], name: 'staff' }] }, { type: 'endpoint_group', groups: [{ id: G[2], name: 'printers' }] }]),
      rule(2, [{ type: 'device_group', groups: [{ id: G[2], name: 'campus' }] }]),
      rule(3, []),
    ])
    const r = evaluateNacPolicy(p, base)
    expect(r.rule).to.deep.equal({ id: 'r2', name: 'rule2', position: 3, is_default: false })
    expect(r.decision).to.equal('accept')
    expect(r.reply).to.deep.equal([{ attribute: 'Tunnel-Private-Group-Id', value: 'p2' }])
    expect(r.trace.map((s) => [s.rule_name, s.matched, s.failed_condition?.type ?? null])).to.deep.equal([
      ['rule0', false, 'method'],
      ['rule1', false, 'endpoint_group'],
      ['rule2', true, null],
    ])
    expect(r.trace[0].reason).to.equal('method is peap, not mab')
    expect(r.trace[1].reason).to.equal('endpoint aa:bb:cc:00:00:01 is in none of the endpoint groups printers')
  })

  it('falls to the default rule, listing every rule; a deny is a reject with no reply', () => {
    const r = evaluateNacPolicy(policy([rule(0, [{ type: 'method', methods: ['mab'] }])]), base)
    expect(r.rule).to.deep.equal({ id: 'def', name: 'default', position: null, is_default: true })
    expect(r.decision).to.equal('reject')
    expect(r.reply).to.deep.equal([])
    expect(r.trace.map((s) => s.rule_id)).to.deep.equal(['r0', 'def'])
    expect(r.trace[1]).to.include({ is_default: true, matched: true, reason: null })
  })

  it('compares certificate fields case-insensitively, and explains a missing certificate', () => {
    const c: NacCondition = { type: 'certificate', field: 'issuer_cn', values: ['Corp CA'] }
    expect(conditionFailure(c, { ...base, method: 'eap-tls', certificate: { issuer_cn: 'CORP ca' } })).to.equal(null)
    expect(conditionFailure(c, { ...base, method: 'eap-tls', certificate: { issuer_cn: 'Other' } })).to.equal('certificate issuer_cn is "Other", not "Corp CA"')
    expect(conditionFailure(c, { ...base, method: 'eap-tls', certificate: {} })).to.equal('the certificate has no issuer_cn')
    expect(conditionFailure(c, base)).to.equal('no client certificate (peap), so no issuer_cn')
  })

  it('reads device type and NAS-Port-Type exactly, and time windows across midnight', () => {
    expect(conditionFailure({ type: 'device_type', device_types: ['printer'] }, { ...base, device_type: 'printer' })).to.equal(null)
    expect(conditionFailure({ type: 'device_type', device_types: ['printer'] }, base)).to.equal('the endpoint has no device type (not "printer")')
    expect(conditionFailure({ type: 'nas_port_type', values: ['Wireless-802.11'] }, base)).to.equal('NAS-Port-Type is Ethernet, not Wireless-802.11')
    const night: NacCondition = { type: 'time_window', window: toPolicyWindow({ days: ['fri'], start: '22:00', end: '06:00' }) }
    expect(conditionFailure(night, { ...base, local_time: { day: 5, minute: 23 * 60 } })).to.equal(null)
    expect(conditionFailure(night, { ...base, local_time: { day: 6, minute: 5 * 60 + 59 } })).to.equal(null)
    expect(conditionFailure(night, { ...base, local_time: { day: 6, minute: 6 * 60 } })).to.equal('Sat 06:00 is outside Fri 22:00-06:00')
    expect(conditionFailure({ type: 'user_group', groups: [{ id: G[1], name: 'x' }] }, { ...base, method: 'mab', username: null, user_group_ids: [] })).to.equal('no user (mab), so in no user group of x')
  })

  describe('properties (fast-check)', () => {
    const ids = fc.subarray(G, { minLength: 1 })
    const named = ids.map((l) => l.map((id) => ({ id, name: id.slice(-1) })))
    const condition: fc.Arbitrary<NacCondition> = fc.oneof(
      fc.subarray(['peap', 'eap-tls', 'mab'] as const, { minLength: 1 }).map((methods) => ({ type: 'method' as const, methods })),
      named.map((groups) => ({ type: 'user_group' as const, groups })),
      named.map((groups) => ({ type: 'endpoint_group' as const, groups })),
      named.map((groups) => ({ type: 'device_group' as const, groups })),
      fc.subarray(['printer', 'phone'], { minLength: 1 }).map((device_types) => ({ type: 'device_type' as const, device_types })),
      fc.record({ field: fc.constantFrom('issuer_cn' as const, 'san_email' as const), values: fc.subarray(['Corp CA', 'wifi'], { minLength: 1 }) }).map((c) => ({ type: 'certificate' as const, ...c })),
      fc.subarray(['Ethernet', 'Wireless-802.11'], { minLength: 1 }).map((values) => ({ type: 'nas_port_type' as const, values })),
      fc
        .record({ days: fc.subarray(['mon', 'tue', 'sat', 'sun'] as const, { minLength: 1 }), start: fc.constantFrom('00:00', '08:00', '22:00'), end: fc.constantFrom('06:00', '18:00', '24:00') })
        .map((w) => ({ type: 'time_window' as const, window: toPolicyWindow({ ...w, days: [...w.days] }) })),
    )
    const compiled = fc.array(fc.uniqueArray(condition, { selector: (c) => c.type, maxLength: 4 }), { maxLength: 12 }).map((lists) => policy(lists.map((cs, i) => rule(i, cs))))
    const request: fc.Arbitrary<NacRequest> = fc.record({
      method: fc.constantFrom('peap' as const, 'eap-tls' as const, 'mab' as const),
      mac: fc.constantFrom(null, 'aa:bb:cc:00:00:01'),
      username: fc.constantFrom(null, 'alice'),
      user_group_ids: fc.subarray(G),
      endpoint_group_ids: fc.subarray(G, { maxLength: 1 }),
      device_type: fc.constantFrom(null, 'printer', 'phone', 'Printer'),
      device_group_ids: fc.subarray(G),
      certificate: fc.option(fc.record({ issuer_cn: fc.constantFrom('corp ca', 'Evil CA'), san_email: fc.constantFrom('WIFI', 'vpn') }, { requiredKeys: [] }), { nil: null }),
      nas_port_type: fc.constantFrom(null, 'Ethernet', 'Wireless-802.11', 'Virtual'),
      local_time: fc.record({ day: fc.integer({ min: 0, max: 6 }), minute: fc.integer({ min: 0, max: 1439 }) }),
    })

    /** An oracle written apart from the implementation: does one condition hold? */
    function holds(c: NacCondition, r: NacRequest): boolean {
      switch (c.type) {
        case 'method':
          return c.methods.includes(r.method)
        case 'user_group':
          return c.groups.some((g) => r.user_group_ids.includes(g.id))
        case 'endpoint_group':
          return c.groups.some((g) => r.endpoint_group_ids.includes(g.id))
        case 'device_group':
          return c.groups.some((g) => r.device_group_ids.includes(g.id))
        case 'device_type':
          return r.device_type !== null && c.device_types.includes(r.device_type)
        case 'certificate': {
          // Any of the certificate's values of that field, ASCII letters caseless (what PCRE's /i folds in FreeRADIUS).
          const v = r.certificate?.[c.field]
          const fold = (x: string) => x.replace(/[A-Z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 32))
          return ([] as string[]).concat(v ?? []).some((have) => c.values.map(fold).includes(fold(have)))
        }
        case 'nas_port_type':
          return r.nas_port_type !== null && c.values.includes(r.nas_port_type)
        case 'time_window':
          return c.window.spans.some((s) => s.days.includes(r.local_time.day) && r.local_time.minute >= s.from && r.local_time.minute < s.to)
      }
    }

    it('the first rule whose conditions all hold wins; the default otherwise', () => {
      fc.assert(
        fc.property(compiled, request, (p, r) => {
          const result = evaluateNacPolicy(p, r)
          const first = p.rules.find((x) => x.conditions.every((c) => holds(c, r)))
          if (first) {
            expect(result.rule.id).to.equal(first.id)
            expect(result.authorization).to.equal(first.authorization)
          } else {
            expect(result.rule).to.include({ id: 'def', is_default: true })
          }
          expect(result.decision).to.equal(result.authorization.deny ? 'reject' : 'accept')
        }),
        { numRuns: 2000 },
      )
    })

    it('the trace lists every earlier rule in order with a condition that fails, and why', () => {
      fc.assert(
        fc.property(compiled, request, (p, r) => {
          const { trace, rule: decided } = evaluateNacPolicy(p, r)
          const until = decided.is_default ? p.rules.length : p.rules.findIndex((x) => x.id === decided.id)
          expect(trace.map((s) => s.rule_id)).to.deep.equal([...p.rules.slice(0, until + (decided.is_default ? 0 : 1)).map((x) => x.id), ...(decided.is_default ? ['def'] : [])])
          trace.slice(0, until).forEach((step, i) => {
            const conds = p.rules[i].conditions
            const at = conds.indexOf(step.failed_condition!)
            expect(step.matched).to.equal(false)
            expect(at, 'the failed condition is one of the rule').to.be.at.least(0)
            expect(holds(conds[at], r)).to.equal(false)
            expect(conds.slice(0, at).every((c) => holds(c, r)), 'the conditions before it hold').to.equal(true)
            expect(step.reason).to.be.a('string').and.not.empty
          })
          const last = trace[trace.length - 1]
          expect(last).to.include({ matched: true, failed_condition: null, reason: null })
        }),
        { numRuns: 2000 },
      )
    })
  })
})
