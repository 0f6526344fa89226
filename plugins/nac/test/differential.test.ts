/**
 * The differential test of the NAC policy: random compiled policies, each rendered into the
 * FreeRADIUS tree and deployed to the real daemon, asked random MAB (radclient) and PEAP
 * (eapol_test) questions; every answer (accept with its VLAN, or reject) must be what
 * `evaluateNacPolicy` says for the same request. The policy test route answers with that same
 * function, so this is the proof that the policy test tells what the deployed daemon does.
 *
 * (EAP-TLS too, with certificates the PKI issued.) Every account state 802.1X refuses or lets in is
 * asked in turn: PEAP's unknown, disabled, network-login-off, expired and password-less users, and
 * EAP-TLS certificates naming such users (in another case too) or no user (a device's); a user whose name holds
 * "_" and "@"; every accept carries an octets Class holding a backslash and a quote, compared on MAB. Seeded: a failure prints the seed;
 * `NAC_DIFF_SEED=<n>` replays it, `NAC_DIFF_POLICIES` sets how many policies (11 requests each).
 * The default is 9 in the PostgreSQL run and 17 in the embedded one: `npm test` runs this file once per
 * engine with its own seed, so a whole run asks 26 random policies. The PostgreSQL run is the suite's
 * longest (it alone has the Patroni tests), so the embedded run takes the larger share (the daemon, not
 * the engine, is under test here; the engine only holds the fixtures).
 */
import { appendFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { CompiledNacPolicy, CompiledNacRule, NacAuthorization, NacCondition, NacMethod, NacRequest } from '../../../sdk/index.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { createCa, createTemplate, eapTemplateId } from '../../pki/test/helpers.js'
import { has, radclient, rcString } from '../../radius/test/e2e-support.js'
import { created, NacLab, SECRET } from '../../radius/test/e2e-nac-lab.js'
import { setTestNac } from '../../radius/test/fixtures/nac-source/index.js'
import { accountRefusal, type NacAccount } from '../services/account.js'
import { evaluateNacPolicy } from '../services/evaluate.js'

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  const some = <T>(xs: readonly T[]): T[] => {
    const out = xs.filter(() => next() < 0.4)
    return out.length ? out : [pick(xs)]
  }
  return { next, int, pick, some }
}
type Rng = ReturnType<typeof rng>

const PASSWORD = 'Diff-Secret-123-xyz'
const PORT_TYPES = ['Ethernet', 'Wireless-802.11', 'Virtual'] as const
const DEVICE_TYPES = ['printer', 'ip-phone', 'camera'] as const

/** A user as the daemon and the policy test see it: groups, and the account (null: no such user). */
interface Person {
  username: string
  groupIds: string[]
  account: NacAccount | null
}

interface World {
  userGroups: { id: string; name: string }[]
  users: Person[]
  /** Every account state 802.1X refuses or lets in (issue 26 finding 1): PEAP asks each in turn. */
  peapUsers: Person[]
  /** EAP-TLS certificates of the platform CA, in turn: a user's (each account state, CN in another case too) and a device's (CN no user). */
  certificates: { cn: string; person: Person | null; file: string; key: string }[]
  endpointGroups: { id: string; name: string }[]
  endpoints: { mac: string; endpoint_group_ids: string[]; device_type: string | null }[]
  deviceGroups: { id: string; name: string }[]
  /** The groups of the one switch (127.0.0.1) every request comes from. */
  switchGroupIds: string[]
  /**
   * ann's client certificate (EAP-TLS): issued by the platform CA (an issuing CA under a root, its CN holding
   * every printable special character, "+" and "/" among them), two SAN e-mail addresses (issue 26).
   */
  certificate: { file: string; key: string; issuer_cn: string; san_email: string[] }
}

