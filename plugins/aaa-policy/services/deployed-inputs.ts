/**
 * The policy test's inputs, kept with every release: a renderer per daemon (`aaa-policy.<daemon>`)
 * writes `policy-test-inputs.json` into the release from the very snapshot the daemon's own
 * files are rendered from, so `against: deployed` answers what the active release was built from
 * (and a rollback brings its inputs back with it).
 *
 * No secret is kept: users carry whether the daemon holds a verifier for them (and whether CHAP
 * can be checked), never a verifier; devices carry has_tacacs_key / has_radius_secret. Timestamps
 * are left out, so a change put back renders identically and is not pending (kernel/deploy/pending.ts).
 */
import { isIP } from 'node:net'
import type { Knex } from 'knex'
import type { ConfigRenderer, IdentityService, NetworkLoginRefusal, SettingsService } from '../../../sdk/index.js'
import type { Device, DeviceGroup, InventoryService } from '../../inventory/api.js'
import type { RadiusProfile, RadiusService } from '../../radius/api.js'
import type { CommandSet, TacacsProfile, TacacsService } from '../../tacacs/api.js'
import type { PolicyRuleView } from '../api.js'
import { directoryLogin, loginMaterialOf, tacacsLockoutOn, type LoginMaterial, type PolicyData, type PolicyUser } from './policy-data.js'

export const POLICY_INPUTS_FILE = 'policy-test-inputs.json'
/** The daemon each protocol's plugin renders for (plugins/tacacs and plugins/radius renderers). */
export const DAEMON_OF = { tacacs: 'tac_plus-ng', radius: 'freeradius' } as const
export type Protocol = keyof typeof DAEMON_OF

type Db = Knex | Knex.Transaction
type NoTimes<T> = Omit<T, 'created_at' | 'updated_at'>
type KeptDevice = Pick<Device, 'id' | 'name' | 'address' | 'enabled' | 'device_group_id' | 'has_tacacs_key' | 'has_radius_secret'>

export interface PolicyInputs {
  format: 1
  protocol: Protocol
  /** The enabled users with network login: group ids, and what the daemon checks a login with (null: nothing). */
  users: { id: string; username: string; group_ids: string[]; login: LoginMaterial | null; expires_at?: string }[]
  /** Every other user, for RADIUS only: FreeRADIUS is given them to refuse by name; tac_plus-ng does not know them (unknown user). */
  refused: NetworkLoginRefusal[]
  /** What the test reads of a device (not its vendor, model or description). */
  devices: KeptDevice[]
  device_groups: Pick<DeviceGroup, 'id' | 'parent_id'>[]
  rules: NoTimes<PolicyRuleView>[]
  tacacs_profiles: NoTimes<TacacsProfile>[]
  command_sets: NoTimes<CommandSet>[]
  radius_profiles: NoTimes<RadiusProfile>[]
}

