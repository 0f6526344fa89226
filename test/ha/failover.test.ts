/**
 * A Patroni failover under two Portcullis nodes (issue 28). Three PostgreSQL members under Patroni with
 * etcd, synchronous mode on (examples/patroni/patroni.yml, test/kit/patroni.ts); node A in this process,
 * node B in a child process; both on the cluster's multi-host DATABASE_URL. Under a steady write load
 * through both nodes' API (users created, log lines ingested), the primary server is lost (kill -9 of its
 * Patroni and of all its PostgreSQL processes); Patroni promotes the synchronous standby and the nodes
 * follow without a restart. Measured and checked: the time until writes succeed again on each node, and
 * that every write a node acknowledged (2xx) is there afterwards: none lost. Across the same failover, the
 * guarantees that live in the database hold: a token signed out just before stays refused, a spent MFA
 * code stays spent, the MFA code budget keeps its count, and the deploy lock held by node A is still held
 * (or, once its lease has run out, node A can no longer activate anything). One cluster for the file.
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { ClusterDeployLock, type DeployLease } from '../../kernel/deploy/lock.js'
import { timeStep } from '../../plugins/mfa/services/totp.js'
import { runsOn, silentLogger, startTestApp, type TestApp } from '../kit/app.js'
import { request, type RequestOptions, type TestResponse } from '../kit/http.js'
import { codeAt, enroll, INTERNAL_KEY, setInternalKey, wrongCode } from '../kit/mfa.js'
import { patroniMissing, startPatroni, type PatroniCluster } from '../kit/patroni.js'
import { skipBecause } from '../kit/skip.js'

const PLUGINS = ['inventory', 'tacacs', 'aaa-logs', 'mfa', './test/deploy/fixtures/node-check']
const PASSWORD = 'Failover-Horse-Battery-7'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One tacacs authorization line as tac_plus-ng writes it; `show <i>` tells the lines apart. */
const authzLine = (i: number) =>
  ['2026-11-21T06:34:11.184829+00:00', 'authorization', 'AUTHZ-PASS', `user${i % 7}`, 'core1', '10.0.0.1', 'tty1', '192.0.2.9', 'netops', 'admin', 'permit', 'shell', '15', `show ${i}`, 'service=shell', '', '', String(i)].join('\t') + '\n'

interface Attempt {
  node: 'A' | 'B'
  username: string
  start: number
  end: number
  status: number
  code?: string
  retryAfter?: string | null
}

/** Node B: a child process booted from the environment, as on another server. */
async function startNodeB(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/ha/fixtures/node.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr!.on('data', (d) => (err += d))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d
      const m = /ready (\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`node B exited ${code}: ${err}`)))
  })
  return { url, child }
}