const authorization = (r: Rng, i: number): NacAuthorization =>
  r.next() < 0.2
    ? { profile_id: `deny-${i}`, profile_name: `deny-${i}`, deny: true, reply: [] }
    : {
        profile_id: `p-${i}`,
        profile_name: `vlan-${i}`,
        deny: false,
        reply: [
          { attribute: 'Tunnel-Type', value: 'VLAN' },
          { attribute: 'Tunnel-Medium-Type', value: 'IEEE-802' },
          { attribute: 'Tunnel-Private-Group-Id', value: String(100 + i) },
          // An octets value holding a backslash and a quote reaches the NAS as the bytes configured (issue 26, finding 8).
          { attribute: 'Class', value: `ou=vlan-${i}\\lab "q"` },
        ],
      }

/** A window holding all week, or none of today (never at the minute of the test): time is a condition the daemon reads from its clock. */
function timeWindow(r: Rng): NacCondition {
  const today = new Date().getDay()
  if (r.next() < 0.5) return { type: 'time_window', window: { label: 'always', spans: [{ days: [0, 1, 2, 3, 4, 5, 6], from: 0, to: 1440 }] } }
  const days = [0, 1, 2, 3, 4, 5, 6].filter((d) => d !== today)
  return { type: 'time_window', window: { label: 'not today', spans: [{ days, from: 0, to: 1440 }] } }
}

function condition(r: Rng, w: World): NacCondition {
  switch (r.int(9)) {
    case 0:
      return { type: 'method', methods: r.some<NacMethod>(['mab', 'peap', 'eap-tls']) }
    case 1:
      return { type: 'user_group', groups: r.some(w.userGroups) }
    case 2:
      return { type: 'endpoint_group', groups: r.some(w.endpointGroups) }
    case 3:
      return { type: 'device_type', device_types: r.some(DEVICE_TYPES) }
    case 4:
      return { type: 'device_group', groups: r.some(w.deviceGroups) }
    case 5:
      return { type: 'nas_port_type', values: r.some(PORT_TYPES) }
    case 6:
      return timeWindow(r)
    case 7:
      return r.next() < 0.5
        ? { type: 'certificate', field: 'issuer_cn', values: r.some([w.certificate.issuer_cn.toUpperCase(), 'Some Other CA', 'Differential Root']) }
        : { type: 'certificate', field: 'san_email', values: r.some([...w.certificate.san_email.map((e) => e.toUpperCase()), 'bob@example.net']) }
    default:
      return { type: 'method', methods: [r.pick<NacMethod>(['mab', 'peap', 'eap-tls'])] }
  }
}

function randomPolicy(r: Rng, w: World): CompiledNacPolicy {
  const rules: CompiledNacRule[] = Array.from({ length: 1 + r.int(10) }, (_, i) => ({
    id: `r${i + 1}`,
    name: `rule-${i + 1}`,
    position: i + 1,
    // Mostly one or two conditions: a rule with none takes everything, and the rules after it would never be asked about.
    conditions: Array.from({ length: r.next() < 0.05 ? 0 : 1 + r.int(2) }, () => condition(r, w)),
    authorization: authorization(r, i + 1),
  }))
  return { rules, default: { id: 'r0', name: 'default', authorization: authorization(r, 0) } }
}

interface Question {
  request: NacRequest
  account: NacAccount | null
  /** The daemon's answer; `cls`: the Class it sent, as hex (MAB only: eapol_test does not print it). */
  ask: () => Promise<{ accept: boolean; vlan: string | null; cls?: string | null }>
}

