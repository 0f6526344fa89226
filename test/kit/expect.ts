/** Assertions and names every API test uses: one copy for the kernel's and every plugin's tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from './app.js'
import type { TestResponse } from './http.js'

/** A name no other test of the shared app holds: `prefix-1a2b3c4d`. */
export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

/** The contract's error envelope: this status and code, the field when given, and a detail to read. */
export function expectError(r: TestResponse, status: number, code: string, field?: string | null) {
  expect(r.status, JSON.stringify(r.body)).to.equal(status)
  expect(r.body.code, JSON.stringify(r.body)).to.equal(code)
  if (field !== undefined) expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
  expect(r.body.detail).to.be.a('string').and.not.empty
}

/** POST as the administrator and expect 201: the created record. */
export async function created(t: TestApp, path: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', path, { body })
  expect(r.status, `${path} ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

/** The audit entries of one record, oldest first. */
export async function auditRows(t: TestApp, resourceId: string): Promise<{ action: string; resource_type: string; before: any; after: any; actor_id: string | null }[]> {
  return t.app.db.knex('audit_log').where({ resource_id: resourceId }).orderBy('at').select('action', 'resource_type', 'before', 'after', 'actor_id')
}
