/**
 * A Patroni failover under load (issue 28), with synchronous mode on and off.
 *
 * Setup, per mode: three PostgreSQL 15 members under Patroni with one etcd, all on loopback
 * (test/kit/patroni.ts, from examples/patroni/patroni.yml: ttl 10 s, loop_wait 1 s, retry_timeout 4 s),
 * synchronous_mode on or off. Two Portcullis nodes on the multi-host DATABASE_URL: node A in this
 * process, supervising FreeRADIUS and tac_plus-ng (when TAC_PLUS_NG names it); node B a child process
 * (bench/lib/cluster-node.ts). One deploy gives the daemons a release (a user with a network password,
 * a device, a rule).
 *
 * Measured, BENCH_FAILOVER_ROUNDS (3) times per mode: BENCH_FAILOVER_WRITERS (4) writers per node create
 * users through the API as fast as they are answered; RADIUS (radclient, PAP) and TACACS+ (the project's
 * client, ASCII login) ask node A's daemons every 100 ms; every 100 ms the primary's pg_stat_replication
 * says how far the standbys are behind. After 5 s, the primary server is lost: kill -9 of its Patroni and
 * all its PostgreSQL processes. Figures: the time from the kill until Patroni's new leader accepts writes
 * (promotion), until each node's writes succeed again for good (back), the refused writes (503), the
 * acknowledged writes (201) missing afterwards on the new primary (lost) and how long before the kill the
 * lost ones had been acknowledged (the loss window), the standbys' lag at the kill, and the RADIUS and
 * TACACS+ requests that got no or a wrong answer. The killed member then rejoins before the next round.
 * Figures only: nothing fails on a timing.
 * Run: TAC_PLUS_NG=/path/to/tac_plus-ng node --import tsx bench/failover.ts
 */
import { randomBytes, randomUUID } from 'node:crypto'
import pg from 'pg'
import { TacacsClient } from '../plugins/tacacs/client/index.js'
import { radclient, rcString } from '../plugins/radius/test/e2e-support.js'
import { startTestApp, type TestApp } from '../test/kit/app.js'
import { request } from '../test/kit/http.js'
import { patroniMissing, startPatroni, type PatroniCluster } from '../test/kit/patroni.js'
import { freeTcpPort } from '../test/kit/mfa.js'
import { tacPlusNgBinary } from '../test/kit/tac-plus-ng.js'
import { atExit, envInt, f2, firstMessage, loadAvg, machine, median, pct, removeDir, repoRoot, runAsMain, spawnTracked, stopChild, tempDir } from './lib.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const SECRET = `s-${randomBytes(6).toString('hex')}`
const KEY = `k-${randomBytes(6).toString('hex')}`
const PASSWORD = `Fo-${randomBytes(9).toString('base64url')}-7z`

export interface FailoverRound {
  synchronous: boolean
  killed: string
  promoted: string
  /** Kill → the new leader runs and its PostgreSQL is out of recovery. */
  promotionMs: number
  /** Kill → the first write of the node's unbroken run of successes. */
  backMs: { A: number; B: number }
  refused: { A: number; B: number }
  acked: number
  lost: number
  /** How long before the kill the earliest lost write had been acknowledged (0 when none was lost). */
  lossWindowMs: number
  /** Bytes the most advanced standby was behind the primary's WAL at the last sample before the kill, and the median over the round. */
  lagAtKillBytes: number | null
  lagMedianBytes: number | null
  /** pg_stat_replication.flush_lag of the most advanced standby over the round: with synchronous mode off, the age below which an acknowledged commit may be lost. */
  flushLagMs: { p50: number; p95: number; max: number } | null
  radius: { sent: number; failed: number }
  tacacs: { sent: number; failed: number } | null
}

export interface FailoverResult {
  machine: string
  loadStart: string
  loadEnd: string
  rounds: FailoverRound[]
  summary: Record<'on' | 'off', { promotionMs: number; backMs: number; worstBackMs: number; lost: number; acked: number; lossWindowMs: number; flushLagP95Ms: number; flushLagMaxMs: number; radiusFailed: number; radiusSent: number; tacacsFailed: number | null; tacacsSent: number | null }>
  targetMet: boolean
}

interface Attempt {
  node: 'A' | 'B'
  username: string
  start: number
  end: number
  status: number
}

