/**
 * Differential test: random policies made through the API, rendered, run in
 * the real tac_plus-ng, then many random requests (user × source address ×
 * command) asked both of the daemon (over TACACS+, from the device's address
 * on loopback) and of POST /api/v1/aaa/policy/test. The two must decide alike:
 * exec start (and its priv-lvl and attributes), each command, and, for a
 * bounded sample, the login itself (PAP, ASCII, CHAP, MS-CHAPv2; some users
 * have chap_enabled).
 *
 * Replay a run with TACACS_DIFF_SEED=<seed> (printed on failure); size it with
 * TACACS_DIFF_ROUNDS (policies, default 2) and TACACS_DIFF_REQUESTS (requests
 * per policy, default 120). KEEP_TAC_PLUS_NG_DIR=1 keeps the rendered folder.
 * Skips without TAC_PLUS_NG.
 *
 * Then, in the PostgreSQL run, the change-impact differential (issue 33) on the same daemon: the
 * traffic above (and refused logins) ingested from the daemon's logs by aaa-logs, the policy deployed,
 * a random edit, POST /api/v1/aaa/policy/impact, the edit deployed and the daemon restarted on it,
 * every distinct request sent again: the report's flips and attribute changes must be exactly the
 * daemon's (test/kit/impact-differential.ts).
 */
import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import type { TestApp } from '../../../../test/kit/app.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary } from '../../../../test/kit/tac-plus-ng.js'
import { TacacsClient } from '../../client/index.js'
import { created, defaultRule, mapLimit, randomRuleConditions, RULES, renderAndRun, seededRandom, startAaaApp, strongPassword, type DaemonRun, type Random } from './support.js'
import { skipBecause } from '../../../../test/kit/skip.js'
import { runsOn } from '../../../../test/kit/app.js'
import { askImpact, compareImpact, describeComparison, Traffic, waitIngested } from '../../../../test/kit/impact-differential.js'
import { randomPolicyEdit } from '../../../aaa-policy/test/impact-edit.js'
import { deployTacacs, loggedTacEvents, loggedTacKeys, reportTacKey, restartTac, sendTac, tacAttributesCompared, tacKey, type LoginMethod, type TacRequest } from './impact-support.js'

const SEED = Number(process.env.TACACS_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31))
const ROUNDS = Number(process.env.TACACS_DIFF_ROUNDS ?? 2)
const REQUESTS = Number(process.env.TACACS_DIFF_REQUESTS ?? 120)
/** Failed logins are answered after about a second: keep their number bounded, and run them side by side. */
const LOGINS = Number(process.env.TACACS_DIFF_LOGINS ?? 24)
/** The change-impact rounds: the daemon's half of the proof, in the PostgreSQL run only (the engine holds nothing the daemon decides). */
const IMPACT = runsOn('postgres')
/** How many of the rounds go on to the change-impact replay (each adds some 8 s: two deploys, the refused logins' delay, the replay). */
const IMPACT_ROUNDS = Number(process.env.TACACS_IMPACT_ROUNDS ?? 1)
/** Logins with a wrong password added to the traffic: the report must count them unreplayable, never guess. */
const WRONG_LOGINS = Number(process.env.TACACS_DIFF_WRONG_LOGINS ?? 8)

// ---- IPv4 arithmetic for the device choice the daemon makes ----------------

const ipInt = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0)
function contains(cidr: string, ip: string): boolean {
  const [net, len] = cidr.split('/')
  const size = 2 ** (32 - Number(len))
  return Math.floor(ipInt(ip) / size) === Math.floor(ipInt(net) / size)
}

// ---- vocabularies -------------------------------------------------------------