export interface InputsDeps {
  identity: IdentityService
  inventory: InventoryService
  tacacs: TacacsService | undefined
  radius: RadiusService | undefined
  /** Reads identity.lockout_threshold: tac_plus-ng gets no CHAP while the lockout is on; absent: off. */
  settings?: SettingsService
  listRules(db: Db): Promise<readonly PolicyRuleView[]>
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The reads both daemons' inputs share, once per render snapshot: a deploy renders every daemon in
 * one transaction, and the network users (one verifier decrypt each) are the expensive part.
 */
const shared = new WeakMap<Knex.Transaction, Promise<Shared>>()
type Shared = Awaited<ReturnType<typeof readShared>>

async function readShared(db: Knex.Transaction, d: InputsDeps) {
  // One after another: a transaction is one connection.
  const network = await d.identity.networkUsers(db)
  const refused = await d.identity.networkLoginRefusals(db)
  const devices = await d.inventory.listDevices(db)
  const groups = await d.inventory.listGroups(db)
  const rules = await d.listRules(db)
  return { network, refused, devices, groups, rules }
}

/** Everything the policy test reads, through the render's snapshot. */
export async function takePolicyInputs(db: Knex.Transaction, d: InputsDeps, protocol: Protocol): Promise<PolicyInputs> {
  let once = shared.get(db)
  if (!once) shared.set(db, (once = readShared(db, d)))
  const { network, devices, groups, rules, ...rest } = await once
  const refused = protocol === 'radius' ? rest.refused : []
  const tacacsProfiles = protocol === 'tacacs' && d.tacacs ? await d.tacacs.listProfiles(db) : []
  const commandSets = protocol === 'tacacs' && d.tacacs ? await d.tacacs.listCommandSets(db) : []
  const radiusProfiles = protocol === 'radius' && d.radius ? await d.radius.listProfiles(db) : []
  const tacacsLockout = protocol === 'tacacs' && (await tacacsLockoutOn(d.settings, db))
  const directory = network.some((u) => !u.verifiers && u.source === 'directory') ? await directoryLogin(d.settings, db) : null
  return {
    format: 1,
    protocol,
    users: network
      .map((u) => ({
        id: u.id,
        username: u.username,
        group_ids: [...u.group_ids].sort(),
        login: u.verifiers ? loginMaterialOf(u.verifiers, tacacsLockout) : u.source === 'directory' ? directory : null,
        // Only when set: a release rendered before expiry existed reads the same.
        ...(u.expires_at ? { expires_at: u.expires_at } : {}),
      }))
      .sort((a, b) => byteOrder(a.username, b.username)),
    refused: [...refused].sort((a, b) => byteOrder(a.username, b.username)),
    devices: devices
      .map(({ id, name, address, enabled, device_group_id, has_tacacs_key, has_radius_secret }) => ({ id, name, address, enabled, device_group_id, has_tacacs_key, has_radius_secret }))
      .sort((a, b) => byteOrder(a.id, b.id)),
    device_groups: groups.map((g) => ({ id: g.id, parent_id: g.parent_id })).sort((a, b) => byteOrder(a.id, b.id)),
    rules: [...rules],
    tacacs_profiles: [...tacacsProfiles].sort((a, b) => byteOrder(a.id, b.id)),
    command_sets: [...commandSets].sort((a, b) => byteOrder(a.id, b.id)),
    radius_profiles: [...radiusProfiles].sort((a, b) => byteOrder(a.id, b.id)),
  }
}

const noTimes = (k: string, v: unknown) => (k === 'created_at' || k === 'updated_at' ? undefined : v)

/**
 * Timestamps out (an edit put back must render byte for byte as before); one record a line, so
 * the dry run's diff names the records that changed and the file stays compact (20,000 users
 * and 10,000 devices: a few MiB).
 */
function serialize(inputs: PolicyInputs): string {
  const lines = Object.entries(inputs).map(([k, v]) =>
    Array.isArray(v) ? `${JSON.stringify(k)}: [${v.length ? '\n' + v.map((x) => JSON.stringify(x, noTimes)).join(',\n') + '\n' : ''}]` : `${JSON.stringify(k)}: ${JSON.stringify(v)}`,
  )
  return `{\n${lines.join(',\n')}\n}\n`
}

export function policyInputsRenderer(protocol: Protocol, d: InputsDeps): ConfigRenderer {
  return {
    id: `aaa-policy.${DAEMON_OF[protocol]}`,
    daemon: DAEMON_OF[protocol],
    render: async (snapshot) => [{ path: POLICY_INPUTS_FILE, content: serialize(await takePolicyInputs(snapshot, d, protocol)), mode: 0o600 }],
  }
}

/** A mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 one, as the inventory reads it. */
const host = (ip: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip

/**
 * The policy test's data from a release's inputs. Prefix lookups run in PostgreSQL over the kept
 * device list (the same `>>=` and `masklen` the inventory uses), through the route's transaction.
 */
export function snapshotPolicyData(inputs: PolicyInputs, d: Pick<InputsDeps, 'identity' | 'tacacs'>, db: Knex.Transaction): PolicyData {
  const times = { created_at: '', updated_at: '' }
  const devices = new Map(inputs.devices.map((x): [string, Device] => [x.id, { ...x, vendor: null, model: null, description: null, ...times }]))
  const parent = new Map(inputs.device_groups.map((g) => [g.id, g.parent_id]))
  const users = new Map(inputs.users.map((u) => [u.username.toLowerCase(), u]))
  const byId = new Map(inputs.users.map((u) => [u.id, u]))
  const refused = new Map(inputs.refused.map((r) => [r.username.toLowerCase(), r]))
  const tacacs = new Map(inputs.tacacs_profiles.map((p) => [p.id, { ...p, ...times } as TacacsProfile]))
  const sets = new Map(inputs.command_sets.map((s) => [s.id, { ...s, ...times } as CommandSet]))
  const radius = new Map(inputs.radius_profiles.map((p) => [p.id, { ...p, ...times } as RadiusProfile]))
  const rules = inputs.rules.map((r) => ({ ...r, ...times }) as PolicyRuleView)

  const longestPrefix = async (address: string, radiusOnly: boolean): Promise<Device | null> => {
    const a = host(address)
    if (!isIP(a.split('/')[0])) return null
    const list = [...devices.values()].filter((x) => x.enabled && (!radiusOnly || x.has_radius_secret)).map((x) => ({ id: x.id, address: x.address }))
    if (!list.length) return null
    const r = await db.raw<{ rows: { id: string }[] }>(
      'select x.id from jsonb_to_recordset(?::jsonb) as x(id text, address text) where x.address::inet >>= ?::inet order by masklen(x.address::inet) desc limit 1',
      [JSON.stringify(list), a],
    )
    return r.rows[0] ? devices.get(r.rows[0].id)! : null
  }

  return {
    async findUser(username) {
      const u = users.get(username.toLowerCase())
      if (u) return { id: u.id, username: u.username, enabled: true, network_login: true, expires_at: u.expires_at ?? null }
      const r = refused.get(username.toLowerCase())
      if (!r) return null
      // Refused users are kept by name: the id is the account's now (gone since: unknown, refused all the same).
      const now = await d.identity.findUser({ username: r.username }, db)
      return now ? { id: now.id, username: r.username, enabled: r.reason !== 'disabled', network_login: r.reason !== 'network_login_off' } : null
    },
    loginMaterial: async (userId) => byId.get(userId)?.login ?? null,
    groupIdsOf: async (userId) => byId.get(userId)?.group_ids ?? [],
    getDevice: async (id) => devices.get(id) ?? null,
    findDeviceByAddress: (ip) => longestPrefix(ip, false),
    findRadiusClient: (address) => longestPrefix(address, true),
    async deviceGroupIds(deviceId) {
      const out: string[] = []
      for (let g = devices.get(deviceId)?.device_group_id ?? null; g && parent.has(g) && !out.includes(g); g = parent.get(g) ?? null) out.push(g)
      return out
    },
    listRules: async () => rules,
    tacacsProfile: async (id) => tacacs.get(id) ?? null,
    async authorizeCommand(profile, line, privLvl, say) {
      const list = profile.command_set_ids.map((id) => sets.get(id)).filter((s): s is CommandSet => s !== undefined)
      return d.tacacs!.decideCommand(profile, list, line, privLvl, say)
    },
    radiusProfile: async (id) => radius.get(id) ?? null,
  }
}

/** The kept inputs of a release file, or null when they are not ours to read (another format, unparsable). */
export function parsePolicyInputs(content: string): PolicyInputs | null {
  try {
    const v = JSON.parse(content) as PolicyInputs
    return v && v.format === 1 && Array.isArray(v.users) && Array.isArray(v.rules) ? v : null
  } catch {
    return null
  }
}

export type { PolicyUser }
