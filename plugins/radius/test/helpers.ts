/** Small helpers shared by the radius plugin's tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import type { TestResponse } from '../../../test/kit/http.js'

export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

export function expectError(r: TestResponse, status: number, code: string, field?: string | null) {
  expect(r.status, JSON.stringify(r.body)).to.equal(status)
  expect(r.body.code, JSON.stringify(r.body)).to.equal(code)
  if (field !== undefined) expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
  expect(r.body.detail).to.be.a('string').and.not.empty
}

export async function createProfile(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/radius/profiles', { body: { name: uniq('p'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function auditRows(t: TestApp, resourceId: string): Promise<{ action: string; resource_type: string; before: any; after: any; actor_id: string | null }[]> {
  return t.app.db.knex('audit_log').where({ resource_id: resourceId }).orderBy('at').select('action', 'resource_type', 'before', 'after', 'actor_id')
}
