/**
 * The NAC half of the change-impact differential (test/kit/impact-differential.ts), run on the
 * 802.1X lab of e2e-8021x.test.ts (the nac plugin, aaa-logs, the real FreeRADIUS deployed through
 * the API): random MAB (radclient) and PEAP-MSCHAPv2 (eapol_test, right and wrong passwords) from
 * the lab's switch, ingested; a random edit of the NAC policy through the API (a rule moved,
 * disabled, removed or added, a profile's VLAN, an endpoint or a user moved between groups);
 * POST /api/v1/nac/policy/impact; the edit deployed and FreeRADIUS restarted on it; every distinct
 * request sent again. Compared: Access-Accept or not, and the VLAN (eapol_test shows no other
 * attribute).
 */
import { expect } from 'chai'
import type { ImpactRequest } from '../../../sdk/policy-impact.js'
import { askImpact, compareImpact, describeComparison, Traffic, waitIngested, type Answer } from '../../../test/kit/impact-differential.js'
import { created, type NacLab } from '../../radius/test/e2e-nac-lab.js'
import { mapLimit, seededRandom, type Random } from '../../tacacs/test/e2e/support.js'

const VLAN = 'Tunnel-Private-Group-Id'
const PORT_TYPES = ['Ethernet', 'Wireless-802.11'] as const

type NacSent = { method: 'mab'; mac: string; portType: string } | { method: 'peap'; mac: string; user: string; password: string }

const macHex = (mac: string) => mac.toLowerCase().replace(/[^0-9a-f]/g, '')
const nacKey = (method: string, mac: string, user: string | null) => ['nac', method, macHex(mac), method === 'mab' ? '' : (user ?? '')].join('|')
const reportNacKey = (q: ImpactRequest) => nacKey(q.method ?? '', q.mac ?? '', q.username)

async function list(lab: NacLab, p: string): Promise<any[]> {
  const r = await lab.t.admin('GET', p)
  expect(r.status, `GET ${p}: ${JSON.stringify(r.body)}`).to.equal(200)
  return Array.isArray(r.body) ? r.body : r.body.total > r.body.items.length ? (await lab.t.admin('GET', `${p}?per_page=100`)).body.items : r.body.items
}

async function ok(lab: NacLab, method: string, p: string, body?: Record<string, unknown>): Promise<void> {
  const r = await lab.t.admin(method, p, body ? { body } : {})
  expect(r.status, `${method} ${p} ${JSON.stringify(body ?? null)} → ${JSON.stringify(r.body)}`).to.be.oneOf([200, 201, 204])
}

const RULES = '/api/v1/nac/policy/rules'
const PROFILES = '/api/v1/nac/authorization-profiles'

