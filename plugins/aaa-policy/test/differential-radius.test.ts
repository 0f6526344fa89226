/**
 * RADIUS differential: random policies made through the API (differential-radius-policy.ts),
 * the FreeRADIUS tree rendered, checked and run, then many random requests (user × NAS source
 * address × PAP/CHAP/MS-CHAPv2 × right or wrong password) sent with radclient from the NAS's own
 * loopback address (Packet-Src-IP-Address: radclient binds it) and asked of
 * POST /api/v1/aaa/policy/test with the same method. They must agree: Access-Accept exactly
 * where the test permits and the password is right, and then the profile's reply attributes.
 *
 * Replay a run with RADIUS_DIFF_SEED=<seed> (printed on failure); size it with
 * RADIUS_DIFF_ROUNDS (policies, default 2) and RADIUS_DIFF_REQUESTS (requests per policy,
 * default 160). KEEP_FREERADIUS_DIR=1 keeps the rendered tree; RADIUS_DIFF_VERBOSE=1 prints every
 * case's method and the test's answer. Skips without FreeRADIUS.
 *
 * Then, in the PostgreSQL run, the change-impact differential (issue 33) on the same daemon: the
 * requests above ingested from FreeRADIUS's log by aaa-logs, the policy deployed through the API, a
 * random edit (impact-edit.ts), POST /api/v1/aaa/policy/impact, the edit deployed and FreeRADIUS
 * started on it, every distinct request sent again: the report's flips and attribute changes must be
 * exactly the daemon's (test/kit/impact-differential.ts). RADIUS_IMPACT_ROUNDS (default 1) sets how
 * many policies go on to it.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { ntHash } from '../../../sdk/md4.js'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import {
  deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, mschapv2Pairs, rcString, type RunningFreeradius,
} from '../../radius/test/e2e-support.js'
import { mapLimit, PLUGINS, seededRandom } from '../../tacacs/test/e2e/support.js'
import { buildRadiusPolicy, radclientAuth, radiusClientFor, type Policy } from './differential-radius-policy.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { runsOn } from '../../../test/kit/app.js'
import { askImpact, compareImpact, describeComparison, Traffic, waitIngested } from '../../../test/kit/impact-differential.js'
import { deployRadius, expectSameTree, loggedRadiusEvents, loggedRadiusKeys, radiusKey, reportRadiusKey, restartRadius } from './differential-radius-impact.js'
import { randomPolicyEdit } from './impact-edit.js'

const SEED = Number(process.env.RADIUS_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31))
const ROUNDS = Number(process.env.RADIUS_DIFF_ROUNDS ?? 2)
const REQUESTS = Number(process.env.RADIUS_DIFF_REQUESTS ?? 160)
/** Rejects come after FreeRADIUS's reject_delay (1 s) and unknown clients after radclient's timeout: send side by side. */
const PARALLEL = 16
/** The change-impact rounds: in the PostgreSQL run only (the engine holds nothing the daemon decides). */
const IMPACT_ROUNDS = runsOn('postgres') ? Number(process.env.RADIUS_IMPACT_ROUNDS ?? 1) : 0

type Method = 'pap' | 'chap' | 'mschapv2'
const METHODS: Method[] = ['pap', 'chap', 'mschapv2']
/** What FreeRADIUS adds to an accept on its own (signature, MS-CHAPv2 mutual authentication and keys), not the profile's. */
const PROTOCOL_ATTRIBUTES = /^(Message-Authenticator|Proxy-State|MS-CHAP2-Success|MS-MPPE-.*)$/

/** The request's attributes: the user, the method's proof of the password, the NAS's address, sent from that address. */
function requestPairs(user: string, method: Method, password: string, from: string): string[] {
  const nas = [`NAS-IP-Address = ${from}`, `Packet-Src-IP-Address = ${from}`, 'Message-Authenticator = 0x00']
  const pw = Buffer.from(password, 'utf8')
  if (method === 'pap') return [`User-Name = ${rcString(user)}`, `User-Password = ${rcString(password)}`, ...nas]
  // radclient computes the CHAP response itself (RFC 1994, with a CHAP-Challenge of its own) from the value given as
  // CHAP-Password; given as hex, every byte of the password goes as it is (in its quoted strings `\\` stays two bytes).
  if (method === 'chap') return [`User-Name = ${rcString(user)}`, `CHAP-Password = 0x${pw.toString('hex')}`, ...nas]
  return [...mschapv2Pairs(user, ntHash(password).toString('hex'), randomBytes(16), randomBytes(16)), ...nas]
}

/** radclient prints octets as hex: compare a text Class as its bytes. */
const canonical = (a: { name: string; value: string }) =>
  a.name === 'Class' && !a.value.startsWith('0x') ? `${a.name}=0x${Buffer.from(a.value).toString('hex')}` : `${a.name}=${a.value}`

const flipCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')