const KEY_CHARS = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => !'"\\$'.includes(c))
const randomKey = (r: Random) => {
  const n = 1 + r.int(24)
  let k = ''
  for (let i = 0; i < n; i++) k += r.pick(KEY_CHARS)
  k = k.trim()
  return k.length ? k : 'k'
}
const GROUP_NAMES = ['Net Admins', 'ops "core"', 'helpdesk', 'ug:lookalike', 'x${HOME}y', 'Ünïcode grüppe', 'back\\slash', 'permit', 'a,b', '# hash']
const COMMAND_WORDS = ['show', 'show ip', 'configure terminal', 'ping', 'traceroute', 'interface', 'reload', 'write memory', 'copy', 'debug']
const EXACT_ARGS = ['running-config', 'version', '127.0.0.1', 'all', 'route']
const PREFIX_ARGS = ['run', 'ip r', '10.', 'gi', 'start']
const REGEX_ARGS = ['gi[0-9]+', 'vlan [0-9]{1,4}', '(run|start)[a-z-]*', '[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+']
const REQUEST_LINES = [
  ['show'],
  ['show', 'running-config'],
  ['SHOW', 'Running-Config'],
  ['show', 'version'],
  ['show', 'ip', 'route'],
  ['show', 'startup-config'],
  ['configure', 'terminal'],
  ['configure', 'terminal', 'now'],
  ['ping', '127.0.0.1'],
  ['ping', '10.20.30.40'],
  ['ping', '8.8.8.8'],
  ['ping'],
  ['traceroute', '10.1.1.1'],
  ['interface', 'gi0'],
  ['interface', 'Gi12'],
  ['interface', 'vlan', '12'],
  ['reload'],
  ['reload', 'in', '5'],
  ['write', 'memory'],
  ['copy', 'run', 'start'],
  ['debug', 'all'],
  ['showrun'],
]

interface Dev {
  id: string
  name: string
  address: string
  enabled: boolean
  key: string | null
}
interface User {
  id: string
  username: string
  password: string | null
  enabled: boolean
  network_login: boolean
}
interface Policy {
  base: string
  devices: Dev[]
  users: User[]
}

async function tryCreate(t: TestApp, p: string, body: Record<string, unknown>): Promise<any | null> {
  const r = await t.admin('POST', p, { body })
  return r.status === 201 ? r.body : null
}

/** Client prefixes a rule may get: the base's /16, a /24 of it, an address, a device's own. */
function ruleConditions(r: Random, base: string, devices: Dev[]): Record<string, unknown> {
  const slot = r.int(5)
  return randomRuleConditions(r, [`${base}.0.0/16`, `${base}.${slot}.0/24`, `${base}.${slot}.${r.pick([2, 3, 4])}`, r.pick(devices).address])
}

