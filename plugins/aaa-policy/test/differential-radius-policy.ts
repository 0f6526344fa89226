/**
 * The random policy of the RADIUS differential (differential-radius.test.ts), made through the
 * API: users from the whole accepted name alphabet (some disabled, some without network login,
 * some without a password, some with CHAP), user groups, a forest of device groups, devices in
 * nested prefixes (a wide client with a secret holding inner devices without one, disabled ones),
 * RADIUS profiles with reply attributes, and rules in random order. Also the address arithmetic
 * FreeRADIUS does to pick the client a packet came from.
 */
import { radclient, type RadclientResult } from '../../radius/test/e2e-support.js'
import type { TestApp } from '../../../test/kit/app.js'
import { created, defaultRule, randomRuleConditions, RULES, strongPassword, type Random } from '../../tacacs/test/e2e/support.js'

export interface Dev {
  id: string
  name: string
  address: string
  enabled: boolean
  secret: string | null
}
export interface User {
  id: string
  username: string
  password: string | null
}
export interface Policy {
  base: string
  devices: Dev[]
  users: User[]
}

// ---- IPv4 arithmetic ----------------------------------------------------------

const ipInt = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0)
export function contains(cidr: string, ip: string): boolean {
  const [net, len] = cidr.split('/')
  const size = 2 ** (32 - Number(len ?? 32))
  return Math.floor(ipInt(ip) / size) === Math.floor(ipInt(net) / size)
}
const prefixLength = (cidr: string) => Number(cidr.split('/')[1] ?? 32)

/** The client FreeRADIUS answers a source address as: the longest prefix among the enabled devices with a secret. */
export function radiusClientFor(p: Policy, ip: string): Dev | null {
  let best: Dev | null = null
  for (const d of p.devices) {
    if (!d.enabled || !d.secret || !contains(d.address, ip)) continue
    if (!best || prefixLength(d.address) > prefixLength(best.address)) best = d
  }
  return best
}

// ---- vocabularies -------------------------------------------------------------

const SECRET_CHARS = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter((c) => !'"\\$'.includes(c))
const randomSecret = (r: Random) => Array.from({ length: 1 + r.int(30) }, () => r.pick(SECRET_CHARS)).join('')

/** Names from the API's whole alphabet `[A-Za-z0-9._@-]`, leading punctuation included. */
const NAME_HEADS = ['', '', '', '_', '.', '-', '@', 'Mixed.']
const NAME_TAILS = ['', '', '@corp', '.adm', '-x', '_1', '@']
/** Network passwords: plain, hostile to a careless renderer or to radclient, 64 and 128 bytes. */
function randomPassword(r: Random): string {
  const roll = r.int(8)
  if (roll === 0) return `P"a\\ss %{User-Name} \${x} ' é ${strongPassword()}`
  if (roll === 1) return (strongPassword() + 'x'.repeat(64)).slice(0, 64)
  if (roll === 2) {
    const head = 'ü'.repeat(10) + strongPassword()
    return head + 'y'.repeat(128 - Buffer.byteLength(head)) // 128 bytes, the most RADIUS PAP carries
  }
  return strongPassword()
}

