/** Small helpers shared by the radius plugin's tests. */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { uniq, expectError, auditRows } from '../../../test/kit/expect.js'
export { uniq, expectError, auditRows }

export async function createProfile(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/radius/profiles', { body: { name: uniq('p'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