/** A random policy, made through the API. */
async function buildPolicy(t: TestApp, r: Random, round: number): Promise<Policy> {
  const base = `127.${40 + round}`
  // User groups with names that need care in the configuration.
  const userGroups: any[] = []
  for (const name of r.sample(GROUP_NAMES, 3 + r.int(4))) userGroups.push(await created(t, '/api/v1/user-groups', { name }))

  // Users: mostly network users with a password; some disabled, some without network login or password.
  const users: User[] = []
  const nUsers = 6 + r.int(4)
  for (let i = 0; i < nUsers; i++) {
    const username = r.bool(0.2) ? `Mixed.Case${i}@corp` : `u${round}-${i}`
    const enabled = r.bool(0.9)
    const network_login = r.bool(0.9)
    const password = r.bool(0.88) ? strongPassword() : null
    // CHAP on for some: tac_plus-ng then gets the kept password for CHAP and MS-CHAP.
    const chap_enabled = password !== null && r.bool(0.4)
    const group_ids = r.sample(userGroups, r.int(4)).map((g) => g.id)
    const u = await created(t, '/api/v1/users', { username, enabled, network_login, group_ids, ...(password ? { password, chap_enabled } : {}) })
    users.push({ id: u.id, username, password, enabled, network_login })
  }

  // Device groups: a random forest.
  const dgroups: any[] = []
  const nGroups = 3 + r.int(3)
  for (let i = 0; i < nGroups; i++) {
    const parent = dgroups.length && r.bool(0.6) ? r.pick(dgroups) : null
    dgroups.push(await created(t, '/api/v1/device-groups', { name: `dg${round}-${i}`, ...(parent ? { parent_id: parent.id } : {}) }))
  }

  // Devices: per /24 slot, maybe a /24 device and some /32 devices inside it.
  const devices: Dev[] = []
  let n = 0
  for (let slot = 0; slot < 5; slot++) {
    const cidrs: string[] = []
    if (r.bool(0.5)) cidrs.push(`${base}.${slot}.0/24`)
    for (const h of r.sample([2, 3, 4, 5, 6, 7], 1 + r.int(3))) cidrs.push(`${base}.${slot}.${h}/32`)
    for (const address of cidrs) {
      const key = r.bool(0.85) ? randomKey(r) : null
      const enabled = r.bool(0.88)
      const group = r.bool(0.75) ? r.pick(dgroups) : null
      const d = await created(t, '/api/v1/devices', {
        name: `sw${round}-${n++}`,
        address,
        enabled,
        ...(key ? { tacacs_key: key } : {}),
        ...(group ? { device_group_id: group.id } : {}),
      })
      devices.push({ id: d.id, name: d.name, address: d.address, enabled, key })
    }
  }

  // Command sets of random entries; a regex the validator refuses is left out.
  const sets: any[] = []
  for (let i = 0, nSets = 2 + r.int(3); i < nSets; i++) {
    const commands = Array.from({ length: 1 + r.int(6) }, () => {
      const args = r.bool(0.45)
        ? Array.from({ length: 1 + r.int(2) }, () => {
            const type = r.pick(['exact', 'prefix', 'regex'] as const)
            return { match_type: type, value: r.pick(type === 'exact' ? EXACT_ARGS : type === 'prefix' ? PREFIX_ARGS : REGEX_ARGS) }
          })
        : []
      return { command: r.pick(COMMAND_WORDS), action: r.pick(['permit', 'deny'] as const), arguments: args }
    })
    const set =
      (await tryCreate(t, '/api/v1/tacacs/command-sets', { name: `cs${round}-${i}`, commands })) ??
      (await created(t, '/api/v1/tacacs/command-sets', { name: `cs${round}-${i}`, commands: commands.map((c) => ({ ...c, arguments: c.arguments.filter((a) => a.match_type !== 'regex') })) }))
    sets.push(set)
  }

  const profiles: any[] = []
  for (let i = 0, nProfiles = 2 + r.int(3); i < nProfiles; i++) {
    profiles.push(
      await created(t, '/api/v1/tacacs/profiles', {
        name: `tp${round}-${i}`,
        privilege_level: r.int(16),
        shell_attributes: r.bool(0.4) ? [{ name: 'idletime', value: String(1 + r.int(60)) }] : [],
        command_set_ids: r.sample(sets, r.int(sets.length + 1)).map((s) => s.id),
        default_action: r.pick(['permit', 'deny'] as const),
      }),
    )
  }

  // Rules: random WHO × WHERE, some without a profile, some disabled, at random positions.
  for (let i = 0, nRules = 6 + r.int(8); i < nRules; i++) {
    const who = r.bool(0.5) ? { user_id: r.pick(users).id } : { group_id: r.pick(userGroups).id }
    const where = r.bool(0.5) ? { device_id: r.pick(devices).id } : { device_group_id: r.pick(dgroups).id }
    const count = (await t.admin('GET', RULES)).body.length
    await created(t, RULES, {
      name: `rule${round}-${i}`,
      who,
      where,
      enabled: r.bool(0.85),
      tacacs_profile_id: r.bool(0.75) ? r.pick(profiles).id : null,
      position: r.int(count),
      ...ruleConditions(r, base, devices),
    })
  }
  const def = await defaultRule(t)
  const defBody: Record<string, unknown> = { tacacs_profile_id: r.bool(0.5) ? r.pick(profiles).id : null }
  const upd = await t.admin('PUT', `${RULES}/${def.id}`, { body: defBody })
  expect(upd.status, JSON.stringify(upd.body)).to.equal(200)
  if (r.bool(0.2)) await t.admin('PUT', `${RULES}/${def.id}`, { body: { enabled: false } }) // refused or not: either is a policy

  return { base, devices, users }
}

const flipCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')

/** The device the daemon takes a client address for: the enabled device with the longest prefix containing it. */
function deviceFor(p: Policy, ip: string): Dev | null {
  let best: Dev | null = null
  for (const d of p.devices) {
    if (!d.enabled || !contains(d.address, ip)) continue
    if (!best || Number(d.address.split('/')[1]) > Number(best.address.split('/')[1])) best = d
  }
  return best
}

interface Mismatch {
  what: string
  user: string
  from: string
  command?: string
  daemon: unknown
  policy: unknown
}

describe('tacacs differential: tac_plus-ng and POST /aaa/policy/test decide alike', function () {
  before(function () {
    if (!tacPlusNgBinary()) {
      console.log(`      skipped: ${TAC_PLUS_NG_SKIP}`)
      this.skip()
    }
  })

  for (let round = 0; round < ROUNDS; round++) {
    describe(`random policy ${round + 1} of ${ROUNDS} (seed ${SEED})`, function () {
      let t: TestApp
      let run: DaemonRun
      let policy: Policy
      const r = seededRandom(SEED + round * 7919)
      /** Every distinct request sent and the daemon's answer, for the change-impact replay. */
      const traffic = new Traffic<TacRequest>()
      const impact = IMPACT && round < IMPACT_ROUNDS

      before(async function () {
        // A server, a random policy, a render and the daemon's start: over 30 s on a busy machine (a limit, not a timing assertion).
        this.timeout(180_000)
        if (!tacPlusNgBinary()) skipBecause(this, TAC_PLUS_NG_SKIP)
        t = await startAaaApp({ logs: impact })
        policy = await buildPolicy(t, r, round)
        run = await renderAndRun(t)
      })
      after(async () => {
        await run?.stop()
        await t?.stop()
      })

      const policyTest = async (username: string, ip: string, command?: string, method?: string) => {
        const res = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username, nas_ip: ip, ...(command ? { command } : {}), ...(method ? { method } : {}) } })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        return res.body
      }

      /** A source address: a device's own, somewhere in a device's prefix, or one no device has. */
      const randomSource = (): string => {
        // Mostly devices the daemon knows (enabled, with a key), so that plenty of requests get past the client check.
        const known = policy.devices.filter((d) => d.enabled && d.key)
        const d = known.length && r.bool(0.7) ? r.pick(known) : r.pick(policy.devices)
        const roll = r.next()
        if (roll < 0.08) return `${policy.base}.200.${1 + r.int(250)}`
        if (d.address.endsWith('/32')) return d.address.slice(0, -3)
        return d.address.replace(/\.0\/24$/, `.${1 + r.int(254)}`)
      }
      /** A user's name; now and then one no user has, or a user's name in other case (the daemon compares names exactly). */
      const randomUser = (): string => {
        const roll = r.next()
        if (roll < 0.05) return 'nobody-here'
        const name = r.pick(policy.users).username
        return roll < 0.1 ? flipCase(name) : name
      }
      const clientFor = (ip: string) => {
        const d = deviceFor(policy, ip)
        return new TacacsClient({ host: '127.0.0.1', port: run.daemon.port, key: d?.key ?? 'not-the-key', localAddress: ip, timeoutMs: 8000 })
      }
      const failMessage = (mismatches: Mismatch[], total: number) =>
        `${mismatches.length} of ${total} decisions differ (replay: TACACS_DIFF_SEED=${SEED} KEEP_TAC_PLUS_NG_DIR=1; config ${run.configFile}):\n` +
        mismatches
          .slice(0, 15)
          .map((m) => JSON.stringify(m))
          .join('\n')

      it('exec start and commands: same verdict, same priv-lvl and attributes', async () => {
        const requests = Array.from({ length: REQUESTS }, () => ({ user: randomUser(), ip: randomSource(), line: r.pick(REQUEST_LINES) }))
        const mismatches: Mismatch[] = []
        let permits = 0
        let commandPermits = 0
        await mapLimit(requests, 8, async ({ user, ip, line }) => {
          const c = clientFor(ip)
          const command = line.join(' ')
          const [exec, cmd, sim] = await Promise.all([
            c.authorize(user, { cmd: '' }).catch((e: Error) => ({ permitted: false, args: [] as string[], status: `error: ${e.message}` })),
            c.authorize(user, { cmd: line[0], args: [...line.slice(1), '<cr>'] }).catch((e: Error) => ({ permitted: false, args: [] as string[], status: `error: ${e.message}` })),
            policyTest(user, ip, command),
          ])
          // A client the daemon has no key for is dropped unlogged: no request the report could replay.
          if (deviceFor(policy, ip)?.key) traffic.before(tacKey({ kind: 'session', user, ip }), { kind: 'session', user, ip }, { decision: exec.permitted ? 'permit' : 'deny', attributes: exec.permitted ? [...exec.args].sort() : [] })
          if (deviceFor(policy, ip)?.key) traffic.before(tacKey({ kind: 'command', user, ip, line }), { kind: 'command', user, ip, line }, { decision: cmd.permitted ? 'permit' : 'deny', attributes: null })
          const policyExec = sim.decision === 'permit'
          if (exec.permitted !== policyExec) mismatches.push({ what: 'exec', user, from: ip, daemon: exec, policy: { decision: sim.decision, reason: sim.reason } })
          else if (policyExec) {
            permits++
            const want = sim.attributes.map((a: any) => `${a.name}=${a.value}`).sort()
            const got = [...exec.args].sort()
            if (JSON.stringify(want) !== JSON.stringify(got)) mismatches.push({ what: 'exec attributes', user, from: ip, daemon: got, policy: want })
          }
          const policyCmd = policyExec && sim.command_decision?.decision === 'permit'
          if (policyCmd) commandPermits++
          if (cmd.permitted !== policyCmd)
            mismatches.push({ what: 'command', user, from: ip, command, daemon: cmd, policy: { decision: sim.decision, command: sim.command_decision, reason: sim.reason } })
        })
        expect(mismatches, failMessage(mismatches, requests.length * 2)).to.deep.equal([])
        // A policy that permits nothing would prove little: say how much was permitted.
        console.log(`      ${requests.length} requests: ${permits} exec permitted, ${commandPermits} commands permitted`)
      })

      it('login (ASCII, PAP, CHAP and MS-CHAPv2, right password): passes exactly where the policy test with that method permits', async () => {
        const withPassword = policy.users.filter((u) => u.password)
        const methods = ['pap', 'ascii', 'chap', 'mschapv2'] as const
        const sample = Array.from({ length: LOGINS }, () => ({ u: r.pick(withPassword), ip: randomSource(), method: r.pick(methods) }))
        const mismatches: Mismatch[] = []
        let passes = 0
        const byMethod: Record<string, { asked: number; passed: number }> = {}
        await mapLimit(sample, 12, async ({ u, ip, method }) => {
          const c = clientFor(ip)
          const log = { pap: c.authenticatePap, ascii: c.authenticateAscii, chap: c.authenticateChap, mschapv2: c.authenticateMschapV2 }[method].bind(c)
          const [login, sim] = await Promise.all([
            log(u.username, u.password!).catch((e: Error) => ({ pass: false, status: `error: ${e.message}` })),
            policyTest(u.username, ip, undefined, method),
          ])
          const sent: TacRequest = { kind: 'authentication', user: u.username, ip, method, password: u.password!, rightPassword: true }
          if (deviceFor(policy, ip)?.key) traffic.before(tacKey(sent), sent, { decision: login.pass ? 'permit' : 'deny', attributes: null }, !login.pass)
          if (login.pass) passes++
          const tally = (byMethod[method] ??= { asked: 0, passed: 0 })
          tally.asked++
          if (login.pass) tally.passed++
          if (login.pass !== (sim.decision === 'permit')) mismatches.push({ what: `${method} login`, user: u.username, from: ip, daemon: login, policy: { decision: sim.decision, reason: sim.reason } })
        })
        expect(mismatches, failMessage(mismatches, sample.length)).to.deep.equal([])
        console.log(`      ${sample.length} logins: ${passes} passed (${Object.entries(byMethod).map(([m, x]) => `${m} ${x.passed}/${x.asked}`).join(', ')})`)
      })

      it('change impact: after a random edit, the report predicts exactly the answers the deployed daemon changes', async function () {
        if (!impact) return this.skip()
        this.timeout(180_000)
        const t0 = Date.now()
        const took: string[] = []
        const lap = (what: string) => took.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`)
        // Refused logins on top of the traffic above: a wrong password, on a login not asked before.
        const methods: LoginMethod[] = ['pap', 'ascii', 'chap', 'mschapv2']
        const wrong: TacRequest[] = []
        for (let i = 0; wrong.length < WRONG_LOGINS && i < WRONG_LOGINS * 20; i++) {
          const u = r.pick(policy.users)
          const q: TacRequest = { kind: 'authentication', user: u.username, ip: randomSource(), method: r.pick(methods), password: `Wrong-${strongPassword()}`, rightPassword: false }
          if (deviceFor(policy, q.ip)?.key && !traffic.sent.has(tacKey(q)) && !wrong.some((w) => tacKey(w) === tacKey(q))) wrong.push(q)
        }
        await mapLimit(wrong, 12, async (q) => traffic.before(tacKey(q), q, await sendTac(clientFor(q.ip), q), true))
        lap('refused logins')

        // The policy the daemon ran is the one deployed: the report's "before".
        const deployed = await deployTacacs(t)
        expect(readFileSync(deployed, 'utf8'), 'the release holds the configuration the daemon answered with').to.equal(run.config)
        await waitIngested(t, run.logDir)
        const logged = await loggedTacKeys(t)
        // Counted now: the traffic sent again after the deploy is logged too.
        const loggedEvents = await loggedTacEvents(t)
        const unlogged = traffic.keepLogged(logged)
        lap('deployed and ingested')
        const edits = await randomPolicyEdit(t, r, 'tacacs')
        const report = await askImpact(this, t, '/api/v1/aaa/policy/impact')
        lap('edited and reported')
        await restartTac(run, await deployTacacs(t))
        lap('deployed again')
        await mapLimit([...traffic.sent.values()], 16, async (s) => traffic.after(s.key, await sendTac(clientFor(s.request.ip), s.request)))
        lap('replayed')

        const cmp = compareImpact(report, traffic, { keyOf: reportTacKey, attributes: tacAttributesCompared, logged, loggedEvents })
        const context = `seed ${SEED} (TACACS_DIFF_SEED=${SEED}), policy ${round + 1}; edits: ${edits.join('; ')}`
        expect(cmp.disagreements, `${cmp.disagreements.length} disagreements, ${context}:\n${cmp.disagreements.slice(0, 15).join('\n')}`).to.deep.equal([])
        console.log(`      impact (${edits.join('; ')}): ${describeComparison(cmp, report)}; ${unlogged} sent unreadable to the daemon [${took.join(', ')}]`)
      })
    })
  }
})
