/** Fixtures for the NAC policy tests, all made through the public API of their owners. */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { created, uniq } from '../../../test/kit/expect.js'

export const PROFILES = '/api/v1/nac/authorization-profiles'
export const RULES = '/api/v1/nac/policy/rules'
export const TEST = '/api/v1/nac/policy/test'
export const POLICY_PLUGINS = ['inventory', 'nac']

export const startPolicyApp = () => startTestApp({ plugins: POLICY_PLUGINS })

export const createProfile = (t: TestApp, body: Record<string, unknown> = {}) => created(t, PROFILES, { name: uniq('prof'), ...body })
export const createRule = (t: TestApp, body: Record<string, unknown>) => created(t, RULES, { name: uniq('rule'), ...body })
export const createUserGroup = (t: TestApp) => created(t, '/api/v1/user-groups', { name: uniq('ugrp') })
export const createDeviceGroup = (t: TestApp, body: Record<string, unknown> = {}) => created(t, '/api/v1/device-groups', { name: uniq('dgrp'), ...body })

export async function listRules(t: TestApp): Promise<any[]> {
  const r = await t.admin('GET', RULES)
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  return r.body
}

/** The stored order's invariants: positions 0..n-1, unique, exactly one default, last. */
export async function expectOrderIntact(t: TestApp): Promise<any[]> {
  const rows = await t.app.db.knex('nac_policy_rules').orderBy('position').select('id', 'position', 'is_default')
  expect(rows.map((r) => r.position)).to.deep.equal(rows.map((_, i) => i))
  expect(rows.filter((r) => r.is_default)).to.have.length(1)
  expect(rows[rows.length - 1].is_default).to.equal(true)
  return rows
}

/** Every policy row, as stored: to prove a refused request changed nothing. */
export const policySnapshot = async (t: TestApp) =>
  JSON.stringify([await t.app.db.knex('nac_policy_rules').orderBy('id').select('*'), await t.app.db.knex('nac_authorization_profiles').orderBy('id').select('*')])
