/** Strict, bounded input: every bad request is a clear 4xx in the envelope, naming the field. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'

const valid = { name: 'core-sw1', kind: 'tacacs' }

describe('request validation', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['./test/fixtures/plugins/probe'], env: { BODY_LIMIT: '4096' } })
  })
  after(async () => t?.stop())

  const echo = (body: unknown, headers?: Record<string, string>) => t.admin('POST', '/api/v1/probe/echo', { body, headers })

  it('accepts a valid body and normalizes blank optional text to null, nested too', async () => {
    const r = await echo({ ...valid, description: '  ', commands: [{ command: 'show', action: 'permit', note: '' }] })
    expect(r.status).to.equal(201)
    expect(r.body.description).to.equal(null)
    expect(r.body.commands[0].note).to.equal(null)
  })

  const cases: [string, unknown, string, string | null][] = [
    ['unknown top-level field', { ...valid, colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
    ['unknown nested field', { ...valid, commands: [{ command: 'show', action: 'permit', extra: 1 }] }, 'UNKNOWN_FIELD', 'commands[0].extra'],
    ['missing required field', { kind: 'tacacs' }, 'FIELD_REQUIRED', 'name'],
    ['required field blank', { ...valid, name: '   ' }, 'VALIDATION_FAILED', 'name'],
    ['string too long', { ...valid, name: 'x'.repeat(33) }, 'VALIDATION_FAILED', 'name'],
    ['optional text too long', { ...valid, description: 'x'.repeat(101) }, 'VALIDATION_FAILED', 'description'],
    ['enum value outside the set', { ...valid, kind: 'ldap' }, 'VALIDATION_FAILED', 'kind'],
    ['integer out of range', { ...valid, port: 70000 }, 'VALIDATION_FAILED', 'port'],
    ['number where integer expected', { ...valid, port: 1.5 }, 'VALIDATION_FAILED', 'port'],
    ['string where integer expected', { ...valid, port: '49' }, 'VALIDATION_FAILED', 'port'],
    ['malformed uuid in body', { ...valid, owner_id: 'nope' }, 'VALIDATION_FAILED', 'owner_id'],
    ['nested enum', { ...valid, commands: [{ command: 'show', action: 'maybe' }] }, 'VALIDATION_FAILED', 'commands[0].action'],
    ['too many items', { ...valid, commands: Array(6).fill({ command: 'a', action: 'deny' }) }, 'VALIDATION_FAILED', 'commands'],
    ['array instead of object', [valid], 'VALIDATION_FAILED', null],
    ['null instead of object', null, 'VALIDATION_FAILED', null],
    ['string instead of object', 'just a string', 'VALIDATION_FAILED', null],
  ]
  for (const [name, body, code, field] of cases) {
    it(`422 for ${name}, naming the field`, async () => {
      const r = await t.admin('POST', '/api/v1/probe/echo', { raw: JSON.stringify(body) })
      expect(r.status).to.equal(422)
      expect(r.body).to.include({ code, field })
      expect(r.body.detail).to.be.a('string').and.not.empty
    })
  }

  it('localizes validation messages', async () => {
    const r = await echo({ ...valid, colour: 'red' }, { 'accept-language': 'ru' })
    expect(r.body.detail).to.equal('Неизвестное поле «colour».')
  })

  it('answers malformed JSON with 422 BODY_MALFORMED_JSON', async () => {
    for (const raw of ['{"name": ', '{name: 1}', 'null garbage', "{'a': 1}", '\uFEFF{}']) {
      const r = await t.admin('POST', '/api/v1/probe/echo', { raw })
      expect(r.status, raw).to.equal(422)
      expect(r.body.code, raw).to.be.oneOf(['BODY_MALFORMED_JSON'])
    }
  })

  it('answers a missing body with 422 BODY_REQUIRED, a non-JSON body with 415, an oversized body with 413', async () => {
    const empty = await t.admin('POST', '/api/v1/probe/echo')
    expect(empty.status).to.equal(422)
    expect(empty.body.code).to.equal('BODY_REQUIRED')
    const form = await t.admin('POST', '/api/v1/probe/echo', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(form.status).to.equal(415)
    expect(form.body.code).to.equal('BODY_UNSUPPORTED_TYPE')
    const big = await echo({ ...valid, description: 'x'.repeat(5000) })
    expect(big.status).to.equal(413)
    expect(big.body.code).to.equal('BODY_TOO_LARGE')
  })

  it('answers a malformed UUID in the path with 422 naming the parameter', async () => {
    for (const bad of ['123', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', "1'%20OR%201=1", '%00']) {
      const r = await t.admin('GET', `/api/v1/probe/items/${bad}`)
      expect(r.status, bad).to.equal(422)
      expect(r.body.field, bad).to.equal('item_id')
    }
    const ok = await t.admin('GET', '/api/v1/probe/items/6f1c1a4e-8d0b-4c55-9a51-1b2f3c4d5e6f')
    expect(ok.body.item_id).to.equal('6f1c1a4e-8d0b-4c55-9a51-1b2f3c4d5e6f')
  })

  describe('list query conventions', () => {
    it('applies defaults and coerces numbers', async () => {
      const r = await t.admin('GET', '/api/v1/probe/items?page=2&per_page=5&sort_by=name&sort_order=desc&search=core')
      expect(r.body.query).to.deep.equal({ page: 2, per_page: 5, sort_by: 'name', sort_order: 'desc', search: 'core' })
      const d = await t.admin('GET', '/api/v1/probe/items')
      expect(d.body.query).to.deep.equal({ page: 1, per_page: 20, sort_order: 'asc' })
    })

    const bad: [string, string][] = [
      ['sort_by=password', 'sort_by'],
      ['sort_order=sideways', 'sort_order'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['unknown=1', 'unknown'],
      [`search=${'x'.repeat(201)}`, 'search'],
    ]
    for (const [q, field] of bad) {
      it(`422 for ?${q.slice(0, 30)}`, async () => {
        const r = await t.admin('GET', `/api/v1/probe/items?${q}`)
        expect(r.status).to.equal(422)
        expect(r.body.field).to.equal(field)
      })
    }
  })

  it('changes nothing when a request is refused', async () => {
    const before = await t.app.db.knex('audit_log').count({ n: '*' }).first()
    await t.admin('PUT', '/api/v1/settings/nope.key', { body: { value: 1 } })
    await t.admin('PUT', '/api/v1/settings/x', { body: { value: 1 } })
    const after = await t.app.db.knex('audit_log').count({ n: '*' }).first()
    expect(after).to.deep.equal(before)
  })
})
