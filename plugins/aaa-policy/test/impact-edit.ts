/**
 * A random edit of the AAA policy for the change-impact differentials (TACACS+ and RADIUS): what an
 * administrator changes before pressing Deploy, made through the API. Each edit says what it did,
 * so a failing seed reads as a story. Nothing here touches what decides whether a request reaches
 * the daemon at all (device addresses, keys, secrets, enabled devices): a request the daemon drops
 * leaves no log line, and the report replays the logs.
 */
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import type { Random } from '../../tacacs/test/e2e/support.js'

const RULES = '/api/v1/aaa/policy/rules'

async function list(t: TestApp, p: string): Promise<any[]> {
  let r = await t.admin('GET', p)
  expect(r.status, `GET ${p}: ${JSON.stringify(r.body)}`).to.equal(200)
  if (Array.isArray(r.body)) return r.body
  // A paginated list: the differentials' policies hold far fewer than a hundred of anything.
  if (r.body.total > r.body.items.length) r = await t.admin('GET', `${p}?per_page=100`)
  expect(r.status, `GET ${p}: ${JSON.stringify(r.body)}`).to.equal(200)
  return r.body.items
}

/** The policy's users: network users (the test kit's administrator is not one, and must keep its access). */
const networkUsers = async (t: TestApp) => (await list(t, '/api/v1/users')).filter((u) => u.network_login && !u.is_admin)

async function ok(t: TestApp, method: string, p: string, body?: Record<string, unknown>): Promise<void> {
  const r = await t.admin(method, p, body ? { body } : {})
  expect(r.status, `${method} ${p} ${JSON.stringify(body ?? null)} → ${JSON.stringify(r.body)}`).to.be.oneOf([200, 201, 204])
}

type Protocol = 'tacacs' | 'radius'
type Edit = (t: TestApp, r: Random, p: Protocol) => Promise<string | null>

const nonDefault = async (t: TestApp) => (await list(t, RULES)).filter((x) => !x.is_default)
const profileField = (p: Protocol) => (p === 'tacacs' ? 'tacacs_profile_id' : 'radius_profile_id')
const profilesPath = (p: Protocol) => (p === 'tacacs' ? '/api/v1/tacacs/profiles' : '/api/v1/radius/profiles')