async function setup(c: PatroniCluster) {
  const url = await c.createDatabase('benchfailover')
  const tac = tacPlusNgBinary()
  const supervised = tac ? ['freeradius', 'tac_plus-ng'] : ['freeradius']
  const a = await startTestApp({ databaseUrl: url, plugins: PLUGINS, options: { 'daemons.supervise': supervised } })
  const bDir = tempDir('portcullis-bench-failover-b-')
  const child = spawnTracked(process.execPath, ['--import', 'tsx', 'bench/lib/cluster-node.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: url, DATA_DIR: bDir, MASTER_KEY: a.masterKey, NODE_ID: randomUUID(), PLUGINS: PLUGINS.join(','), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  const bUrl = (await firstMessage<{ url: string }>(child, 'node B')).url
  const ok = async (method: string, p: string, body: unknown, want: number[]) => {
    const r = await a.admin(method, p, { body })
    if (!want.includes(r.status)) throw new Error(`${method} ${p}: ${r.status} ${r.text}`)
    return r.body
  }
  const radiusPort = { auth: await freeUdp(), acct: await freeUdp() }
  const tacPort = await freeTcpPort()
  for (const [k, v] of [['radius.auth_port', radiusPort.auth], ['radius.acct_port', radiusPort.acct], ['tacacs.listen_port', tacPort]] as const) await ok('PUT', `/api/v1/settings/${k}`, { value: v }, [200, 204])
  const admins = await ok('POST', '/api/v1/user-groups', { name: 'net-admins' }, [201])
  await ok('POST', '/api/v1/users', { username: 'alice', password: PASSWORD, network_login: true, group_ids: [admins.id] }, [201])
  const core = await ok('POST', '/api/v1/device-groups', { name: 'core' }, [201])
  await ok('POST', '/api/v1/devices', { name: 'sw1', address: '127.0.0.1/32', device_group_id: core.id, radius_secret: SECRET, tacacs_key: KEY }, [201])
  const radAdmin = await ok('POST', '/api/v1/radius/profiles', { name: 'admin', attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] }, [201])
  const tacAdmin = await ok('POST', '/api/v1/tacacs/profiles', { name: 'tac-admin', privilege_level: 15, default_action: 'permit' }, [201])
  await ok('POST', '/api/v1/aaa/policy/rules', { name: 'admins-core', who: { group_id: admins.id }, where: { device_group_id: core.id }, radius_profile_id: radAdmin.id, tacacs_profile_id: tacAdmin.id }, [201])
  await ok('POST', '/api/v1/deploys', tac ? {} : { daemon: 'freeradius' }, [201])
  const radiusOk = async () => (await radclient(radiusPort.auth, 'auth', SECRET, [`User-Name = ${rcString('alice')}`, `User-Password = ${rcString(PASSWORD)}`, 'Message-Authenticator = 0x00'], ['-r', '1', '-t', '2'])).code === 'Access-Accept'
  const tacacsOk = tac ? async () => (await new TacacsClient({ host: '127.0.0.1', port: tacPort, key: KEY, localAddress: '127.0.0.1', timeoutMs: 2000 }).authenticateAscii('alice', PASSWORD)).status === 'pass' : null
  // The supervised daemons start on the release: wait until both answer.
  for (const end = Date.now() + 60_000; ; await sleep(250)) {
    if ((await radiusOk().catch(() => false)) && (!tacacsOk || (await tacacsOk().catch(() => false)))) break
    if (Date.now() > end) throw new Error('the supervised daemons never answered')
  }
  const stop = async () => {
    await stopChild(child)
    await a.stop()
    removeDir(bDir)
  }
  return { a, bUrl, url, radiusOk, tacacsOk, stop }
}

async function freeUdp(): Promise<number> {
  const dgram = await import('node:dgram')
  const s = dgram.createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r))
  const port = s.address().port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