/** One random edit of the NAC policy, through the API; answers what it did (null: nothing to do). */
const EDITS: Record<string, (lab: NacLab, r: Random, o: { endpoints: string[]; users: string[] }) => Promise<string | null>> = {
  async 'rule moved'(lab, r) {
    const rules = (await list(lab, RULES)).filter((x) => !x.is_default)
    if (rules.length < 2) return null
    const rule = r.pick(rules)
    const position = r.int(rules.length)
    await ok(lab, 'PUT', `${RULES}/${rule.id}`, { position })
    return `NAC rule ${rule.name} moved to ${position}`
  },
  async 'rule enabled or disabled'(lab, r) {
    const rules = (await list(lab, RULES)).filter((x) => !x.is_default)
    if (!rules.length) return null
    const rule = r.pick(rules)
    await ok(lab, 'PUT', `${RULES}/${rule.id}`, { enabled: !rule.enabled })
    return `NAC rule ${rule.name} ${rule.enabled ? 'disabled' : 'enabled'}`
  },
  async 'rule removed'(lab, r) {
    const rules = (await list(lab, RULES)).filter((x) => !x.is_default)
    if (!rules.length) return null
    const rule = r.pick(rules)
    await ok(lab, 'DELETE', `${RULES}/${rule.id}`)
    return `NAC rule ${rule.name} removed`
  },
  async 'rule added'(lab, r) {
    const [rules, profiles, egroups, ugroups] = await Promise.all([list(lab, RULES), list(lab, PROFILES), list(lab, '/api/v1/nac/endpoint-groups'), list(lab, '/api/v1/user-groups')])
    const usable = profiles.filter((p) => !p.portal_redirect)
    const profile = r.pick(usable.length ? usable : profiles)
    const conditions = r.bool(0.5)
      ? [{ type: 'method', methods: ['mab'] }, ...(egroups.length ? [{ type: 'endpoint_group', group_ids: [r.pick(egroups).id] }] : [])]
      : [{ type: 'method', methods: ['peap'] }, ...(ugroups.length && r.bool(0.7) ? [{ type: 'user_group', group_ids: [r.pick(ugroups).id] }] : [])]
    const name = `impact-${Date.now().toString(36)}-${r.int(1000)}`
    const position = r.int(rules.length)
    await ok(lab, 'POST', RULES, { name, conditions, authorization_profile_id: profile.id, position })
    return `NAC rule ${name} added at ${position}: ${JSON.stringify(conditions)} → ${profile.name}`
  },
  async "profile's VLAN changed"(lab, r) {
    const profiles = (await list(lab, PROFILES)).filter((p) => !p.deny && !p.portal_redirect)
    if (!profiles.length) return null
    const p = r.pick(profiles)
    const vlan = 100 + r.int(3000)
    await ok(lab, 'PUT', `${PROFILES}/${p.id}`, { vlan })
    return `profile ${p.name}: VLAN ${p.vlan} → ${vlan}`
  },
  async 'endpoint moved'(lab, r, o) {
    const groups = await list(lab, '/api/v1/nac/endpoint-groups')
    const mac = r.pick(o.endpoints)
    const e = (await list(lab, '/api/v1/nac/endpoints')).find((x) => macHex(x.mac) === macHex(mac))
    if (!e) return null
    const g = groups.length && r.bool(0.8) ? r.pick(groups) : null
    await ok(lab, 'PUT', `/api/v1/nac/endpoints/${e.id}`, { endpoint_group_id: g?.id ?? null })
    return `endpoint ${e.mac} now in ${g?.name ?? 'no group'}`
  },
  async 'user moved between groups'(lab, r, o) {
    const groups = await list(lab, '/api/v1/user-groups')
    const name = r.pick(o.users)
    const u = (await list(lab, '/api/v1/users')).find((x) => x.username === name)
    if (!u) return null
    const group_ids = r.sample(groups, r.int(2)).map((g) => g.id)
    await ok(lab, 'PUT', `/api/v1/users/${u.id}`, { group_ids })
    return `user ${name} now in ${groups.filter((g) => group_ids.includes(g.id)).map((g) => g.name).join(', ') || 'no group'}`
  },
}

export interface NacImpactOptions {
  seed: number
  /** PEAP's users and their password, and the CA file eapol_test trusts. */
  users: string[]
  password: string
  caPem: string
}

/**
 * One round. The log window is emptied first (after the lab's own tests are ingested): their
 * requests (revoked certificates, rollbacks) are not this round's to replay, and the report counts
 * every request of the window.
 */
