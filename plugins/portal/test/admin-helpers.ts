/** What the portal's admin tests share: portals, guests and sessions as the guest side (part C) leaves them, and the plugin's context. */
import { createHash, randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { coreServices, identityServices, type InsertOf } from '../../../sdk/index.js'
import type { TestApp } from '../../../test/kit/app.js'
import { silentLogger } from '../../../test/kit/app.js'
import { uniq } from '../../../test/kit/expect.js'
import { nacCoaServiceRef, nacServiceRef } from '../../nac/api.js'
import { createEndpoint, createGroup, freshMac } from '../../nac/test/helpers.js'
import { portalContext as buildContext, type PortalContext } from '../services/context.js'
import type { GuestTable } from '../tables.js'

export { createEndpoint, createGroup, freshMac }

export const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40)

/** A hotspot portal with its own guest group (or the body's fields). */
export async function createPortal(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  const name = uniq('lobby')
  const group = body.guest_endpoint_group_id === undefined ? (await createGroup(t)).id : body.guest_endpoint_group_id
  const r = await t.admin('POST', '/api/v1/captive-portal/portals', { body: { name, slug: slugOf(name), methods: ['hotspot'], guest_endpoint_group_id: group, ...body } })
  expect(r.status, r.text).to.equal(201)
  return r.body
}

/** A guest row as a portal method leaves it. */
export async function insertGuest(t: TestApp, g: Partial<InsertOf<typeof GuestTable>> & { portal_id: string }): Promise<string> {
  const [{ id }] = await t.app.db.knex('portal_guests').insert({ kind: 'hotspot', status: 'active', ...g }).returning('id')
  return id
}

/**
 * A session as the guest side leaves it: `active` ones are registered (the endpoint made through the NAC's
 * API, in the portal's guest group).
 */
export async function insertSession(t: TestApp, portal: any, s: Record<string, unknown> = {}): Promise<{ id: string; mac: string; endpoint_id: string | null }> {
  const mac = (s.mac as string) ?? freshMac()
  let endpoint_id: string | null = null
  if ((s.state ?? 'active') === 'active' && s.endpoint_id === undefined) {
    endpoint_id = (await createEndpoint(t, { mac, endpoint_group_id: portal.guest_endpoint_group_id })).id
  }
  const now = new Date()
  const [{ id }] = await t.app.db
    .knex('portal_sessions')
    .insert({
      portal_id: portal.id,
      method: 'hotspot',
      mac,
      token_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
      state: 'active',
      endpoint_id,
      endpoint_group_id: endpoint_id ? portal.guest_endpoint_group_id : null,
      registered_at: now,
      expires_at: new Date(now.getTime() + 3_600_000),
      ...s,
    })
    .returning('id')
  return { id, mac, endpoint_id: (s.endpoint_id as string | undefined) ?? endpoint_id }
}

/** The plugin's context as its init builds it, for calling its jobs directly. */
export function portalContext(t: TestApp): PortalContext {
  const d = t.app.resolveDeps('portal', {
    database: coreServices.database,
    settings: coreServices.settings,
    audit: coreServices.audit,
    cluster: coreServices.cluster,
    deploys: coreServices.deploys,
    identity: identityServices.identity,
    mail: identityServices.mail,
    nac: nacServiceRef,
    coa: nacCoaServiceRef,
  })
  return buildContext({ ...d, mfa: undefined, pki: undefined }, silentLogger(), false)
}

/** The endpoint's group as the NAC holds it. */
export async function groupOf(t: TestApp, endpointId: string): Promise<string | null> {
  const r = await t.admin('GET', `/api/v1/nac/endpoints/${endpointId}`)
  expect(r.status, r.text).to.equal(200)
  return r.body.endpoint_group_id
}
