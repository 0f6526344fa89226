/**
 * What FreeRADIUS decides an 802.1X or MAB request from, kept with every release for the change
 * impact (`POST /nac/policy/impact`): a renderer for the freeradius daemon (`nac.freeradius`)
 * writes `nac-policy-inputs.json` from the very snapshot the tree is rendered from, so the
 * deployed side of the impact is what the active release was built from, and a rollback brings
 * its inputs back with it. It mirrors the files the tree looks up (plugins/radius/renderers/nac-*.ts):
 *
 *   the compiled policy          portcullis/nac-policy (group names left out: the tree compares ids only)
 *   endpoints                    portcullis/nac-endpoints (groups and device type by canonical MAC)
 *   users, refused               portcullis/nac-users and the inner tunnel's verifiers (whether a
 *                                network password is held, never the password; the expiry)
 *   clients                      clients.conf and portcullis/nac-clients (the enabled devices with a
 *                                RADIUS secret, their device groups with ancestors)
 *
 * No secret is kept. Timestamps are left out and every list is in a fixed order, so a change put
 * back renders identically and is not pending (kernel/deploy/pending.ts). The pending side of the
 * impact is the same function over the database now.
 */
import type { Knex } from 'knex'
import type { CompiledNacPolicy, ConfigRenderer, IdentityService, NacCondition, NacPolicySource } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { NacAccount } from './account.js'

export const NAC_INPUTS_FILE = 'nac-policy-inputs.json'
export const FREERADIUS = 'freeradius'

type Db = Knex | Knex.Transaction

export interface NacInputs {
  format: 1
  policy: CompiledNacPolicy
  endpoints: { mac: string; endpoint_group_ids: string[]; device_type: string | null }[]
  /** The network users as the tree knows them: groups, whether PEAP can check a password, the expiry. */
  users: { username: string; group_ids: string[]; network_password: boolean; directory?: true; expires_at?: string }[]
  /** The other users, refused by name. */
  refused: { username: string; reason: 'disabled' | 'network_login_off' }[]
  /** The RADIUS clients the tree is given (the address is a prefix), with their device groups, ancestors included. */
  clients: { id: string; name: string; address: string; device_group_ids: string[] }[]
}

export interface NacInputsDeps {
  identity: IdentityService
  inventory: InventoryService | undefined
  source: Pick<NacPolicySource, 'compile' | 'endpoints'>
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The compiled policy without the groups' names: the tree compares ids, and a rename is no change to deploy. */
function idsOnly(c: NacCondition): NacCondition {
  if (c.type === 'user_group' || c.type === 'endpoint_group' || c.type === 'device_group') return { ...c, groups: c.groups.map((g) => ({ id: g.id, name: '' })) }
  return c
}

/** Everything the NAC part of the tree decides from, read through `db` (a render's snapshot, or the route's transaction). */
export async function takeNacInputs(db: Db, d: NacInputsDeps): Promise<NacInputs> {
  // One after another: a transaction is one connection.
  const policy = await d.source.compile(db)
  const endpoints = await d.source.endpoints(db)
  const network = await d.identity.networkUsers(db)
  const refused = await d.identity.networkLoginRefusals(db)
  const devices = d.inventory ? await d.inventory.listDevices(db) : []
  const groups = d.inventory ? await d.inventory.listGroups(db) : []
  const parent = new Map(groups.map((g) => [g.id, g.parent_id]))
  const ancestry = (start: string | null) => {
    const out: string[] = []
    for (let g = start; g && parent.has(g) && !out.includes(g); g = parent.get(g) ?? null) out.push(g)
    return out
  }
  const seen = new Set<string>()
  return {
    format: 1,
    policy: {
      rules: policy.rules.map((r) => ({ ...r, conditions: r.conditions.map(idsOnly) })),
      default: policy.default,
    },
    // As renderers/nac-lookup.ts: the first entry of a MAC counts.
    endpoints: [...endpoints]
      .sort((a, b) => byteOrder(a.mac, b.mac))
      .filter((e) => !seen.has(e.mac) && seen.add(e.mac))
      .map((e) => ({ mac: e.mac, endpoint_group_ids: [...new Set(e.endpoint_group_ids)].sort(byteOrder), device_type: e.device_type })),
    users: network
      .map((u) => ({
        username: u.username,
        group_ids: [...new Set(u.group_ids)].sort(byteOrder),
        network_password: u.verifiers !== null,
        ...(u.source === 'directory' ? { directory: true as const } : {}),
        ...(u.expires_at ? { expires_at: u.expires_at } : {}),
      }))
      .sort((a, b) => byteOrder(a.username, b.username)),
    refused: refused.map((r) => ({ username: r.username, reason: r.reason })).sort((a, b) => byteOrder(a.username, b.username)),
    // renderers/policy.ts writtenClients: enabled, with a RADIUS secret.
    clients: devices
      .filter((x) => x.enabled && x.has_radius_secret)
      .map((x) => ({ id: x.id, name: x.name, address: x.address, device_group_ids: ancestry(x.device_group_id) }))
      .sort((a, b) => byteOrder(a.name, b.name) || byteOrder(a.id, b.id)),
  }
}

/** One record a line: the dry run's diff names the records that changed, and the file stays compact. */
export function serializeNacInputs(inputs: NacInputs): string {
  const lines = Object.entries(inputs).map(([k, v]) =>
    Array.isArray(v) ? `${JSON.stringify(k)}: [${v.length ? '\n' + v.map((x) => JSON.stringify(x)).join(',\n') + '\n' : ''}]` : `${JSON.stringify(k)}: ${JSON.stringify(v)}`,
  )
  return `{\n${lines.join(',\n')}\n}\n`
}

export function nacInputsRenderer(d: NacInputsDeps): ConfigRenderer {
  return {
    id: `nac.${FREERADIUS}`,
    daemon: FREERADIUS,
    render: async (snapshot) => [{ path: NAC_INPUTS_FILE, content: serializeNacInputs(await takeNacInputs(snapshot, d)), mode: 0o600 }],
  }
}

/** The kept inputs of a release file, or null when they are not ours to read (another format, unparsable). */
export function parseNacInputs(content: string): NacInputs | null {
  try {
    const v = JSON.parse(content) as NacInputs
    return v && v.format === 1 && v.policy && Array.isArray(v.policy.rules) && Array.isArray(v.users) && Array.isArray(v.clients) && Array.isArray(v.endpoints) ? v : null
  } catch {
    return null
  }
}

/** A user's account as services/account.ts reads it, from the kept inputs. */
export function accountOf(u: NacInputs['users'][number]): NacAccount {
  return { username: u.username, enabled: true, network_login: true, source: u.directory ? 'directory' : 'local', network_password: u.network_password, expires_at: u.expires_at ?? null }
}

export function refusedAccountOf(r: NacInputs['refused'][number]): NacAccount {
  return { username: r.username, enabled: r.reason !== 'disabled', network_login: r.reason !== 'network_login_off', source: 'local', network_password: false, expires_at: null }
}
