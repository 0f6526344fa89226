/** Fixtures for the AAA policy tests, all made through the public API of their owners. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { uniq, expectError, created } from '../../../test/kit/expect.js'
export { uniq, expectError, created }

export const RULES = '/api/v1/aaa/policy/rules'
export const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy']
export const NIL = '00000000-0000-4000-8000-000000000000'

export const startPolicyApp = (o: { engine?: 'postgres' | 'embedded' } = {}) => startTestApp({ plugins: PLUGINS, ...o })

/** A user the daemons know: enabled, with network login. */
export const createUser = (t: TestApp, body: Record<string, unknown> = {}) =>
  created(t, '/api/v1/users', { username: uniq('user'), network_login: true, ...body })

export const createUserGroup = (t: TestApp, body: Record<string, unknown> = {}) => created(t, '/api/v1/user-groups', { name: uniq('ugrp'), ...body })

export const createDeviceGroup = (t: TestApp, body: Record<string, unknown> = {}) => created(t, '/api/v1/device-groups', { name: uniq('dgrp'), ...body })

/** A fresh /24 per call, so tests sharing one app never collide on a prefix. */
let net = 0
export const freshNet = () => {
  net++
  return `10.${150 + Math.floor(net / 256)}.${net % 256}`
}

/** A device both daemons know: it has a TACACS+ key and a RADIUS secret. */
export const createDevice = (t: TestApp, body: Record<string, unknown> = {}) =>
  created(t, '/api/v1/devices', { name: uniq('sw'), address: `${freshNet()}.1`, tacacs_key: 'tac-key-1', radius_secret: 'rad-secret-1', ...body })

export const createCommandSet = (t: TestApp, body: Record<string, unknown> = {}) =>
  created(t, '/api/v1/tacacs/command-sets', { name: uniq('cmds'), commands: [], ...body })

export const createTacacsProfile = (t: TestApp, body: Record<string, unknown> = {}) =>
  created(t, '/api/v1/tacacs/profiles', { name: uniq('tp'), privilege_level: 1, ...body })

export const createRadiusProfile = (t: TestApp, body: Record<string, unknown> = {}) =>
  created(t, '/api/v1/radius/profiles', { name: uniq('rp'), attributes: [{ name: 'Service-Type', value: 'Administrative-User' }], ...body })

export const createRule = (t: TestApp, body: Record<string, unknown>) => created(t, RULES, { name: uniq('rule'), ...body })

export async function listRules(t: TestApp, query = ''): Promise<any[]> {
  const r = await t.admin('GET', `${RULES}${query}`)
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body
}

export async function defaultRule(t: TestApp): Promise<any> {
  return (await listRules(t)).find((r) => r.is_default)
}

/** The stored order's invariants: positions 0..n-1, unique, exactly one default, last. */
export async function expectOrderIntact(t: TestApp): Promise<any[]> {
  const rows = await t.app.db.knex('aaa_policy_rules').orderBy('position').select('id', 'position', 'is_default')
  expect(rows.map((r) => r.position)).to.deep.equal(rows.map((_, i) => i))
  expect(rows.filter((r) => r.is_default)).to.have.length(1)
  expect(rows[rows.length - 1].is_default).to.equal(true)
  return rows
}

/** Audit entries, oldest first (their before and after are JSON documents). */
export const auditRows = (t: TestApp, where: { resource_id?: string; action?: string }): Promise<{ action: string; before: any; after: any }[]> =>
  t.app.db.knex('audit_log').where(where).orderBy('at').select('action', 'before', 'after')

/** Remove every rule but the default (tests that count the list start from here). */
export async function clearRules(t: TestApp): Promise<void> {
  for (const r of await listRules(t)) if (!r.is_default) expect((await t.admin('DELETE', `${RULES}/${r.id}`)).status).to.equal(204)
}