async function round(c: PatroniCluster, s: Awaited<ReturnType<typeof setup>>, synchronous: boolean, n: number): Promise<FailoverRound> {
  const writers = envInt('BENCH_FAILOVER_WRITERS', 4)
  const attempts: Attempt[] = []
  let stop = false
  let seq = 0
  const write = async (node: 'A' | 'B') => {
    while (!stop) {
      const username = `bf-${synchronous ? 'sync' : 'async'}-${n}-${node.toLowerCase()}-${seq++}`
      const start = Date.now()
      const r = await (node === 'A' ? s.a.admin('POST', '/api/v1/users', { body: { username } }) : request(s.bUrl, 'POST', '/api/v1/users', { token: s.a.adminToken, body: { username } })).catch(() => ({ status: 0 }))
      attempts.push({ node, username, start, end: Date.now(), status: r.status })
      if (r.status !== 201) await sleep(100)
    }
  }
  const probes = { radius: { sent: 0, failed: 0 }, tacacs: s.tacacsOk ? { sent: 0, failed: 0 } : null }
  const inFlight: Promise<unknown>[] = []
  const probeLoop = async () => {
    while (!stop) {
      probes.radius.sent++
      inFlight.push(s.radiusOk().then((ok) => ok || probes.radius.failed++, () => probes.radius.failed++))
      if (s.tacacsOk && probes.tacacs) {
        const t = probes.tacacs
        t.sent++
        inFlight.push(s.tacacsOk().then((ok) => ok || t.failed++, () => t.failed++))
      }
      await sleep(100)
    }
  }
  // The standbys' distance behind the primary's WAL, sampled every 100 ms until the kill.
  const leader = (await c.leader())!
  const lagClient = new pg.Client({ connectionString: c.memberUrl(leader) })
  lagClient.on('error', () => undefined)
  await lagClient.connect()
  const lags: number[] = []
  const flushLags: number[] = []
  let sampling = true
  const lagLoop = async () => {
    while (sampling) {
      // The most advanced standby (the one Patroni promotes): bytes not yet flushed there, and flush_lag, the time
      // from a local flush to the standby's report of it: a commit younger than that may be missing there.
      const r = await lagClient
        .query<{ behind: string | null; ms: number | null }>('SELECT min(pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn)) AS behind, min(extract(epoch FROM flush_lag) * 1000)::float8 AS ms FROM pg_stat_replication')
        .catch(() => null)
      if (r?.rows[0]?.behind != null) lags.push(Number(r.rows[0].behind))
      if (r?.rows[0]?.ms != null) flushLags.push(Number(r.rows[0].ms))
      await sleep(100)
    }
  }
  const loops = [...Array.from({ length: writers }, () => [write('A'), write('B')]).flat(), probeLoop(), lagLoop()]
  await sleep(5000)
  sampling = false
  const killedAt = Date.now()
  await c.killMember(leader)
  await lagClient.end().catch(() => undefined)
  const promoted = await c.waitForLeader({ except: leader, timeoutMs: 180_000 })
  const promotionMs = Date.now() - killedAt
  const lastFailure = (node: 'A' | 'B') => Math.max(killedAt, ...attempts.filter((x) => x.node === node && x.status !== 201).map((x) => x.end))
  const back = (node: 'A' | 'B') => attempts.find((x) => x.node === node && x.status === 201 && x.start > lastFailure(node) && x.end < Date.now() - 3000)
  for (const end = Date.now() + 180_000; !(back('A') && back('B')) && Date.now() < end; ) await sleep(250)
  stop = true
  await Promise.all(loops)
  await Promise.all(inFlight)

  // What the new primary holds.
  const database = s.url.split('/').pop()!.split('?')[0]
  const check = new pg.Client({ connectionString: c.memberUrl(promoted, database) })
  await check.connect()
  const present = new Set((await check.query<{ username: string }>('SELECT username FROM users WHERE username LIKE $1', [`bf-${synchronous ? 'sync' : 'async'}-${n}-%`])).rows.map((r) => r.username))
  await check.end()
  const acked = attempts.filter((x) => x.status === 201)
  const lost = acked.filter((x) => !present.has(x.username))
  const backAt = (node: 'A' | 'B') => {
    const b = back(node)
    return b ? b.end - killedAt : NaN
  }
  const r: FailoverRound = {
    synchronous,
    killed: leader,
    promoted,
    promotionMs,
    backMs: { A: backAt('A'), B: backAt('B') },
    refused: { A: attempts.filter((x) => x.node === 'A' && x.status !== 201 && x.end > killedAt).length, B: attempts.filter((x) => x.node === 'B' && x.status !== 201 && x.end > killedAt).length },
    acked: acked.length,
    lost: lost.length,
    lossWindowMs: lost.length ? killedAt - Math.min(...lost.map((x) => x.end)) : 0,
    lagAtKillBytes: lags.length ? lags[lags.length - 1] : null,
    lagMedianBytes: lags.length ? median(lags) : null,
    flushLagMs: flushLags.length ? { p50: median(flushLags), p95: pct(flushLags, 95), max: Math.max(...flushLags) } : null,
    radius: probes.radius,
    tacacs: probes.tacacs,
  }
  // The lost server comes back as a standby (pg_rewind when it had diverged) before the next round.
  await c.restartMember(leader, 180_000)
  await c.waitHealthy(180_000)
  return r
}

