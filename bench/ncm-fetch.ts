/**
 * Issue 31: fetch and store 1,000 devices through one collector, against the SSH sessions alone.
 *
 * The devices: a child process (bench/lib/ssh-farm.ts) of BENCH_DEVICES fake switches (a Cisco-like
 * CLI, ~BENCH_BYTES of configuration each, BENCH_LATENCY_MS before each answer), one loopback address
 * each, so their SSH crypto is not counted in the collector's process.
 *
 * 1. The bound: the collector's SSH engine alone, `fetchAll(targets, 16)`, the same sessions with the
 *    credential in hand and nothing uploaded.
 * 2. Measured: the real core (in process, on a throwaway PostgreSQL, ncm with a schedule over the
 *    devices' group) and the real collector process (`collector/main.ts run`, enrolled with a real
 *    token, concurrency 16, its max_concurrency 16): every device made due ("fetch now"), then from the collector's start to
 *    the last version stored (each result's ingest: strip, hash, mask, seal, the version row).
 *
 * Prints both times, the ratio bound/measured (target ≥ 0.8) and the per-device figures. Figures
 * only: nothing fails on a timing. Run: node --import tsx bench/ncm-fetch.ts.
 */
import { fork, spawn } from 'node:child_process'
import path from 'node:path'
import { enrollCollector } from '../collector/app.js'
import { fetchAll } from '../collector/pool.js'
import type { SessionTarget } from '../collector/ssh/session.js'
import { startTestApp } from '../test/kit/app.js'
import { envInt, f2, firstMessage, loadAvg, machine, median, repoRoot, runAsMain, stopChild, tempDir, track } from './lib.js'

interface Farm {
  addresses: string[]
  port: number
  hostKeySha256: string
  username: string
  password: string
}

const CONCURRENCY = 16

const profileFields = {
  mode: 'shell' as const,
  prompt: '[A-Za-z0-9_.:@-]+[#>] ?',
  login_prompt: null,
  login_answer: null,
  pre_commands: ['terminal length 0', 'terminal width 0'],
  enable_command: null,
  enable_prompt: null,
  command: 'show running-config',
  pager_pattern: ' ?--More-- ?',
  pager_answer: ' ',
  command_timeout_seconds: 30,
  legacy_algorithms: false,
}

