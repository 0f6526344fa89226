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