function questions(r: Rng, w: World, lab: NacLab, caPem: string, turn: number): Question[] {
  const now = new Date()
  const local_time = { day: now.getDay(), minute: now.getHours() * 60 + now.getMinutes() }
  const out: Question[] = []
  const unknownMac = `02:00:00:00:${r.int(256).toString(16).padStart(2, '0')}:01`
  for (let i = 0; i < 8; i++) {
    const e = r.next() < 0.8 ? r.pick(w.endpoints) : { mac: unknownMac, endpoint_group_ids: [], device_type: null }
    const portType = r.next() < 0.85 ? r.pick(PORT_TYPES) : null
    const user = e.mac.replace(/:/g, '')
    out.push({
      request: { method: 'mab', mac: e.mac, username: null, user_group_ids: [], endpoint_group_ids: e.endpoint_group_ids, device_type: e.device_type, device_group_ids: w.switchGroupIds, certificate: null, nas_port_type: portType, local_time },
      account: null,
      async ask() {
        const pairs = [`User-Name = ${rcString(user)}`, `User-Password = ${rcString(user)}`, `Calling-Station-Id = ${rcString(e.mac.replace(/:/g, '-').toUpperCase())}`, 'Service-Type = Call-Check', 'Message-Authenticator = 0x00']
        if (portType) pairs.push(`NAS-Port-Type = ${portType}`)
        const a = await radclient(lab.port, 'auth', SECRET, pairs)
        expect(a.code, a.raw).to.be.oneOf(['Access-Accept', 'Access-Reject'])
        return { accept: a.code === 'Access-Accept', vlan: a.attributes.find((x) => x.name === 'Tunnel-Private-Group-Id')?.value ?? null, cls: a.attributes.find((x) => x.name === 'Class')?.value.toLowerCase() ?? null }
      },
    })
  }
  for (let i = 0; i < 2; i++) {
    // In turn (from a seeded start), so that every account state is asked over the run.
    const u = w.peapUsers[(turn * 2 + i) % w.peapUsers.length]
    const e = r.pick(w.endpoints)
    out.push({
      // eapol_test sends NAS-Port-Type Ethernet (-N 61:d:15 in the lab) and the MAC as Calling-Station-Id.
      request: { method: 'peap', mac: e.mac, username: u.username, user_group_ids: u.groupIds, endpoint_group_ids: e.endpoint_group_ids, device_type: e.device_type, device_group_ids: w.switchGroupIds, certificate: null, nas_port_type: 'Ethernet', local_time },
      account: u.account,
      async ask() {
        const a = await lab.eapol(['eap=PEAP', `identity="${u.username}"`, `password="${PASSWORD}"`, 'phase2="auth=MSCHAPV2"', `ca_cert="${caPem}"`], e.mac.replace(/:/g, '-'))
        return { accept: a.ok, vlan: a.vlan }
      },
    })
  }
  {
    // EAP-TLS: the certificate's CN names its user in any case (ann's has the SAN e-mail); a CN naming no user is a device's: no user.
    const e = r.pick(w.endpoints)
    const c = w.certificate
    const t = w.certificates[turn % w.certificates.length]
    const cert = t.cn === 'ann' ? { issuer_cn: c.issuer_cn, san_email: c.san_email } : { issuer_cn: c.issuer_cn }
    out.push({
      request: { method: 'eap-tls', mac: e.mac, username: t.person?.username ?? null, user_group_ids: t.person?.groupIds ?? [], endpoint_group_ids: e.endpoint_group_ids, device_type: e.device_type, device_group_ids: w.switchGroupIds, certificate: cert, nas_port_type: 'Ethernet', local_time },
      account: t.person?.account ?? null,
      async ask() {
        const a = await lab.eapol(['eap=TLS', `identity="${t.cn}"`, `client_cert="${t.file}"`, `private_key="${t.key}"`, `ca_cert="${caPem}"`], e.mac.replace(/:/g, '-'))
        return { accept: a.ok, vlan: a.vlan }
      },
    })
  }
  return out
}