export async function runNcmFetch() {
  const devices = envInt('BENCH_DEVICES', 1000)
  const bytes = envInt('BENCH_BYTES', 30_000)
  const latency = envInt('BENCH_LATENCY_MS', 100)
  const farmProc = track(
    fork(path.join(repoRoot, 'bench/lib/ssh-farm.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FARM_DEVICES: String(devices), FARM_BYTES: String(bytes), FARM_LATENCY_MS: String(latency), FARM_PORT: '2222' },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    }),
  )
  const farm = await firstMessage<Farm>(farmProc, 'the SSH farm', 300_000)
  console.log(machine().line)
  console.log(`${devices} devices, ~${bytes} bytes each, ${latency} ms before each answer, concurrency ${CONCURRENCY}`)

  // 1. The bound: the SSH engine alone.
  const targets: SessionTarget[] = farm.addresses.map((host) => ({
    host,
    port: farm.port,
    profile: { id: 'bench', name: 'bench', ...profileFields },
    credential: { username: farm.username, password: farm.password },
    hostKeySha256: farm.hostKeySha256,
    connectTimeoutMs: 15_000,
    deadlineMs: 120_000,
    maxBytes: 8 * 1024 * 1024,
  }))
  const t0 = performance.now()
  const bound = await fetchAll(targets, CONCURRENCY)
  const boundMs = performance.now() - t0
  const boundOk = bound.filter((r) => r.status === 'ok').length
  console.log(`bound (fetchAll, SSH alone): ${f2(boundMs / 1000)} s, ${boundOk}/${devices} ok, ${f2(boundMs / devices)} ms per device`)

  // 2. Measured: the real core and the real collector.
  const measured = await measure(farm, devices)
  const ratio = boundMs / measured.ms
  console.log(`measured (core on PostgreSQL + collector): ${f2(measured.ms / 1000)} s, ${measured.stored}/${devices} versions stored, ${f2(measured.ms / devices)} ms per device`)
  console.log(`ratio bound / measured: ${ratio.toFixed(2)} (target ≥ 0.8)   load ${loadAvg()}`)
  await stopChild(farmProc)
  return { devices, bytes, latency, concurrency: CONCURRENCY, boundMs, boundOk, measuredMs: measured.ms, stored: measured.stored, ratio }
}

async function measure(farm: Farm, devices: number): Promise<{ ms: number; stored: number }> {
  const t = await startTestApp({ plugins: ['inventory', 'ncm'], engine: 'postgres' })
  const stateDir = tempDir('portcullis-bench-collector-')
  const admin = async (method: string, p: string, body?: unknown) => {
    const r = await t.admin(method, p, body === undefined ? {} : { body })
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }
  try {
    const group = await admin('POST', '/api/v1/device-groups', { name: 'bench-switches' })
    const ids: string[] = []
    for (let i = 0; i < devices; i++) ids.push((await admin('POST', '/api/v1/devices', { name: `sw${i}`, address: `${farm.addresses[i]}/32`, device_group_id: group.id })).id)
    const created = await admin('POST', '/api/v1/ncm/collectors', { name: 'bench', max_concurrency: CONCURRENCY })
    await enrollCollector({ coreUrl: t.url, token: created.enrollment_token, name: 'bench', stateDir })
    const credential = await admin('POST', '/api/v1/ncm/credentials', { name: 'bench', username: farm.username, auth: 'password', password: farm.password })
    const { mode, prompt, pre_commands, command, pager_pattern, command_timeout_seconds } = profileFields
    const profile = await admin('POST', '/api/v1/ncm/profiles', { name: 'bench-cisco', mode, prompt, pre_commands, command, pager_pattern, command_timeout_seconds })
    // The schedule's write tracks every device of the group; each gets the farm's port.
    await admin('POST', '/api/v1/ncm/schedules', { device_group_id: group.id, collector_id: created.collector.id, credential_id: credential.id, profile_id: profile.id, interval_minutes: 1440, enabled: true })
    for (const id of ids) await admin('PATCH', `/api/v1/ncm/devices/${id}`, { port: farm.port })
    for (const id of ids) await admin('POST', `/api/v1/ncm/devices/${id}/fetch`)
    // The collector in its own process, as deployed (its SSH crypto and the core's ingest do not share
    // one event loop). From its start (every device due) to the last version stored.
    const collector = track(
      spawn(process.execPath, ['--import', 'tsx', 'collector/main.ts', 'run', '--state', stateDir, '--concurrency', String(CONCURRENCY)], {
        cwd: repoRoot,
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    )
    let startedAt = 0
    // Its start is its first log line (the process's own loading is not the fetch's time).
    const t0 = await new Promise<number>((resolve, reject) => {
      collector.stdout!.on('data', (b: Buffer) => {
        if (!b.toString().includes('collector starting')) return
        startedAt = Date.now()
        resolve(performance.now())
      })
      collector.once('exit', (code) => reject(new Error(`the collector exited (${code}) before it started`)))
    })
    collector.stdout!.resume()
    let stored = 0
    for (;;) {
      stored = (await admin('GET', '/api/v1/ncm/devices?last_status=ok&per_page=1')).total_by_filter as number
      if (stored >= devices || performance.now() - t0 > 30 * 60_000) break
      await new Promise((r) => setTimeout(r, 250))
    }
    const ms = performance.now() - t0
    await stopChild(collector)
    // Where a job's time went, from the core's fetch log (one clock: the core's).
    const rows = (await t.app.db.knex('ncm_fetches').where({ status: 'ok' }).select('leased_at', 'started_at', 'finished_at', 'received_at')) as { leased_at: Date; started_at: Date; finished_at: Date; received_at: Date }[]
    const at = (d: Date) => new Date(d).getTime()
    const med = (xs: number[]) => f2(median(xs))
    const first = Math.min(...rows.map((r) => at(r.leased_at)))
    const last = Math.max(...rows.map((r) => at(r.received_at)))
    console.log(`collector start → first lease ${first - startedAt} ms, first lease → last result stored ${last - first} ms`)
    console.log(
      `per job (medians, core's clock): leased → SSH start ${med(rows.map((r) => at(r.started_at) - at(r.leased_at)))} ms, SSH session ${med(rows.map((r) => at(r.finished_at) - at(r.started_at)))} ms, SSH end → result stored ${med(rows.map((r) => at(r.received_at) - at(r.finished_at)))} ms`,
    )
    return { ms, stored }
  } finally {
    await t.stop()
  }
}

runAsMain(import.meta.url, runNcmFetch)