const EDITS: Record<string, Edit> = {
  async 'rule moved'(t, r) {
    const rules = await nonDefault(t)
    if (rules.length < 2) return null
    const rule = r.pick(rules)
    const position = r.int(rules.length)
    await ok(t, 'PUT', `${RULES}/${rule.id}`, { position })
    return `rule ${rule.name} moved to position ${position}`
  },
  async 'rule enabled or disabled'(t, r) {
    const rules = await nonDefault(t)
    if (!rules.length) return null
    const rule = r.pick(rules)
    await ok(t, 'PUT', `${RULES}/${rule.id}`, { enabled: !rule.enabled })
    return `rule ${rule.name} ${rule.enabled ? 'disabled' : 'enabled'}`
  },
  async 'rule removed'(t, r) {
    const rules = await nonDefault(t)
    if (!rules.length) return null
    const rule = r.pick(rules)
    await ok(t, 'DELETE', `${RULES}/${rule.id}`)
    return `rule ${rule.name} removed`
  },
  async 'rule added'(t, r, p) {
    const [rules, users, groups, devices, dgroups, profiles] = await Promise.all([
      list(t, RULES), networkUsers(t), list(t, '/api/v1/user-groups'), list(t, '/api/v1/devices'), list(t, '/api/v1/device-groups'), list(t, profilesPath(p)),
    ])
    const who = groups.length && r.bool(0.5) ? { group_id: r.pick(groups).id } : { user_id: r.pick(users).id }
    const where = dgroups.length && r.bool(0.5) ? { device_group_id: r.pick(dgroups).id } : { device_id: r.pick(devices).id }
    const profile = profiles.length && r.bool(0.8) ? r.pick(profiles) : null
    const name = `impact-${Date.now().toString(36)}-${r.int(1000)}`
    const position = r.int(rules.length)
    await ok(t, 'POST', RULES, { name, who, where, [profileField(p)]: profile?.id ?? null, position })
    return `rule ${name} added at ${position}: ${JSON.stringify(who)} on ${JSON.stringify(where)}, profile ${profile?.name ?? 'none'}`
  },
  async "rule's profile changed"(t, r, p) {
    const [rules, profiles] = await Promise.all([list(t, RULES), list(t, profilesPath(p))])
    const rule = r.pick(rules)
    const profile = profiles.length && r.bool(0.8) ? r.pick(profiles) : null
    await ok(t, 'PUT', `${RULES}/${rule.id}`, { [profileField(p)]: profile?.id ?? null })
    return `rule ${rule.name} now grants ${profile?.name ?? 'no profile'}`
  },
  async 'profile changed'(t, r, p) {
    const profiles = await list(t, profilesPath(p))
    if (!profiles.length) return null
    const profile = r.pick(profiles)
    if (p === 'tacacs') {
      if (r.bool(0.6)) {
        const privilege_level = r.int(16)
        await ok(t, 'PUT', `${profilesPath(p)}/${profile.id}`, { privilege_level })
        return `profile ${profile.name}: priv-lvl ${profile.privilege_level} → ${privilege_level}`
      }
      const default_action = profile.default_action === 'permit' ? 'deny' : 'permit'
      await ok(t, 'PUT', `${profilesPath(p)}/${profile.id}`, { default_action })
      return `profile ${profile.name}: commands no set names are now ${default_action === 'permit' ? 'permitted' : 'denied'}`
    }
    // RADIUS: a VLAN or a session timeout set, changed or removed.
    const kept = (profile.attributes as { name: string; value: string }[]).filter((a) => a.name !== 'Session-Timeout' && a.name !== 'Tunnel-Private-Group-Id').map((a) => ({ name: a.name, value: a.value }))
    const extra = r.bool(0.5) ? [{ name: 'Tunnel-Private-Group-Id', value: String(1 + r.int(4094)) }] : r.bool(0.6) ? [{ name: 'Session-Timeout', value: String(60 + r.int(3600)) }] : []
    await ok(t, 'PUT', `${profilesPath(p)}/${profile.id}`, { attributes: [...kept, ...extra] })
    return `profile ${profile.name}: attributes now ${JSON.stringify([...kept, ...extra])}`
  },
  async 'command set line changed'(t, r, p) {
    if (p !== 'tacacs') return null
    const sets = await list(t, '/api/v1/tacacs/command-sets')
    if (!sets.length) return null
    const got = await t.admin('GET', `/api/v1/tacacs/command-sets/${r.pick(sets).id}`)
    expect(got.status).to.equal(200)
    const set = got.body
    const commands = (set.commands as any[]).map((c) => ({ command: c.command, action: c.action, arguments: (c.arguments ?? []).map((a: any) => ({ match_type: a.match_type, value: a.value })) }))
    if (!commands.length) return null
    const i = r.int(commands.length)
    const before = `${commands[i].action} ${commands[i].command}`
    if (r.bool(0.5)) commands[i].action = commands[i].action === 'permit' ? 'deny' : 'permit'
    else commands.splice(i, 1)
    await ok(t, 'PUT', `/api/v1/tacacs/command-sets/${set.id}`, { commands })
    return `command set ${set.name}: line ${i} (${before}) ${commands.length === set.commands.length ? `now ${commands[i].action}` : 'removed'}`
  },
  async 'user moved between groups'(t, r) {
    const [users, groups] = await Promise.all([networkUsers(t), list(t, '/api/v1/user-groups')])
    if (!groups.length) return null
    const user = r.pick(users)
    const group_ids = r.sample(groups, r.int(3)).map((g) => g.id)
    await ok(t, 'PUT', `/api/v1/users/${user.id}`, { group_ids })
    return `user ${user.username} now in ${groups.filter((g) => group_ids.includes(g.id)).map((g) => g.name).join(', ') || 'no group'}`
  },
  async "device's group changed"(t, r) {
    const [devices, dgroups] = await Promise.all([list(t, '/api/v1/devices'), list(t, '/api/v1/device-groups')])
    const device = r.pick(devices)
    const group = dgroups.length && r.bool(0.8) ? r.pick(dgroups) : null
    await ok(t, 'PUT', `/api/v1/devices/${device.id}`, { device_group_id: group?.id ?? null })
    return `device ${device.name} now in ${group?.name ?? 'no group'}`
  },
  async 'user disabled'(t, r) {
    const users = (await networkUsers(t)).filter((u) => u.enabled)
    if (!users.length) return null
    const user = r.pick(users)
    await ok(t, 'PUT', `/api/v1/users/${user.id}`, { enabled: false })
    return `user ${user.username} disabled`
  },
}

/** Two to four random edits (one alone often changes nothing the traffic asks); answers what was done, in words. */
export async function randomPolicyEdit(t: TestApp, r: Random, protocol: Protocol): Promise<string[]> {
  const done: string[] = []
  const want = 2 + r.int(3)
  for (let tries = 0; done.length < want && tries < 20; tries++) {
    const what = await EDITS[r.pick(Object.keys(EDITS))](t, r, protocol)
    if (what) done.push(what)
  }
  return done
}
