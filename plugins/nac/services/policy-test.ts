/**
 * The policy test's inputs: a simulated request resolved against the database
 * (the user's groups, the endpoint's group and device type, the switch's
 * groups) into the NacRequest the compiled policy is evaluated on. What it
 * resolves is answered too, so a surprising decision can be traced to its data.
 */
import type { Knex } from 'knex'
import { isIP } from 'node:net'
import { phrase, type IdentityService, type NacMethod, type NacRequest } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { NacService } from '../api.js'
import { macError, NacErrors } from '../errors.js'
import type { NacAccount } from './account.js'
import { parseMac } from './mac.js'
import { isUuid } from './rows.js'

export interface PolicyTestInput {
  method: NacMethod
  mac?: string
  username?: string
  nas?: string
  nas_port_type?: string
  certificate?: { issuer_cn?: string; san_email?: string | string[]; san_dns?: string | string[] }
  time?: string
}

export interface PolicyTestDeps {
  identity: IdentityService
  inventory: InventoryService | undefined
  nac: NacService
}

type Named = { id: string; name: string }

const named = (ids: readonly string[], names: Map<string, string>): Named[] => ids.map((id) => ({ id, name: names.get(id.toLowerCase()) ?? id }))

/** 422 at the field that does not go with the method: checked before anything is read. */
export function checkTestInput(b: PolicyTestInput): void {
  if (b.method === 'mab' && b.username !== undefined) throw NacErrors.testField({ field: 'username', vars: { reason: phrase('nac:test_reason.mab_username') } })
  if (b.method === 'mab' && b.mac === undefined) throw NacErrors.testField({ field: 'mac', vars: { reason: phrase('nac:test_reason.mab_mac') } })
  if (b.method !== 'eap-tls' && b.certificate !== undefined) throw NacErrors.testField({ field: 'certificate', vars: { reason: phrase('nac:test_reason.certificate', { method: b.method }) } })
}

/** The request as the compiled policy reads it, and what it was resolved to. */
export async function resolveTestRequest(d: PolicyTestDeps, b: PolicyTestInput, db: Knex) {
  let mac: string | null = null
  if (b.mac !== undefined) {
    const parsed = parseMac(b.mac)
    if (!parsed.ok) throw macError(parsed.reason)({ field: 'mac' })
    mac = parsed.mac
  }
  type Target = { names(ids: readonly string[], db: Knex | Knex.Transaction): Promise<Map<string, string>> } | undefined
  const namesOf = async (ids: string[], target: Target) => (ids.length && target ? named(ids, await target.names(ids, db)) : [])
  // Three independent chains, side by side on the pool (the route reads outside a transaction), each
  // reading its groups' names as soon as it has their ids: the critical path is the longest chain.
  const [u, e, n] = await Promise.all([
    (async () => {
      // PEAP's inner identity is compared exactly (findUser ignores case, so the spelling is checked here);
      // an EAP-TLS certificate's Common-Name names its user in any case (services/account.ts).
      const found = b.username === undefined || b.method === 'mab' ? null : await d.identity.findUser({ username: b.username }, db)
      const user = found && (b.method === 'eap-tls' || found.username === b.username) ? { id: found.id, username: found.username } : null
      const [ids, verifiers] = await Promise.all([
        user ? d.identity.groupIdsOf(user.id, db) : ([] as string[]),
        found && user && b.method === 'peap' && found.enabled && found.network_login && found.source === 'local' ? d.identity.networkVerifiers(user.id, db) : null,
      ])
      const account: NacAccount | null =
        found && user ? { username: found.username, enabled: found.enabled, network_login: found.network_login, source: found.source, network_password: verifiers !== null, expires_at: found.expires_at ?? null } : null
      return { user, account, ids, groups: await namesOf(ids, d.identity.references.user_group) }
    })(),
    (async () => {
      const endpoint = mac ? await d.nac.findEndpointByMac(mac, db) : null
      const ids = endpoint?.endpoint_group_id ? [endpoint.endpoint_group_id] : []
      return { endpoint, ids, groups: await namesOf(ids, d.nac.references.endpoint_group) }
    })(),
    (async () => {
      if (b.nas === undefined) return { device: null, ids: [] as string[], groups: [] as Named[] }
      if (!d.inventory) throw NacErrors.testNasUnknown({ field: 'nas', vars: { nas: b.nas } })
      const found = isUuid(b.nas) ? await d.inventory.getDevice(b.nas, db) : isIP(b.nas) ? await d.inventory.findRadiusClient(b.nas, db) : null
      if (!found) throw NacErrors.testNasUnknown({ field: 'nas', vars: { nas: b.nas } })
      const ids = await d.inventory.deviceGroupIds(found.id, db)
      return { device: { id: found.id, name: found.name }, ids, groups: await namesOf(ids, d.inventory.references.device_group) }
    })(),
  ])
  const { endpoint } = e
  const at = b.time === undefined ? new Date() : new Date(b.time)
  const localTime = { day: at.getDay(), minute: at.getHours() * 60 + at.getMinutes() }
  const request: NacRequest = {
    method: b.method,
    mac,
    // A device certificate (EAP-TLS, its CN no user's) has no user.
    username: b.method === 'eap-tls' ? (u.user?.username ?? null) : (b.username ?? null),
    user_group_ids: u.ids,
    endpoint_group_ids: e.ids,
    device_type: endpoint?.device_type ?? null,
    device_group_ids: n.ids,
    certificate: b.method === 'eap-tls' ? (b.certificate ?? {}) : null,
    nas_port_type: b.nas_port_type ?? null,
    local_time: localTime,
  }
  const resolved = {
    user: u.user,
    user_groups: u.groups,
    endpoint: endpoint ? { id: endpoint.id, mac: endpoint.mac, device_type: endpoint.device_type } : null,
    mac,
    endpoint_groups: e.groups,
    device: n.device,
    device_groups: n.groups,
    local_time: localTime,
  }
  return { request, resolved, account: u.account, at }
}
