/** Small helpers shared by the identity administration tests. */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { TestApp } from '../kit/app.js'
import { uniq, expectError } from '../kit/expect.js'
export { uniq, expectError }

/** Meets the policy: long, not a common password, contains no test username. */
export const STRONG = 'Violet-Lantern-Orbit-42'
export const STRONG_2 = 'Quartz-Meadow-Signal-77'

/** A signed-in account holding exactly these permissions (through a role of its own), and its id. */
export async function actorWith(t: TestApp, permissions: string[]): Promise<{ id: string; token: string }> {
  const id = randomUUID()
  return { id, token: await t.token({ sub: id, permissions }) }
}

export async function createRole(t: TestApp, permissions: string[], name = uniq('role')): Promise<string> {
  const r = await t.admin('POST', '/api/v1/roles', { body: { name, permissions } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body.id as string
}

export async function createGroup(t: TestApp, roleIds: string[] = [], name = uniq('group')): Promise<string> {
  const r = await t.admin('POST', '/api/v1/user-groups', { body: { name, role_ids: roleIds } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body.id as string
}

export async function createUser(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/users', { body: { username: uniq('user'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function auditRows(t: TestApp, resourceId: string): Promise<{ action: string; before: unknown; after: unknown; actor_id: string | null }[]> {
  return t.app.db.knex('audit_log').where({ resource_id: resourceId }).orderBy('at').select('action', 'before', 'after', 'actor_id')
}