describe('nac: the policy test and the deployed FreeRADIUS agree (differential, random policies)', function () {
  this.timeout(900_000)
  let lab: NacLab
  let world: World
  let caPem: string

  before(async function () {
    if (!has('freeradius') || !has('radclient') || !has('eapol_test') || !has('openssl')) skipBecause(this, 'FreeRADIUS 3.2, radclient, eapol_test and openssl are needed (Debian: freeradius, freeradius-utils, eapoltest, openssl)')
    lab = await NacLab.open()
    const t = lab.t
    const ug = [await created(t, '/api/v1/user-groups', { name: 'staff' }), await created(t, '/api/v1/user-groups', { name: 'contractors' }), await created(t, '/api/v1/user-groups', { name: 'lab' })]
    const account = (username: string, o: Partial<NacAccount> = {}): NacAccount => ({ username, enabled: true, network_login: true, source: 'local', network_password: true, expires_at: null, ...o })
    const person = (username: string, groupIds: string[], o: Partial<NacAccount> = {}): Person => ({ username, groupIds, account: account(username, o) })
    const expiredAt = new Date(Date.now() - 3600_000).toISOString()
    const laterAt = new Date(Date.now() + 30 * 86400_000).toISOString()
    // j_doe@corp.example: a valid username with "_" and "@" is a PEAP identity and an EAP-TLS CN like any other (issue 26, finding 6).
    const users = [person('ann', [ug[0].id]), person('ben', [ug[1].id, ug[2].id]), person('cat', []), person('j_doe@corp.example', [ug[2].id])]
    // The account states (issue 26 finding 1): each is in staff, so that a policy naming staff would let it in were the state ignored.
    const states = [
      person('dora', [ug[0].id], { enabled: false }),
      person('nell', [ug[0].id], { network_login: false }),
      person('olaf', [ug[0].id], { expires_at: expiredAt }),
      person('nopw', [ug[0].id], { network_password: false }),
      person('fred', [ug[0].id], { expires_at: laterAt }),
    ]
    for (const u of [...users, ...states]) {
      const a = u.account!
      const made = await created(t, '/api/v1/users', { username: u.username, ...(a.network_password ? { password: PASSWORD } : {}), network_login: true, group_ids: u.groupIds, expires_at: a.expires_at })
      if (!a.enabled || !a.network_login) expect((await t.admin('PUT', `/api/v1/users/${made.id}`, { body: { enabled: a.enabled, network_login: a.network_login } })).status).to.equal(200)
    }
    const mallory: Person = { username: 'mallory', groupIds: [], account: null }
    const access = await created(t, '/api/v1/device-groups', { name: 'access' })
    const core = await created(t, '/api/v1/device-groups', { name: 'core' })
    await created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: access.id, radius_secret: SECRET })
    const root = await createCa(t, { subject: { CN: 'Differential Root', O: 'Portcullis Test' } })
    const issuerCn = 'Diff R+D/Lab "q" \\ $% \'{}~!#&()*,-.:;<=>?@[]^_`| CA'
    const ca = await createCa(t, { parent_id: root.id, subject: { CN: issuerCn, O: 'Portcullis Test' } })
    caPem = path.join(lab.s.dir, lab.s.put('ca.pem', root.certificate))
    expect((await t.admin('PUT', '/api/v1/settings/pki.freeradius_ca_id', { body: { value: ca.id } })).status).to.equal(200)
    const server = await lab.issue(ca.id, await eapTemplateId(t), '/CN=radius.example.net', 'DNS:radius.example.net')
    lab.s.put('server.pem', server.cert.certificate)
    lab.s.ok(['x509', '-in', 'server.pem', '-out', lab.certFile])
    // The server's chain (the issuing CA) after its certificate: the supplicant trusts the root.
    appendFileSync(lab.certFile, ca.certificate)
    lab.s.ok(['pkey', '-in', server.key, '-out', lab.keyFile])
    const userTemplate = await createTemplate(t, { name_patterns: ['*'], subject_attributes: ['CN'], san_types: ['email'] })
    // Each client sends its chain (the issuing CA after its certificate): the server trusts the named CA alone.
    const client = await lab.issue(ca.id, userTemplate.id, '/CN=ann', 'email:ann@example.net,email:ann.second@example.net')
    const clientFile = path.join(lab.s.dir, lab.s.put('ann.pem', client.cert.certificate + ca.certificate))
    const certificates: World['certificates'] = [{ cn: 'ann', person: users[0], file: clientFile, key: client.key }]
    for (const [cn, p] of [['DORA', states[0]], ['nell', states[1]], ['olaf', states[2]], ['nopw', states[3]], ['Fred', states[4]], ['J_Doe@Corp.example', users[3]], ['printer-9.example', null]] as const) {
      const c = await lab.issue(ca.id, userTemplate.id, `/CN=${cn}`)
      certificates.push({ cn, person: p, file: path.join(lab.s.dir, lab.s.put(`${cn}.pem`, c.cert.certificate + ca.certificate)), key: c.key })
    }
    const eg = [
      { id: 'aaaaaaaa-0000-4000-8000-0000000000e1', name: 'printers' },
      { id: 'aaaaaaaa-0000-4000-8000-0000000000e2', name: 'phones' },
    ]
    world = {
      userGroups: ug.map((g) => ({ id: g.id, name: g.name })),
      users,
      peapUsers: [...users, ...states, mallory],
      certificates,
      endpointGroups: eg,
      endpoints: [
        { mac: '00:11:22:33:44:01', endpoint_group_ids: [eg[0].id], device_type: 'printer' },
        { mac: '00:11:22:33:44:02', endpoint_group_ids: [eg[1].id], device_type: 'ip-phone' },
        { mac: '00:11:22:33:44:03', endpoint_group_ids: [eg[0].id, eg[1].id], device_type: null },
        { mac: '00:11:22:33:44:04', endpoint_group_ids: [], device_type: 'camera' },
      ],
      deviceGroups: [
        { id: access.id, name: 'access' },
        { id: core.id, name: 'core' },
      ],
      switchGroupIds: [access.id],
      certificate: { file: clientFile, key: client.key, issuer_cn: issuerCn, san_email: ['ann@example.net', 'ann.second@example.net'] },
    }
  })
  after(async () => lab?.close())

  it('no disagreement over random policies and requests', async () => {
    const seed = Number(process.env.NAC_DIFF_SEED ?? Date.now() % 1_000_000)
    const count = Number(process.env.NAC_DIFF_POLICIES ?? (process.env.TEST_ENGINE === 'postgres' ? 9 : 17))
    const r = rng(seed)
    let asked = 0
    let turn = r.int(100)
    for (let p = 0; p < count; p++) {
      const policy = randomPolicy(r, world)
      setTestNac(policy, world.endpoints)
      await lab.deploy()
      for (const q of questions(r, world, lab, caPem, turn++)) {
        // What the policy test answers: refused before the policy, or the policy's decision.
        const refused = accountRefusal(q.request.method, q.request.username ?? null, q.account, new Date())
        const want = refused ? { decision: 'reject', reply: [], rule: { name: `refused: ${refused.reason}` } } : evaluateNacPolicy(policy, q.request)
        const got = await q.ask()
        const wantVlan = want.decision === 'accept' ? (want.reply.find((a) => a.attribute === 'Tunnel-Private-Group-Id')?.value ?? null) : null
        const where = `seed ${seed}, policy ${p}: ${JSON.stringify(policy)}\nrequest ${JSON.stringify(q.request)} account ${JSON.stringify(q.account)}\nthe policy test: ${want.rule.name} (${want.decision})`
        expect({ accept: got.accept, vlan: got.vlan }, where).to.deep.equal({ accept: want.decision === 'accept', vlan: wantVlan })
        if (got.cls !== undefined) {
          const cls = want.decision === 'accept' ? want.reply.find((a) => a.attribute === 'Class')?.value : undefined
          expect(got.cls, where).to.equal(cls === undefined ? null : `0x${Buffer.from(cls, 'utf8').toString('hex')}`)
        }
        asked++
      }
    }
    expect(asked).to.equal(count * 11)
  })
})
