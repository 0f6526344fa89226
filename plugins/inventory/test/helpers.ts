/** Small helpers shared by the inventory tests. */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { uniq, expectError } from '../../../test/kit/expect.js'
export { uniq, expectError }

/** A fresh /24 per call, so tests sharing one app never collide on a prefix. */
let net = 0
export const freshNet = () => {
  net++
  return `10.${100 + Math.floor(net / 256)}.${net % 256}`
}

export async function createDevice(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/devices', { body: { name: uniq('sw'), address: `${freshNet()}.1`, ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function createGroup(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/device-groups', { body: { name: uniq('grp'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function auditRows(t: TestApp, resourceId: string): Promise<{ action: string; before: any; after: any; resource_type: string }[]> {
  return t.app.db.knex('audit_log').where({ resource_id: resourceId }).orderBy('at').select('action', 'before', 'after', 'resource_type')
}
