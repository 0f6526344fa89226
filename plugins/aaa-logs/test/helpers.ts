/** Small helpers shared by the aaa-logs API tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestResponse } from '../../../test/kit/http.js'

export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

export function expectError(r: TestResponse, status: number, code: string, field?: string | null) {
  expect(r.status, JSON.stringify(r.body)).to.equal(status)
  expect(r.body.code, JSON.stringify(r.body)).to.equal(code)
  if (field !== undefined) expect(r.body.field, JSON.stringify(r.body)).to.equal(field)
  expect(r.body.detail).to.be.a('string').and.not.empty
}
