/**
 * The radius service through its ref, as another plugin uses it (a fixture
 * plugin that depends on radius), on the embedded engine where a query
 * outside the caller's transaction would block; and the value helpers
 * exported for the renderer.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { formatValue, quoteValue, radiusServiceRef } from '../index.js'
import { dictionaryEntries } from '../services/dictionary.js'
import { attributesProblem, valueProblem } from '../services/values.js'
import { createProfile, expectError } from './helpers.js'

const CONSUMER = './plugins/radius/test/fixtures/consumer'

// Pinned to the embedded engine: in the embedded run only, not once more in the PostgreSQL run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius service (radiusServiceRef)', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ engine: 'embedded', plugins: [CONSUMER, 'inventory', 'radius'] })
  })
  after(async () => t?.stop())

  it('is exported from index.ts under the contract id', () => {
    expect(radiusServiceRef.id).to.equal('radius.service')
  })

  it('loads the consumer after radius', async () => {
    const ids = (await t.admin('GET', '/api/v1/dashboard/system-info')).body.plugins.map((p: { id: string }) => p.id)
    expect(ids.indexOf('radius')).to.be.lessThan(ids.indexOf('radius-consumer'))
  })

  it('lists every profile in name order, and gets one by id, the same as the API shows them', async () => {
    const b = await createProfile(t, { name: 'svc-b', attributes: [{ name: 'Cisco-AVPair', value: 'shell:priv-lvl=1' }, { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' }] })
    const a = await createProfile(t, { name: 'svc-a', description: 'first' })
    const list = await t.admin('GET', '/api/v1/radius-consumer/profiles')
    expect(list.status).to.equal(200)
    expect(list.body.items.filter((p: { name: string }) => p.name.startsWith('svc-'))).to.deep.equal([a, b])
    const one = await t.admin('GET', `/api/v1/radius-consumer/profiles/${b.id}`)
    expect(one.status).to.equal(200)
    expect(one.body).to.deep.equal(b)
    expect(one.body.attributes.map((x: { value: string }) => x.value)).to.deep.equal(['shell:priv-lvl=1', 'shell:priv-lvl=15'])
  })

  it('answers null for an unknown id and for a string that is not a UUID', async () => {
    expectError(await t.admin('GET', `/api/v1/radius-consumer/profiles/${randomUUID()}`), 404, 'NOT_FOUND', 'profile_id')
    expectError(await t.admin('GET', '/api/v1/radius-consumer/profiles/not-a-uuid'), 404, 'NOT_FOUND', 'profile_id')
  })

  it('sees a deleted profile gone', async () => {
    const p = await createProfile(t)
    await t.admin('DELETE', `/api/v1/radius/profiles/${p.id}`)
    expectError(await t.admin('GET', `/api/v1/radius-consumer/profiles/${p.id}`), 404, 'NOT_FOUND', 'profile_id')
  })
})

describe('radius value helpers', () => {
  it('quotes text with \\ and " escaped, and refuses what it cannot write safely', () => {
    expect(quoteValue('shell:roles="network-admin"')).to.equal('"shell:roles=\\"network-admin\\""')
    expect(quoteValue('C:\\x')).to.equal('"C:\\\\x"')
    expect(() => quoteValue('a\nb')).to.throw()
    expect(() => quoteValue('%{User-Password}')).to.throw()
    expect(() => quoteValue('$ENV{HOME}')).to.throw()
    expect(() => quoteValue('${confdir}')).to.throw()
  })

  it('writes every value double-quoted, and refuses a name or value that breaks the rules', () => {
    expect(formatValue({ name: 'Service-Type', value: 'Administrative-User' })).to.equal('"Administrative-User"')
    expect(formatValue({ name: 'Session-Timeout', value: '3600' })).to.equal('"3600"')
    expect(formatValue({ name: 'Framed-IP-Address', value: '192.0.2.1' })).to.equal('"192.0.2.1"')
    expect(formatValue({ name: 'Cisco-AVPair', value: 'shell:roles="a"' })).to.equal('"shell:roles=\\"a\\""')
    expect(formatValue({ name: 'Class', value: '0x4142' })).to.equal('"0x4142"')
    expect(() => formatValue({ name: 'Nope', value: 'x' })).to.throw()
    // A row that bypassed the API is not written.
    expect(() => formatValue({ name: 'Session-Timeout', value: 'soon' })).to.throw()
  })

  it('accepts a sample value of every dictionary entry', () => {
    const sample = (e: ReturnType<typeof dictionaryEntries>[number]) =>
      e.type === 'enum' ? e.values![0] : e.type === 'integer' ? String(e.max) : e.type === 'ipaddr' ? '198.51.100.7' : e.type === 'ipv6addr' ? '2001:db8::7' : 'x=y'
    for (const e of dictionaryEntries()) expect(valueProblem(e, sample(e)), e.name).to.equal(null)
    expect(attributesProblem(dictionaryEntries().map((e) => ({ name: e.name, value: sample(e) })))).to.equal(null)
  })
})
