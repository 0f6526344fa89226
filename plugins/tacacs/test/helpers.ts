/** Small helpers shared by the tacacs API tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import type { TestResponse } from '../../../test/kit/http.js'

export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

export function expectError(r: TestResponse, status: number, code: string, field?: string | null) {
  expect(r.status, JSON.stringify(r.body)).to.equal(status)
  expect(r.body.code, JSON.stringify(r.body)).to.equal(code)
  if (field !== undefined) expect(r.body.field).to.equal(field)
  expect(r.body.detail).to.be.a('string').and.not.empty
}

/** Every route of one resource by id: an id naming nothing answers 404 at `field`, a malformed one 422 at `field`. */
export async function expectIdChecked(t: TestApp, base: string, field: string) {
  for (const m of ['GET', 'PUT', 'DELETE']) {
    const o = m === 'PUT' ? { body: {} } : {}
    expectError(await t.admin(m, `${base}/${randomUUID()}`, o), 404, 'NOT_FOUND', field)
    expectError(await t.admin(m, `${base}/abc`, o), 422, 'VALIDATION_FAILED', field)
  }
  expectError(await t.admin('GET', `${base}/${randomUUID()}/references`), 404, 'NOT_FOUND', field)
}

export async function createSet(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/tacacs/command-sets', { body: { name: uniq('set'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function createProfile(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/tacacs/profiles', { body: { name: uniq('profile'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}
