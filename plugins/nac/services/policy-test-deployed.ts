/**
 * The NAC policy test `against: deployed`: the simulated request resolved on what the active
 * FreeRADIUS release was built from (its kept nac-policy-inputs.json, services/impact-inputs.ts)
 * instead of the database, so an edit not yet deployed does not count. The change impact links each
 * change to it. The names shown (groups, the user's and the endpoint's ids) are read from the
 * database now: the release keeps ids only.
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { CompiledNacPolicy, NacCondition, NacRequest } from '../../../sdk/index.js'
import { macError, NacErrors } from '../errors.js'
import type { NacInputs } from './impact-inputs.js'
import { ImpactSide } from './impact-side.js'
import { parseMac } from './mac.js'
import type { PolicyTestDeps, PolicyTestInput } from './policy-test.js'
import { isUuid } from './rows.js'

type Named = { id: string; name: string }

/** The kept policy with the groups' names of now (a group deleted since: its id). */
async function withNames(policy: CompiledNacPolicy, d: PolicyTestDeps, db: Knex): Promise<{ policy: CompiledNacPolicy; names: Map<string, string> }> {
  const ids = { user_group: new Set<string>(), endpoint_group: new Set<string>(), device_group: new Set<string>() }
  for (const r of policy.rules) for (const c of r.conditions) if (c.type === 'user_group' || c.type === 'endpoint_group' || c.type === 'device_group') for (const g of c.groups) ids[c.type].add(g.id)
  return { policy, names: await namesOf(ids, d, db) }
}

async function namesOf(ids: Record<'user_group' | 'endpoint_group' | 'device_group', Set<string>>, d: PolicyTestDeps, db: Knex): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const targets = { user_group: d.identity.references.user_group, endpoint_group: d.nac.references.endpoint_group, device_group: d.inventory?.references.device_group }
  for (const k of ['user_group', 'endpoint_group', 'device_group'] as const) {
    const list = [...ids[k]]
    const t = targets[k]
    if (list.length && t) for (const [id, name] of await t.names(list, db)) names.set(id.toLowerCase(), name)
  }
  return names
}

const name = (names: Map<string, string>, id: string) => names.get(id.toLowerCase()) ?? id
const renamed = (c: NacCondition, names: Map<string, string>): NacCondition =>
  c.type === 'user_group' || c.type === 'endpoint_group' || c.type === 'device_group' ? { ...c, groups: c.groups.map((g) => ({ id: g.id, name: name(names, g.id) })) } : c

/** As resolveTestRequest (services/policy-test.ts), on the kept inputs. */
export async function resolveDeployedTestRequest(inputs: NacInputs, d: PolicyTestDeps, b: PolicyTestInput, db: Knex) {
  let mac: string | null = null
  if (b.mac !== undefined) {
    const parsed = parseMac(b.mac)
    if (!parsed.ok) throw macError(parsed.reason)({ field: 'mac' })
    mac = parsed.mac
  }
  const side = new ImpactSide(inputs)
  let client: NacInputs['clients'][number] | null = null
  const nas = b.nas
  if (nas !== undefined) {
    client = isUuid(nas) ? (inputs.clients.find((c) => c.id === nas.toLowerCase()) ?? null) : isIP(nas) ? side.clientFor(nas) : null
    if (!client) throw NacErrors.testNasUnknown({ field: 'nas', vars: { nas } })
  }
  const r = side.resolve(b.method, b.method === 'mab' ? null : (b.username ?? null), mac, null, b.nas_port_type ?? null, null)
  const at = b.time === undefined ? new Date() : new Date(b.time)
  const localTime = { day: at.getDay(), minute: at.getHours() * 60 + at.getMinutes() }
  const { policy, names: policyNames } = await withNames(inputs.policy, d, db)
  const deviceGroupIds = client?.device_group_ids ?? []
  const names = await namesOf({ user_group: new Set(r.user_group_ids), endpoint_group: new Set(r.endpoint_group_ids), device_group: new Set(deviceGroupIds) }, d, db)
  for (const [k, v] of policyNames) names.set(k, v)
  const named = (ids: readonly string[]): Named[] => ids.map((id) => ({ id, name: name(names, id) }))
  // The ids of the user and the endpoint as they are now (kept by name and MAC only).
  const [user, endpoint] = await Promise.all([r.account ? d.identity.findUser({ username: r.account.username }, db) : null, mac ? d.nac.findEndpointByMac(mac, db) : null])
  const request: NacRequest = {
    method: b.method,
    mac,
    username: b.method === 'eap-tls' ? (r.account?.username ?? null) : (b.username ?? null),
    user_group_ids: r.user_group_ids,
    endpoint_group_ids: r.endpoint_group_ids,
    device_type: r.device_type,
    device_group_ids: deviceGroupIds,
    certificate: b.method === 'eap-tls' ? (b.certificate ?? {}) : null,
    nas_port_type: b.nas_port_type ?? null,
    local_time: localTime,
  }
  const resolved = {
    user: user && r.account ? { id: user.id, username: r.account.username } : null,
    user_groups: named(r.user_group_ids),
    endpoint: endpoint && mac && inputs.endpoints.some((e) => e.mac === mac) ? { id: endpoint.id, mac, device_type: r.device_type } : null,
    mac,
    endpoint_groups: named(r.endpoint_group_ids),
    device: client ? { id: client.id, name: client.name } : null,
    device_groups: named(deviceGroupIds),
    local_time: localTime,
  }
  return { request, resolved, account: r.account, at, policy: { rules: policy.rules.map((x) => ({ ...x, conditions: x.conditions.map((c) => renamed(c, names)) })), default: policy.default } }
}