export async function runFailover(): Promise<FailoverResult> {
  const why = patroniMissing()
  if (why) throw new Error(why)
  const rounds = envInt('BENCH_FAILOVER_ROUNDS', 3)
  const loadStart = loadAvg()
  const out: FailoverRound[] = []
  for (const synchronous of [true, false]) {
    const c = await startPatroni({ members: 3, synchronous })
    const stopCluster = atExit(() => c.destroy())
    const s = await setup(c)
    try {
      for (let i = 0; i < rounds; i++) {
        const r = await round(c, s, synchronous, i)
        out.push(r)
        console.log(
          `synchronous ${synchronous ? 'on ' : 'off'} #${i + 1}: ${r.killed} lost, ${r.promoted} promoted after ${f2(r.promotionMs / 1000)} s; writes back on A ${f2(r.backMs.A / 1000)} s, B ${f2(r.backMs.B / 1000)} s ` +
            `(refused A ${r.refused.A}, B ${r.refused.B}); acknowledged ${r.acked}, lost ${r.lost}${r.lost ? ` (acknowledged up to ${r.lossWindowMs} ms before the kill)` : ''}; ` +
            `standby behind at the kill ${r.lagAtKillBytes ?? '?'} B (median ${r.lagMedianBytes ?? '?'} B), flush_lag ${r.flushLagMs ? `p50 ${f2(r.flushLagMs.p50)} ms, p95 ${f2(r.flushLagMs.p95)} ms, max ${f2(r.flushLagMs.max)} ms` : '?'}; RADIUS failed ${r.radius.failed}/${r.radius.sent}` +
            (r.tacacs ? `, TACACS+ failed ${r.tacacs.failed}/${r.tacacs.sent}` : ', TACACS+ not run (TAC_PLUS_NG unset)'),
        )
      }
    } finally {
      await s.stop()
      stopCluster()
    }
  }
  const summarize = (sync: boolean) => {
    const rs = out.filter((r) => r.synchronous === sync)
    const backs = rs.flatMap((r) => [r.backMs.A, r.backMs.B])
    const sum = (f: (r: FailoverRound) => number) => rs.reduce((a, r) => a + f(r), 0)
    return {
      promotionMs: median(rs.map((r) => r.promotionMs)),
      backMs: median(backs),
      worstBackMs: Math.max(...backs),
      lost: sum((r) => r.lost),
      acked: sum((r) => r.acked),
      lossWindowMs: Math.max(0, ...rs.map((r) => r.lossWindowMs)),
      flushLagP95Ms: Math.max(0, ...rs.map((r) => r.flushLagMs?.p95 ?? 0)),
      flushLagMaxMs: Math.max(0, ...rs.map((r) => r.flushLagMs?.max ?? 0)),
      radiusFailed: sum((r) => r.radius.failed),
      radiusSent: sum((r) => r.radius.sent),
      tacacsFailed: rs[0]?.tacacs ? sum((r) => r.tacacs!.failed) : null,
      tacacsSent: rs[0]?.tacacs ? sum((r) => r.tacacs!.sent) : null,
    }
  }
  const summary = { on: summarize(true), off: summarize(false) }
  const m = machine()
  console.log(m.line)
  for (const [k, v] of Object.entries(summary)) {
    console.log(
      `synchronous ${k}: promotion median ${f2(v.promotionMs / 1000)} s; writes back median ${f2(v.backMs / 1000)} s, worst ${f2(v.worstBackMs / 1000)} s (target 30 s: ${f2(v.worstBackMs / 30_000)}x); ` +
        `lost ${v.lost} of ${v.acked} acknowledged${v.lost ? ` (acknowledged up to ${v.lossWindowMs} ms before the kill)` : ''}; flush_lag p95 ${f2(v.flushLagP95Ms)} ms, max ${f2(v.flushLagMaxMs)} ms; RADIUS failed ${v.radiusFailed}/${v.radiusSent}` + (v.tacacsSent === null ? '' : `, TACACS+ failed ${v.tacacsFailed}/${v.tacacsSent}`),
    )
  }
  const loadEnd = loadAvg()
  console.log(`load average: ${loadStart} → ${loadEnd}`)
  return {
    machine: m.line,
    loadStart,
    loadEnd,
    rounds: out,
    summary,
    targetMet: summary.on.worstBackMs <= 30_000 && summary.on.lost === 0 && summary.on.radiusFailed === 0 && summary.off.radiusFailed === 0 && !summary.on.tacacsFailed && !summary.off.tacacsFailed,
  }
}

runAsMain(import.meta.url, runFailover)