const GROUP_NAMES = ['Net Admins', 'ops "core"', 'helpdesk', 'x${HOME}y', 'Ünïcode grüppe', 'back\\slash', 'a,b', '# hash']
/** Reply attributes a profile may carry, as a generator of [name, value]; repeatable ones may come twice. */
const ATTRIBUTES: ((r: Random) => [string, string])[] = [
  (r) => ['Service-Type', r.pick(['Administrative-User', 'NAS-Prompt-User', 'Login-User'])],
  (r) => ['Reply-Message', r.pick(['hello', 'say "hi" {x} } # not a comment \\ end', '{User-Name} $HOME $x}', 'Grüße, 日本'])],
  (r) => ['Session-Timeout', String(1 + r.int(86400))],
  (r) => ['Idle-Timeout', String(1 + r.int(3600))],
  (r) => ['Filter-Id', r.pick(['acl-in', 'ACL "x"'])],
  (r) => ['Cisco-AVPair', r.pick(['shell:priv-lvl=15', 'shell:priv-lvl=1', 'shell:roles="network-admin"'])],
  (r) => ['Class', r.pick(['ops', '0x0102ff'])],
  (r) => ['Framed-IP-Address', `192.0.2.${1 + r.int(250)}`],
  (r) => ['Tunnel-Private-Group-Id', String(1 + r.int(4094))],
  (r) => ['HP-Privilege-Level', String(r.int(16))],
  (r) => ['Juniper-Local-User-Name', r.pick(['su', 'read-only'])],
  (r) => ['Termination-Action', r.pick(['Default', 'RADIUS-Request'])],
]
const REPEATABLE = new Set(['Reply-Message', 'Cisco-AVPair', 'Class', 'Filter-Id'])

async function tryCreate(t: TestApp, p: string, body: Record<string, unknown>): Promise<any | null> {
  const res = await t.admin('POST', p, { body })
  return res.status === 201 ? res.body : null
}

async function makeUsers(t: TestApp, r: Random, round: number, groupIds: string[]): Promise<User[]> {
  const users: User[] = []
  for (let i = 0, n = 8 + r.int(5); i < n; i++) {
    const username = `${r.pick(NAME_HEADS)}u${round}-${i}${r.pick(NAME_TAILS)}`
    const password = r.bool(0.85) ? randomPassword(r) : null
    const body = {
      username,
      enabled: r.bool(0.9),
      network_login: r.bool(0.9),
      chap_enabled: r.bool(0.5),
      group_ids: r.sample(groupIds, r.int(4)),
      ...(password ? { password } : {}),
    }
    // A combination the API refuses (say CHAP without network login) is made without CHAP.
    const u = (await tryCreate(t, '/api/v1/users', body)) ?? (await created(t, '/api/v1/users', { ...body, chap_enabled: false }))
    users.push({ id: u.id, username, password })
  }
  return users
}

/** Per slot: maybe a /24 client, maybe a /28 inside it, and /32 devices inside those; now and then a /16 over all. */
async function makeDevices(t: TestApp, r: Random, round: number, base: string, dgroupIds: string[]): Promise<Dev[]> {
  const cidrs: { address: string; secretP: number }[] = []
  if (r.bool(0.3)) cidrs.push({ address: `${base}.0.0/16`, secretP: 0.9 })
  for (let slot = 0; slot < 4; slot++) {
    if (r.bool(0.6)) cidrs.push({ address: `${base}.${slot}.0/24`, secretP: 0.85 })
    if (r.bool(0.4)) cidrs.push({ address: `${base}.${slot}.16/28`, secretP: 0.6 })
    for (const h of r.sample([2, 3, 4, 17, 18, 19], 1 + r.int(3))) cidrs.push({ address: `${base}.${slot}.${h}/32`, secretP: 0.55 })
  }
  const devices: Dev[] = []
  let n = 0
  for (const { address, secretP } of cidrs) {
    const secret = r.bool(secretP) ? randomSecret(r) : null
    const enabled = r.bool(0.85)
    const group = r.bool(0.75) ? r.pick(dgroupIds) : null
    const d = await created(t, '/api/v1/devices', {
      name: `rd${round}-${n++}`,
      address,
      enabled,
      ...(secret ? { radius_secret: secret } : {}),
      ...(group ? { device_group_id: group } : {}),
    })
    devices.push({ id: d.id, name: d.name, address: d.address, enabled, secret })
  }
  return devices
}