;(runsOn('postgres') ? describe : describe.skip)('a Patroni failover under two Portcullis nodes (postgres)', function () {
  this.timeout(600_000)
  let c: PatroniCluster
  let a: TestApp
  let b: { url: string; child: ChildProcess } | null = null
  let bDir = ''
  let logDir = ''
  let adminToken = ''
  const onB = <T = any>(method: string, p: string, o: RequestOptions = {}): Promise<TestResponse<T>> => request<T>(b!.url, method, p, { token: adminToken, ...o })
  const onA = <T = any>(method: string, p: string, o: RequestOptions = {}): Promise<TestResponse<T>> => a.req<T>(method, p, { token: adminToken, ...o })
  const internalVerify = (username: string, code: string) => onA('POST', '/api/v1/mfa/internal/verify', { token: undefined, body: { username, code }, headers: { 'x-internal-key': INTERNAL_KEY } })

  // What the failover left, for the checks below.
  const attempts: Attempt[] = []
  let killedAt = 0
  let oldLeader = ''
  let newLeader = ''
  let linesWritten = 0
  const deploysAcked: string[] = []
  let sessionToken = ''
  let mfaSecret = ''
  let burntCode = ''
  let burntStep = 0
  let budgetBefore = 0
  let lease: DeployLease | null = null
  let lock: ClusterDeployLock

  before(async function () {
    const why = patroniMissing()
    if (why) skipBecause(this, why)
    c = await startPatroni({ members: 3, synchronous: true })
    const url = await c.createDatabase('failover')
    logDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-failover-logs-'))
    bDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-failover-b-'))
    a = await startTestApp({ databaseUrl: url, plugins: PLUGINS, settings: { 'aaa-logs.poll_ms': 50 }, options: { 'tacacs.log_directory': logDir } })
    adminToken = a.adminToken
    b = await startNodeB({ DATABASE_URL: url, DATA_DIR: bDir, MASTER_KEY: a.masterKey, NODE_ID: randomUUID(), PLUGINS: PLUGINS.join(','), LOG_LEVEL: 'silent' })
    lock = new ClusterDeployLock(a.app.db.knex, a.app.nodeId, silentLogger())
    await setInternalKey(a)
    for (const username of ['fo-session', 'fo-mfa']) {
      const r = await onA('POST', '/api/v1/users', { body: { username, password: PASSWORD, must_change_password: false } })
      expect(r.status, r.text).to.equal(201)
    }
    mfaSecret = await enroll(a, 'fo-mfa', PASSWORD)
    // A deploy that finds the lock held answers 409 at once (instead of waiting up to 30 s for it).
    expect((await onA('PUT', '/api/v1/settings/deploy.lock_wait_seconds', { body: { value: 0 } })).status).to.equal(200)

    // ---- the load: users through both nodes, log lines for node A's ingester, deploys before the kill ----
    let stop = false
    const userLoop = async (node: 'A' | 'B') => {
      for (let i = 0; !stop; i++) {
        const username = `fo-${node.toLowerCase()}-${i}`
        const start = Date.now()
        const r = await (node === 'A' ? onA : onB)('POST', '/api/v1/users', { body: { username } }).catch((e: Error) => ({ status: 0, body: { code: e.message }, headers: new Headers() }) as TestResponse)
        attempts.push({ node, username, start, end: Date.now(), status: r.status, code: r.body?.code, retryAfter: r.headers.get('retry-after') })
        await sleep(r.status === 201 ? 50 : 200)
      }
    }
    const logLoop = async () => {
      const file = path.join(logDir, 'authorization-2026-11-21.log')
      writeFileSync(file, '')
      while (!stop) {
        appendFileSync(file, authzLine(linesWritten++))
        await sleep(50)
      }
    }
    const load = Promise.all([userLoop('A'), userLoop('B'), logLoop()])
    try {
      for (let v = 1; v <= 4; v++) {
        expect((await onA('PUT', '/api/v1/settings/node-check.version', { body: { value: v } })).status).to.equal(200)
        const r = await (v % 2 ? onA : onB)('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
        expect(r.status, r.text).to.equal(201)
        deploysAcked.push(r.body.deploys[0].id)
      }

      // ---- the guarantees, set up just before the loss ----
      const login = await onB('POST', '/api/v1/auth/login', { token: undefined, body: { username: 'fo-session', password: PASSWORD } })
      expect(login.status, login.text).to.equal(200)
      sessionToken = login.body.access_token
      expect((await onA('GET', '/api/v1/auth/me', { token: sessionToken })).status).to.equal(200)
      expect((await onB('POST', '/api/v1/auth/logout', { token: sessionToken })).status).to.equal(204)
      // The next step's code: accepted now, and still inside the ±1 step window a minute from now.
      burntStep = timeStep(Date.now()) + 1
      burntCode = codeAt(mfaSecret, 1)
      expect((await internalVerify('fo-mfa', burntCode)).body).to.deep.equal({ valid: true })
      // The per-user code budget (10 per 5 minutes): 1 spent above, 7 wrong codes now.
      for (let i = 0; i < 7; i++) expect((await internalVerify('fo-mfa', wrongCode(mfaSecret))).body).to.deep.equal({ valid: false })
      budgetBefore = 8
      lease = await lock.acquire(10_000)

      await sleep(1000)
      oldLeader = (await c.leader())!
      killedAt = Date.now()
      await c.killMember(oldLeader)
      newLeader = await c.waitForLeader({ except: oldLeader, timeoutMs: 120_000 })
      // The load goes on until both nodes have written again, and kept writing for a few seconds.
      const lastFailure = (n: 'A' | 'B') => Math.max(killedAt, ...attempts.filter((x) => x.node === n && x.status !== 201).map((x) => x.end))
      const back = (n: 'A' | 'B') => attempts.some((x) => x.node === n && x.status === 201 && x.start > lastFailure(n) && x.end < Date.now() - 3000)
      for (const end = Date.now() + 120_000; !(back('A') && back('B')) && Date.now() < end; ) await sleep(250)
    } finally {
      stop = true
      await load
    }
  })

  after(async () => {
    await lease?.release().catch(() => undefined)
    if (b) {
      b.child.kill('SIGKILL')
      await new Promise((r) => b!.child.once('exit', r))
    }
    await a?.stop()
    c?.destroy()
    for (const d of [logDir, bDir]) if (d) rmSync(d, { recursive: true, force: true })
  })

  /** SQL on the new primary directly (not through a node). */
  const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const database = a.databaseUrl!.split('/').pop()!.split('?')[0]
    const cl = new pg.Client({ connectionString: c.memberUrl(newLeader, database) })
    await cl.connect()
    try {
      return (await cl.query<R>(text, values)).rows
    } finally {
      await cl.end()
    }
  }

  it('Patroni promoted the synchronous standby; both nodes write again by themselves, and meanwhile answered 503 with Retry-After (never a 500)', () => {
    expect(newLeader).to.not.equal(oldLeader)
    const report: string[] = []
    for (const n of ['A', 'B'] as const) {
      const mine = attempts.filter((x) => x.node === n)
      const firstBack = mine.find((x) => x.start > killedAt && x.status === 201 && !mine.some((y) => y.start > x.start && y.status !== 201))
      expect(firstBack, `node ${n} wrote again`).to.not.equal(undefined)
      const failed = mine.filter((x) => x.status !== 201)
      report.push(`node ${n}: writes back ${((firstBack!.end - killedAt) / 1000).toFixed(1)} s after the kill, ${failed.length} refused of ${mine.length}`)
      for (const f of failed) {
        expect(f.status, `${f.username}: ${f.code}`).to.equal(503)
        expect(f.code).to.be.oneOf(['DATABASE_UNAVAILABLE', 'READ_ONLY_NODE'])
        expect(f.retryAfter).to.match(/^\d+$/)
      }
    }
    console.log(`      ${oldLeader} lost, ${newLeader} promoted; ${report.join('; ')}`)
  })

  it('loses no acknowledged write: every user a node answered 201 for is there, and every deploy', async () => {
    const acked = attempts.filter((x) => x.status === 201).map((x) => x.username)
    expect(acked.length).to.be.greaterThan(20)
    const present = new Set((await sql<{ username: string }>("SELECT username FROM users WHERE username LIKE 'fo-a-%' OR username LIKE 'fo-b-%'")).map((r) => r.username))
    const lost = acked.filter((u) => !present.has(u))
    expect(lost, 'acknowledged users missing after the failover').to.deep.equal([])
    // Through the API too, on both nodes.
    for (const call of [onA, onB]) {
      const r = await call('GET', `/api/v1/users?search=${acked[acked.length - 1]}`)
      expect(r.status, r.text).to.equal(200)
      expect(r.body.items.map((u: { username: string }) => u.username)).to.include(acked[acked.length - 1])
    }
    const deploys = (await sql<{ id: string }>('SELECT id FROM deploys WHERE id = ANY($1)', [deploysAcked])).map((r) => r.id)
    expect(deploys.sort()).to.deep.equal([...deploysAcked].sort())
  })

  it('ingests every log line written through the failover exactly once', async () => {
    let rows = { n: 0, d: 0 }
    for (const end = Date.now() + 60_000; Date.now() < end; await sleep(250)) {
      const r = (await sql<{ n: string; d: string }>('SELECT count(*) AS n, count(DISTINCT command) AS d FROM aaa_log_tacacs_authz'))[0]
      rows = { n: Number(r.n), d: Number(r.d) }
      if (rows.n >= linesWritten) break
    }
    expect(rows).to.deep.equal({ n: linesWritten, d: linesWritten })
  })

  it('a token signed out just before the failover is refused on both nodes after it', async () => {
    for (const call of [onA, onB]) {
      const r = await call('GET', '/api/v1/auth/me', { token: sessionToken })
      expect(r.status, r.text).to.equal(401)
    }
  })

  it('an MFA code spent just before the failover stays spent, and the code budget keeps its count', async () => {
    // Still inside the window in which the code would be accepted: refused because it was spent, not because it is old.
    expect(timeStep(Date.now()), 'the test outlived the code\'s window').to.be.at.most(burntStep + 1)
    expect((await internalVerify('fo-mfa', burntCode)).body).to.deep.equal({ valid: false })
    // 8 codes were checked before the failover and 1 just now: one more is let through, then 429.
    const r1 = await internalVerify('fo-mfa', wrongCode(mfaSecret))
    expect(r1.status, r1.text).to.equal(200)
    const r2 = await internalVerify('fo-mfa', wrongCode(mfaSecret))
    expect(r2.status, `the budget after ${budgetBefore} + 2 codes`).to.equal(429)
  })

  it('the deploy lock held by node A across the failover: node B cannot deploy while A\'s lease lives; once it has run out, A cannot activate', async () => {
    const left = (await sql<{ ms: number; node_id: string }>("SELECT node_id, extract(epoch FROM (expires_at - now())) * 1000 AS ms FROM deploy_lock WHERE name = 'deploy'"))[0]
    expect(left.node_id, 'the lease row came through the failover').to.equal(a.app.nodeId)
    if (Number(left.ms) > 3000) {
      const r = await onB('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
      expect(r.status, r.text).to.equal(409)
      expect(r.body.code).to.equal('DEPLOY_IN_PROGRESS')
      await lease!.release()
    } else {
      // The lease ran out during the failover (node A could not renew it): B takes it; A's is fenced.
      // Node A stays cut off from here on: its background renewal (every RENEW_MS, which succeeds on an
      // expired lease nobody took over, as it should for a holder that is alive) is stopped, or it could
      // take the lease back while this waits, and B would rightly be refused.
      clearInterval((lease as unknown as { timer: NodeJS.Timeout }).timer)
      const until = (await sql<{ ms: number }>("SELECT extract(epoch FROM (expires_at - now())) * 1000 AS ms FROM deploy_lock WHERE name = 'deploy'"))[0]
      await sleep(Math.max(0, Number(until.ms)) + 500)
      const r = await onB('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
      expect(r.status, r.text).to.equal(201)
      let refused = ''
      await lease!.renew().catch((e: { code?: string }) => (refused = e.code ?? String(e)))
      expect(refused).to.equal('DEPLOY_IN_PROGRESS')
      await lease!.release()
    }
    lease = null
    const r = await onA('POST', '/api/v1/deploys', { body: { daemon: 'noded' } })
    expect(r.status, r.text).to.equal(201)
    expect((await sql("SELECT id FROM deploys WHERE daemon = 'noded' AND status = 'active'")).length).to.equal(1)
  })
})