export async function nacImpactRound(ctx: Mocha.Context, lab: NacLab, o: NacImpactOptions): Promise<void> {
  const r = seededRandom(o.seed)
  const t = lab.t
  const t0 = Date.now()
  const took: string[] = []
  const lap = (what: string) => took.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  // Endpoints of this round in random groups (or none), and MACs no endpoint has.
  const groups = await list(lab, '/api/v1/nac/endpoint-groups')
  const endpoints: string[] = []
  for (let i = 0; i < 6; i++) {
    const mac = `02:1c:${r.int(256).toString(16).padStart(2, '0')}:00:00:${(16 + i).toString(16)}`
    const g = r.bool(0.8) && groups.length ? r.pick(groups) : null
    await created(t, '/api/v1/nac/endpoints', { mac, ...(g ? { endpoint_group_id: g.id } : {}) })
    endpoints.push(mac)
  }
  // Deployed with them: the report's "before" is what the daemon answers now.
  await lab.deployThroughApi()
  await waitIngested(t, lab.logDir)
  await t.app.db.knex('aaa_log_radius_auth').delete()
  const strangers = Array.from({ length: 3 }, (_, i) => `02:1d:00:00:${r.int(256).toString(16).padStart(2, '0')}:${(32 + i).toString(16)}`)
  const portFor = new Map([...endpoints, ...strangers].map((m) => [m, r.pick(PORT_TYPES)]))
  const requests: NacSent[] = []
  for (const mac of [...endpoints, ...strangers]) for (let k = 0, n = 1 + r.int(2); k < n; k++) requests.push({ method: 'mab', mac, portType: portFor.get(mac)! })
  // PEAP: one password per (user, MAC), a fifth of them wrong.
  const seen = new Set<string>()
  for (let i = 0; i < 8; i++) {
    const user = r.pick(o.users)
    const mac = r.pick(endpoints)
    const key = nacKey('peap', mac, user)
    const wrong = r.bool(0.2)
    if (seen.has(key)) continue
    seen.add(key)
    requests.push({ method: 'peap', mac, user, password: wrong ? `Wrong-${o.password}` : o.password })
  }

  const send = async (q: NacSent): Promise<Answer> => {
    if (q.method === 'mab') {
      const a = await lab.mab(q.mac.replace(/:/g, '-').toUpperCase(), { portType: q.portType })
      expect(a.code, a.raw).to.be.oneOf(['Access-Accept', 'Access-Reject'])
      const accepted = a.code === 'Access-Accept'
      return { decision: accepted ? 'permit' : 'deny', attributes: accepted ? a.attributes.filter((x) => x.name === VLAN).map((x) => `${VLAN}=${x.value}`).sort() : [] }
    }
    const a = await lab.eapol(['eap=PEAP', `identity="${q.user}"`, `password="${q.password}"`, 'phase2="auth=MSCHAPV2"', `ca_cert="${o.caPem}"`], q.mac.replace(/:/g, '-'))
    return { decision: a.ok ? 'permit' : 'deny', attributes: a.ok && a.vlan !== null ? [`${VLAN}=${a.vlan}`] : [] }
  }
  const key = (q: NacSent) => nacKey(q.method, q.mac, q.method === 'peap' ? q.user : null)
  const traffic = new Traffic<NacSent>()
  await mapLimit(requests, 6, async (q) => {
    const a = await send(q)
    traffic.before(key(q), q, a, q.method === 'peap' && a.decision === 'deny')
  })
  await waitIngested(t, lab.logDir)
  const logged = new Set(
    (await t.app.db.knex('aaa_log_radius_auth').whereNotNull('nac_method').distinct('nac_method', 'calling_station_id', 'nac_user')).map((x) => nacKey(x.nac_method ?? '', x.calling_station_id ?? '', x.nac_user)),
  )
  const unlogged = traffic.keepLogged(logged)
  lap('sent and ingested')

  const edits: string[] = []
  for (let tries = 0, want = 2 + r.int(2); edits.length < want && tries < 20; tries++) {
    const what = await EDITS[r.pick(Object.keys(EDITS))](lab, r, { endpoints, users: o.users })
    if (what) edits.push(what)
  }
  const report = await askImpact(ctx, t, '/api/v1/nac/policy/impact')
  lap('edited and reported')
  await lab.deployThroughApi()
  lap('deployed again')
  await mapLimit([...traffic.sent.values()], 6, async (s) => traffic.after(s.key, await send(s.request)))
  lap('replayed')

  const cmp = compareImpact(report, traffic, { keyOf: reportNacKey, attributes: () => true, keep: (a) => a.name === VLAN, logged })
  expect(cmp.disagreements, `${cmp.disagreements.length} disagreements, seed ${o.seed} (NAC_IMPACT_SEED=${o.seed}); edits: ${edits.join('; ')}:\n${cmp.disagreements.slice(0, 15).join('\n')}`).to.deep.equal([])
  console.log(`      impact (seed ${o.seed}; ${edits.join('; ')}): ${describeComparison(cmp, report)}; ${unlogged} sent unlogged [${took.join(', ')}]`)
}