async function makeProfiles(t: TestApp, r: Random, round: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0, n = 2 + r.int(3); i < n; i++) {
    const attributes: { name: string; value: string }[] = []
    const seen = new Set<string>()
    for (let k = 0, m = r.int(6); k < m; k++) {
      const [name, value] = r.pick(ATTRIBUTES)(r)
      if (seen.has(name) && !REPEATABLE.has(name)) continue
      seen.add(name)
      attributes.push({ name, value })
    }
    ids.push((await created(t, '/api/v1/radius/profiles', { name: `rp${round}-${i}`, attributes })).id)
  }
  return ids
}

/** A random policy, made through the API. */
export async function buildRadiusPolicy(t: TestApp, r: Random, round: number): Promise<Policy> {
  const base = `127.${60 + round}`
  const groupIds: string[] = []
  for (const name of r.sample(GROUP_NAMES, 2 + r.int(4))) groupIds.push((await created(t, '/api/v1/user-groups', { name })).id)
  const users = await makeUsers(t, r, round, groupIds)

  const dgroupIds: string[] = []
  for (let i = 0, n = 3 + r.int(3); i < n; i++) {
    const parent = dgroupIds.length && r.bool(0.6) ? r.pick(dgroupIds) : null
    dgroupIds.push((await created(t, '/api/v1/device-groups', { name: `rdg${round}-${i}`, ...(parent ? { parent_id: parent } : {}) })).id)
  }
  const devices = await makeDevices(t, r, round, base, dgroupIds)
  const profiles = await makeProfiles(t, r, round)

  // Rules: WHO user or group, WHERE device or group, some disabled, some without a RADIUS profile, at random positions;
  // some with conditions (rule-conditions below).
  for (let i = 0, n = 8 + r.int(10); i < n; i++) {
    const who = r.bool(0.5) ? { user_id: r.pick(users).id } : { group_id: r.pick(groupIds) }
    const where = r.bool(0.5) ? { device_id: r.pick(devices).id } : { device_group_id: r.pick(dgroupIds) }
    const count = (await t.admin('GET', RULES)).body.length
    await created(t, RULES, {
      name: `rrule${round}-${i}`,
      who,
      where,
      enabled: r.bool(0.85),
      radius_profile_id: r.bool(0.8) ? r.pick(profiles) : null,
      position: r.int(count),
      ...ruleConditions(r, base, devices),
    })
  }
  // The default rule (WHO any, WHERE any): a profile or none, and now and then disabled (refused or not: either is a policy).
  const def = await defaultRule(t)
  await t.admin('PUT', `${RULES}/${def.id}`, { body: { radius_profile_id: r.bool(0.7) ? r.pick(profiles) : null } })
  if (r.bool(0.1)) await t.admin('PUT', `${RULES}/${def.id}`, { body: { enabled: false } })
  return { base, devices, users }
}

/** Client prefixes a rule may get: a device's own prefix, a /24 or /28 of the base, an address, the whole base. */
function ruleConditions(r: Random, base: string, devices: Dev[]): Record<string, unknown> {
  const slot = r.int(4)
  return randomRuleConditions(r, [`${base}.0.0/16`, `${base}.${slot}.0/24`, `${base}.${slot}.16/28`, `${base}.${slot}.${r.pick([2, 3, 17])}`, r.pick(devices).address])
}

/**
 * One Access-Request through radclient (e2e-support's `radclient`) with waits chosen by whether an
 * answer is due: a packet from an unknown client is never answered; a reject comes after
 * reject_delay, 1 s. A known client's request is retransmitted as a NAS would (the daemon answers a
 * duplicate from its cache): on a busy machine a reject after the delay can take more than 2 s, and
 * on the embedded engine the daemon's calls back to the platform wait for queries that share the test
 * process's event loop. A known client waits up to 3 × 5 s: the test asserts the answer, not its time.
 */
export const radclientAuth = (port: number, secret: string, pairs: string[], expectAnswer: boolean): Promise<RadclientResult> =>
  radclient(port, 'auth', secret, pairs, expectAnswer ? ['-r', '3', '-t', '5'] : ['-r', '1', '-t', '1.5'])
