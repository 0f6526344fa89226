/**
 * Rule conditions through the API: a time window and client prefixes stored, shown and changed
 * (canonical text, days in week order), every bad window or prefix refused with 422 at its field
 * and nothing changed, the default rule kept unconditioned, and the policy test's answer and trace
 * for a request outside a window (`at`) or from outside the prefixes (`nas_ip`).
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { createDevice, createRule, createTacacsProfile, createUser, defaultRule, expectError, listRules, RULES, startPolicyApp } from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'
const OFFICE = { days: ['fri', 'mon', 'tue', 'wed', 'thu'], start: '08:00', end: '18:00' }
/** A local time this host reads as Monday 2026-11-23 at hh:mm (windows are in local time). */
const monday = (hh: number, mm = 0) => new Date(2026, 10, 23, hh, mm, 0).toISOString()

describe('AAA policy rule conditions: API', () => {
  let t: TestApp
  let user: any, device: any, tp: any
  before(async () => {
    t = await startPolicyApp()
    ;[user, device, tp] = await Promise.all([createUser(t), createDevice(t, { address: '10.1.7.0/24' }), createTacacsProfile(t)])
  })
  after(async () => t?.stop())

  it('stores a time window and client prefixes: days in week order, prefixes canonical and once; GET and the list show them', async () => {
    const rule = await createRule(t, {
      who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: tp.id,
      time_window: OFFICE, client_prefixes: ['10.1.0.0/16', '2001:DB8:0::/32', '10.1.0.0/16', '192.0.2.7'],
    })
    expect(rule.time_window).to.deep.equal({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' })
    expect(rule.client_prefixes).to.deep.equal(['10.1.0.0/16', '2001:db8::/32', '192.0.2.7/32'])
    const got = await t.admin('GET', `${RULES}/${rule.id}`)
    expect(got.body).to.deep.include({ time_window: rule.time_window, client_prefixes: rule.client_prefixes })
    expect((await listRules(t)).find((r) => r.id === rule.id)).to.deep.include({ time_window: rule.time_window })
    // A rule without conditions shows none.
    const plain = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
    expect(plain).to.deep.include({ time_window: null, client_prefixes: [] })
    // Changed, then cleared; other fields stay.
    const moved = await t.admin('PUT', `${RULES}/${rule.id}`, { body: { time_window: { days: ['sat'], start: '22:00', end: '06:00' } } })
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200)
    expect(moved.body).to.deep.include({ time_window: { days: ['sat'], start: '22:00', end: '06:00' }, client_prefixes: rule.client_prefixes })
    const cleared = await t.admin('PUT', `${RULES}/${rule.id}`, { body: { time_window: null, client_prefixes: [] } })
    expect(cleared.body).to.deep.include({ time_window: null, client_prefixes: [], tacacs_profile_id: tp.id })
    await t.admin('DELETE', `${RULES}/${rule.id}`)
    await t.admin('DELETE', `${RULES}/${plain.id}`)
  })

  it('refuses a bad window or prefix with 422 at its field, and changes nothing', async () => {
    const base = { who: { user_id: user.id }, where: { device_id: device.id } }
    const before = await listRules(t)
    const cases: [Record<string, unknown>, string, string][] = [
      [{ time_window: { ...OFFICE, end: '08:00' } }, 'VALIDATION_FAILED', 'time_window.end'],
      [{ time_window: { ...OFFICE, start: '00:00', end: '00:00' } }, 'VALIDATION_FAILED', 'time_window.end'],
      [{ time_window: { ...OFFICE, start: '24:00' } }, 'VALIDATION_FAILED', 'time_window.start'],
      [{ time_window: { ...OFFICE, start: '8:00' } }, 'VALIDATION_FAILED', 'time_window.start'],
      [{ time_window: { ...OFFICE, end: '18:60' } }, 'VALIDATION_FAILED', 'time_window.end'],
      [{ time_window: { ...OFFICE, days: [] } }, 'VALIDATION_FAILED', 'time_window.days'],
      [{ time_window: { ...OFFICE, days: ['mon', 'mon'] } }, 'VALIDATION_FAILED', 'time_window.days'],
      [{ time_window: { ...OFFICE, days: ['monday'] } }, 'VALIDATION_FAILED', 'time_window.days[0]'],
      [{ time_window: { days: ['mon'], start: '08:00' } }, 'FIELD_REQUIRED', 'time_window.end'],
      [{ client_prefixes: ['10.1.2.3/16'] }, 'VALIDATION_FAILED', 'client_prefixes[0]'],
      [{ client_prefixes: ['10.0.0.0/8', 'core-sw1'] }, 'VALIDATION_FAILED', 'client_prefixes[1]'],
      [{ client_prefixes: ['10.0.0.0/33'] }, 'VALIDATION_FAILED', 'client_prefixes[0]'],
      [{ client_prefixes: ['::ffff:10.0.0.0/104'] }, 'VALIDATION_FAILED', 'client_prefixes[0]'],
      [{ client_prefixes: Array.from({ length: 33 }, (_, i) => `10.0.${i}.0/24`) }, 'VALIDATION_FAILED', 'client_prefixes'],
      [{ client_prefixes: '10.0.0.0/8' }, 'VALIDATION_FAILED', 'client_prefixes'],
    ]
    const problems: string[] = []
    for (const [body, code, field] of cases) {
      const r = await t.admin('POST', RULES, { body: { name: `bad-${problems.length}-${Math.random().toString(36).slice(2, 8)}`, ...base, ...body } })
      if (r.status !== 422 || r.body.code !== code || r.body.field !== field || !r.body.detail) problems.push(`${JSON.stringify(body).slice(0, 80)}: ${r.status} ${r.body.code} at ${r.body.field}`)
    }
    expect(problems).to.deep.equal([])
    // The detail says what was wrong in the operator's words.
    const hostBits = await t.admin('POST', RULES, { body: { name: 'bad-host-bits', ...base, client_prefixes: ['10.1.2.3/16'] } })
    expect(hostBits.body.detail).to.contain('10.1.0.0/16')
    // A change with a bad condition leaves the rule as it was.
    const rule = await createRule(t, { ...base, time_window: OFFICE })
    expectError(await t.admin('PUT', `${RULES}/${rule.id}`, { body: { name: 'renamed-cond', client_prefixes: ['10.1.2.3/16'] } }), 422, 'VALIDATION_FAILED', 'client_prefixes[0]')
    expect((await t.admin('GET', `${RULES}/${rule.id}`)).body).to.deep.include({ name: rule.name, client_prefixes: [], time_window: rule.time_window })
    await t.admin('DELETE', `${RULES}/${rule.id}`)
    expect((await listRules(t)).map((r) => r.id)).to.deep.equal(before.map((r) => r.id))
  })

  it('keeps the default rule unconditioned: 422 DEFAULT_RULE_FIXED for a window or prefixes, null and [] accepted', async () => {
    const def = await defaultRule(t)
    expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { time_window: OFFICE } }), 422, 'DEFAULT_RULE_FIXED', 'time_window')
    expectError(await t.admin('PUT', `${RULES}/${def.id}`, { body: { client_prefixes: ['10.0.0.0/8'] } }), 422, 'DEFAULT_RULE_FIXED', 'client_prefixes')
    const ok = await t.admin('PUT', `${RULES}/${def.id}`, { body: { time_window: null, client_prefixes: [] } })
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
    expect(ok.body).to.deep.include({ time_window: null, client_prefixes: [] })
  })

  it('the database keeps the default rule unconditioned and at most 32 prefixes, for writes that bypass the API too (migration 0004)', async () => {
    const knex = t.app.db.knex
    const def = await defaultRule(t)
    const refused = async (q: Promise<unknown>) => {
      const e = await q.then(() => null, (err: Error) => err)
      expect(e?.message ?? 'no error').to.match(/aaa_policy_rules_(default_unconditioned|client_prefixes_max)/)
    }
    await refused(knex('aaa_policy_rules').where({ id: def.id }).update({ client_prefixes: ['10.0.0.0/8'] }))
    await refused(knex('aaa_policy_rules').where({ id: def.id }).update({ time_window: OFFICE as never }))
    const rule = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id } })
    await refused(knex('aaa_policy_rules').where({ id: rule.id }).update({ client_prefixes: Array.from({ length: 33 }, (_, i) => `10.${i}.0.0/16`) }))
    await t.admin('DELETE', `${RULES}/${rule.id}`)
  })

  it('policy test: a rule outside its window or from outside its prefixes does not match, the next rule decides, and the trace says why', async () => {
    const rule = await createRule(t, { who: { user_id: user.id }, where: { device_id: device.id }, tacacs_profile_id: tp.id, time_window: OFFICE, client_prefixes: ['10.1.7.0/25'], position: 0 })
    const ask = async (body: Record<string, unknown>) => {
      const r = await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: user.username, ...body } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return { decision: r.body.decision, rule: r.body.matched_rule?.name, step: r.body.trace[0] }
    }
    const inside = await ask({ nas_ip: '10.1.7.9', at: monday(9) })
    expect(inside).to.deep.include({ decision: 'permit', rule: rule.name })
    expect(inside.step.reason).to.equal(`matched: user ${user.username}, device ${device.name}, NAS address 10.1.7.9 in 10.1.7.0/25, inside its time window Mon-Fri 08:00-18:00`)
    // 18:00 is outside (end exclusive), 17:59 inside; the default rule (no profile) then denies.
    const late = await ask({ nas_ip: '10.1.7.9', at: monday(18) })
    expect(late).to.deep.include({ decision: 'deny', rule: 'default' })
    expect(late.step).to.deep.include({ rule_id: rule.id, matched: false, reason: 'outside its time window Mon-Fri 08:00-18:00' })
    expect((await ask({ nas_ip: '10.1.7.9', at: monday(17, 59) })).decision).to.equal('permit')
    // The client condition comes before the window in the trace.
    const far = await ask({ nas_ip: '10.1.7.200', at: monday(9) })
    expect(far).to.deep.include({ decision: 'deny', rule: 'default' })
    expect(far.step.reason).to.equal('NAS address 10.1.7.200 is not in 10.1.7.0/25')
    // By device: its whole prefix (10.1.7.0/24) must be inside, and is not.
    expect((await ask({ device_id: device.id, at: monday(9) })).step.reason).to.equal('NAS address 10.1.7.0/24 is not in 10.1.7.0/25')
    await t.admin('PUT', `${RULES}/${rule.id}`, { body: { client_prefixes: ['10.1.0.0/16'] } })
    expect((await ask({ device_id: device.id, at: monday(9) })).decision).to.equal('permit')
    // `at` takes an offset; a bad one is 422 at `at`.
    expectError(await t.admin('POST', TEST, { body: { protocol: 'tacacs', username: user.username, device_id: device.id, at: 'monday 9am' } }), 422, 'VALIDATION_FAILED', 'at')
    await t.admin('DELETE', `${RULES}/${rule.id}`)
  })
})