interface Case {
  user: string
  from: string
  method: Method
  rightPassword: boolean
  password: string
}

describe('radius differential: FreeRADIUS (radclient) and POST /aaa/policy/test decide alike', function () {
  before(function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      this.skip()
    }
  })

  for (let round = 0; round < ROUNDS; round++) {
    describe(`random policy ${round + 1} of ${ROUNDS} (seed ${SEED})`, function () {
      let t: TestApp
      let dir: string
      let daemon: RunningFreeradius | undefined
      let port = 0
      let policy: Policy
      const r = seededRandom(SEED + round * 7919)
      const impact = round < IMPACT_ROUNDS
      /** Every distinct request a known client sent and the daemon's answer, for the change-impact replay. */
      const traffic = new Traffic<Case>()
      /** One distinct request (user, address, method) goes with one password, right or wrong: the log keeps no password to tell two apart. */
      const rightFor = new Map<string, boolean>()

      before(async function () {
        if (!FREERADIUS_PRESENT) skipBecause(this, FREERADIUS_SKIP)
        this.timeout(120_000)
        dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-radius-diff-'))
        const logs = impact ? { plugins: [...PLUGINS, 'aaa-logs'], settings: { 'aaa-logs.poll_ms': 50 } } : { plugins: PLUGINS }
        t = await startTestApp({ ...logs, options: { 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') } })
        policy = await buildRadiusPolicy(t, r, round)
        ;({ daemon, port } = await deployFreeradius(t, path.join(dir, 'release')))
      })
      after(async () => {
        await daemon?.stop()
        await t?.stop()
        if (dir && !process.env.KEEP_FREERADIUS_DIR) rmSync(dir, { recursive: true, force: true })
      })

      /** An address in a device's prefix (its own for a /32). */
      const hostIn = (address: string): string => {
        const [net, len] = address.split('/')
        if (len === '32') return net
        const o = net.split('.').map(Number)
        const host = o[2] * 256 + o[3] + 1 + r.int(2 ** (32 - Number(len)) - 2)
        return `${o[0]}.${o[1]}.${Math.floor(host / 256)}.${host % 256}`
      }
      /** A source address: a device's own, inside a device's prefix, or one only a wide prefix (or none) holds. */
      const randomSource = (): string => {
        if (r.bool(0.1)) return `${policy.base}.${r.pick([0, 1, 2, 3, 200])}.${200 + r.int(50)}`
        // Mostly addresses FreeRADIUS has a client for, so that plenty of requests get past the client check.
        const wantKnown = r.bool(0.85)
        let ip = hostIn(r.pick(policy.devices).address)
        for (let i = 0; i < 8 && wantKnown && !radiusClientFor(policy, ip); i++) ip = hostIn(r.pick(policy.devices).address)
        return ip
      }
      const randomCase = (): Case => {
        const roll = r.next()
        const u = r.pick(policy.users)
        const user = roll < 0.05 ? 'nobody-here' : roll < 0.1 ? flipCase(u.username) : u.username
        const rightRoll = u.password !== null && r.bool(0.8)
        const from = randomSource()
        const method = r.pick(METHODS)
        const key = radiusKey(user, from, method)
        const rightPassword = u.password !== null && (rightFor.get(key) ?? rightRoll)
        rightFor.set(key, rightPassword)
        // Wrong by its first character: a longer one could be cut back to the right one (PAP carries 128 octets).
        const known = u.password ?? 'Never-Set-Password-1'
        const password = rightPassword ? known : (known.startsWith('#') ? '%' : '#') + known.slice(1)
        return { user, from, method, rightPassword, password }
      }

      it('Access-Accept exactly where the policy test permits (right password), with the profile\'s reply attributes', async function () {
        this.timeout(300_000)
        const started = Date.now()
        const cases = Array.from({ length: REQUESTS }, randomCase)
        const disagreements: string[] = []
        const tally = { accept: 0, reject: 0, noAnswer: 0, awkward: 0, conditions: 0 }
        const accepts: Record<Method, number> = { pap: 0, chap: 0, mschapv2: 0 }
        await mapLimit(cases, PARALLEL, async (c) => {
          const client = radiusClientFor(policy, c.from)
          const secret = client?.secret ?? 'no-client-has-this-address'
          const [reply, sim] = await Promise.all([
            radclientAuth(port, secret, requestPairs(c.user, c.method, c.password, c.from), client !== null),
            t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'radius', username: c.user, nas_ip: c.from, method: c.method } }).then((res) => {
              expect(res.status, JSON.stringify(res.body)).to.equal(200)
              return res.body
            }),
          ])
          if (reply.code === 'Access-Accept') tally.accept++
          else if (reply.code === 'Access-Reject') tally.reject++
          else tally.noAnswer++
          const accepted = reply.code === 'Access-Accept'
          if (accepted) accepts[c.method]++
          if (accepted && /["\\\u0080-\uffff]/.test(c.password)) tally.awkward++
          // Answers a rule condition took part in: a rule skipped for its client prefixes or window, or matched with one.
          if ((sim.trace as { reason: string }[]).some((s) => /^NAS address |^outside its time window|, NAS address |inside its time window/.test(s.reason))) tally.conditions++
          if (process.env.RADIUS_DIFF_VERBOSE) console.log(c.method, c.rightPassword, sim.decision, sim.reason)
          const want = sim.decision === 'permit' && c.rightPassword
          const daemonAttrs = reply.attributes.filter((a) => !PROTOCOL_ATTRIBUTES.test(a.name)).map(canonical)
          // A packet from an unknown client is dropped unlogged: no request the report could replay.
          if (client) traffic.before(radiusKey(c.user, c.from, c.method), c, { decision: accepted ? 'permit' : 'deny', attributes: accepted ? [...daemonAttrs].sort() : [] }, !accepted)
          const simAttrs = (sim.attributes as { name: string; value: string }[]).map(canonical)
          // FreeRADIUS answers every client it knows and drops the others' packets unanswered (radclient's own errors show here too).
          const answeredAsExpected = (reply.code !== null) === (client !== null)
          const same = answeredAsExpected && accepted === want && (!accepted || JSON.stringify(daemonAttrs) === JSON.stringify(simAttrs))
          if (!same) {
            disagreements.push(
              JSON.stringify({
                case: { ...c, client: client?.name ?? null },
                daemon: { code: reply.code, attributes: daemonAttrs, ...(reply.code ? {} : { radclient: reply.raw.slice(-600) }) },
                policy_test: { decision: sim.decision, reason: sim.reason, device: sim.device?.name ?? null, rule: sim.matched_rule?.name ?? null, attributes: simAttrs },
              }),
            )
          }
        })
        const seconds = ((Date.now() - started) / 1000).toFixed(1)
        expect(disagreements, `${disagreements.length} of ${cases.length} requests disagree (replay: RADIUS_DIFF_SEED=${SEED} KEEP_FREERADIUS_DIR=1; tree ${dir}):\n${disagreements.slice(0, 15).join('\n')}`).to.deep.equal([])
        // A policy that accepts nothing would prove little: say how much was accepted.
        console.log(`      ${cases.length} requests in ${seconds} s: ${tally.accept} accepted (PAP ${accepts.pap}, CHAP ${accepts.chap}, MS-CHAPv2 ${accepts.mschapv2}; ${tally.awkward} with a quote, backslash or non-ASCII in the password), ${tally.reject} rejected, ${tally.noAnswer} unanswered (unknown client); ${tally.conditions} answers with a rule condition in their trace`)
      })

      it('change impact: after a random edit, the report predicts exactly the answers the deployed FreeRADIUS changes', async function () {
        if (!impact) return this.skip()
        this.timeout(180_000)
        const t0 = Date.now()
        const took: string[] = []
        const lap = (what: string) => took.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`)
        // The tree the daemon answered from is the one deployed: the report's "before".
        expectSameTree(path.join(dir, 'release'), await deployRadius(t))
        await waitIngested(t, path.join(dir, 'logs'))
        const logged = await loggedRadiusKeys(t)
        // Counted now: the traffic sent again after the deploy is logged too.
        const loggedEvents = await loggedRadiusEvents(t)
        const unlogged = traffic.keepLogged(logged)
        lap('deployed and ingested')
        const edits = await randomPolicyEdit(t, r, 'radius')
        const report = await askImpact(this, t, '/api/v1/aaa/policy/impact')
        lap('edited and reported')
        daemon = await restartRadius(daemon, await deployRadius(t))
        lap('deployed again')
        await mapLimit([...traffic.sent.values()], 3 * PARALLEL, async (s) => {
          const c = s.request
          const client = radiusClientFor(policy, c.from)!
          const reply = await radclientAuth(port, client.secret!, requestPairs(c.user, c.method, c.password, c.from), true)
          const accepted = reply.code === 'Access-Accept'
          traffic.after(s.key, { decision: accepted ? 'permit' : 'deny', attributes: accepted ? reply.attributes.filter((a) => !PROTOCOL_ATTRIBUTES.test(a.name)).map(canonical).sort() : [] })
        })
        lap('replayed')
        const cmp = compareImpact(report, traffic, { keyOf: reportRadiusKey, attributes: () => true, canonical, logged, loggedEvents })
        const context = `seed ${SEED} (RADIUS_DIFF_SEED=${SEED}), policy ${round + 1}; edits: ${edits.join('; ')}`
        expect(cmp.disagreements, `${cmp.disagreements.length} disagreements, ${context}:\n${cmp.disagreements.slice(0, 15).join('\n')}`).to.deep.equal([])
        console.log(`      impact (${edits.join('; ')}): ${describeComparison(cmp, report)}; ${unlogged} sent unlogged [${took.join(', ')}]`)
      })
    })
  }
})
