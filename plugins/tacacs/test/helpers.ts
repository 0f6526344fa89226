/** Small helpers shared by the tacacs API tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { uniq, expectError } from '../../../test/kit/expect.js'
export { uniq, expectError }

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
