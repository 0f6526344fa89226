/** Small helpers shared by the NAC tests. */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import { auditRows, expectError, uniq } from '../../../test/kit/expect.js'
export { auditRows, expectError, uniq }

/** A fresh, valid, globally administered unicast MAC per call (Cisco's 00:00:0c OUI), so tests sharing one app never collide. */
let n = Math.floor(Math.random() * 0xffff) * 256
export const freshMac = () => {
  n++
  const hex = `00000c${n.toString(16).padStart(6, '0').slice(-6)}`
  return hex.match(/../g)!.join(':')
}

export async function createEndpoint(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/nac/endpoints', { body: { mac: freshMac(), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function createGroup(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.admin('POST', '/api/v1/nac/endpoint-groups', { body: { name: uniq('grp'), ...body } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

export async function createUser(t: TestApp, username = uniq('owner')): Promise<{ id: string; username: string }> {
  const r = await t.admin('POST', '/api/v1/users', { body: { username } })
  expect(r.status, JSON.stringify(r.body)).to.equal(201)
  return r.body
}

/** Every endpoint row, as stored: to prove a refused request changed nothing. */
export const snapshot = async (t: TestApp) => JSON.stringify(await t.app.db.knex('nac_endpoints').orderBy('id').select('*'))

/** POST a CSV file to the import. */
export function importCsv(t: TestApp, csv: string | Buffer, query = '', token?: string) {
  return t.req('POST', `/api/v1/nac/endpoints/import${query}`, {
    token: token ?? t.adminToken,
    raw: typeof csv === 'string' ? csv : (csv as unknown as string),
    headers: { 'content-type': 'text/csv' },
  })
}

/** Polls `fn` every 50 ms until it answers something (the ingester and the CoA sender work in the background). */
export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 20000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
