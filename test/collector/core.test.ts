/**
 * The collector against a real core (one app, the ncm plugin on the test database) and switches
 * played by test/kit/fake-ssh.ts: enrollment with a real one-time token through the command line,
 * jobs and results end to end, each status as the core records it (ok with the host key pinned,
 * timeout, too_large, host_key_mismatch with no authentication sent), a job re-pointed at another
 * host refused without any SSH, a contract mismatch (no SSH, the core's status says so, and a
 * matching collector is accepted again), the drain on stop, and `status`'s exit codes.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { createCollector, silentLog, type Collector } from '../../collector/app.js'
import { runCollectorCli } from '../../collector/cli.js'
import { CoreClient, CoreRefusal } from '../../collector/core-client.js'
import { JobPool } from '../../collector/pool.js'
import { readState, stateKeys } from '../../collector/state.js'
import type { JobsAnswer } from '../../sdk/collector-protocol.js'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { commandArgs } from '../kit/cli.js'
import { generateHostKey, sampleConfig, startFakeSwitch, type FakeSwitch } from '../kit/fake-ssh.js'

const CISCO_IOS = '6e636d00-0000-4000-8000-000000000001'
const PASSWORD = 'Switch-Backup-Pw-7'

async function cli(args: string[]) {
  const out: string[] = []
  let err = ''
  const code = await runCollectorCli(args, { out: (l = '') => void out.push(l), err: (t) => void (err += t), env: {} })
  return { code, out: out.join('\n'), err }
}

const until = async <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// Once per `npm test`, in the embedded run: the core's side of the protocol runs on both engines in the ncm
// plugin's own tests; what this file adds is the collector's, the same on either (the PostgreSQL run is the critical path).
;(runsOn('embedded') ? describe : describe.skip)('collector: against a real core', function () {
  this.timeout(60_000)
  let t: TestApp
  let dir: string
  let collectorId: string
  let token: string
  let quickProfile: string
  const switches: Record<string, FakeSwitch> = {}
  const deviceIds: Record<string, string> = {}
  const running: Collector[] = []

  const admin = async (method: string, p: string, body?: unknown) => {
    const r = await t.admin(method, p, body === undefined ? {} : { body })
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }
  const device = (name: string) => admin('GET', `/api/v1/ncm/devices/${deviceIds[name]}`)
  /** Makes the device due now and waits for a fetch that finished after that. */
  const fetched = async (name: string) => {
    const before = (await device(name)).last_fetch_at
    await admin('POST', `/api/v1/ncm/devices/${deviceIds[name]}/fetch`)
    return until(`a fetch of ${name}`, async () => {
      const d = await device(name)
      return d.last_fetch_at && d.last_fetch_at !== before ? d : null
    })
  }
  const startCollector = (o: Partial<Parameters<typeof createCollector>[0]> = {}) => {
    const c = createCollector({ stateDir: dir, concurrency: 4, waitSeconds: 1, refusedPollMs: 200, log: silentLog(), ...o })
    running.push(c)
    void c.run()
    return c
  }
  /**
   * Stops the collectors, then gives the core a moment to see their last long poll closed (it puts back
   * what such a poll leased, once it notices), so the next test's "fetch now" goes to the next collector.
   */
  const stopAll = async () => {
    for (const c of running.splice(0)) await c.stop(2000)
    await settle()
  }
  const settle = () => new Promise((r) => setTimeout(r, 1200))

  before(async function () {
    this.timeout(120_000)
    dir = mkdtempSync(path.join(tmpdir(), 'collector-core-'))
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    // A small cap, so the endless device reaches it at once (the smallest the setting allows).
    await admin('PUT', '/api/v1/settings/ncm.max_config_bytes', { value: 64 * 1024 })
    const created = await admin('POST', '/api/v1/ncm/collectors', { name: 'dc1', max_concurrency: 8 })
    collectorId = created.collector.id
    token = created.enrollment_token
    quickProfile = (await admin('POST', '/api/v1/ncm/profiles', { name: 'quick', prompt: '[A-Za-z0-9_.-]+[#>] ?', pre_commands: ['terminal length 0'], command: 'show running-config', command_timeout_seconds: 2 })).id
    const modes = { ok: 'normal', silent: 'silent', endless: 'endless', swap: 'normal', repoint: 'normal', slow: 'normal' } as const
    const group = await admin('POST', '/api/v1/device-groups', { name: 'collector-test' })
    let i = 1
    for (const [name, mode] of Object.entries(modes)) {
      const host = `127.32.0.${i++}`
      switches[name] = await startFakeSwitch({ host, mode, password: PASSWORD, config: sampleConfig(3000, name), ...(name === 'slow' ? { latencyMs: 150 } : {}) })
      // The re-pointing target is no device of the schedule: a scheduled fetch of its own (due within the
      // test under a loaded machine) would connect to it legitimately and look like the refused job's connection.
      if (name !== 'repoint') deviceIds[name] = (await admin('POST', '/api/v1/devices', { name, address: `${host}/32`, device_group_id: group.id })).id
    }
    const cred = await admin('POST', '/api/v1/ncm/credentials', { name: 'backup', username: 'netops', auth: 'password', password: PASSWORD })
    await admin('POST', '/api/v1/ncm/schedules', { device_group_id: group.id, collector_id: collectorId, credential_id: cred.id, profile_id: CISCO_IOS })
    for (const [name, sw] of Object.entries(switches)) if (deviceIds[name]) await admin('PATCH', `/api/v1/ncm/devices/${deviceIds[name]}`, { port: sw.port, ...(name === 'silent' ? { profile_id: quickProfile } : {}) })
  })
  after(async function () {
    this.timeout(60_000)
    await stopAll()
    for (const s of Object.values(switches)) await s.close()
    await t?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('enrolls through the command line with a real token, which works once', async () => {
    const r = await cli(['enroll', '--core', t.url, '--token', token, '--name', 'dc1', '--state', dir])
    expect(r.code, r.err).to.equal(0)
    expect(r.out).to.include(collectorId)
    const state = readState(dir)!
    expect(state.collector_id).to.equal(collectorId)
    expect(JSON.stringify(state)).not.to.include(PASSWORD)
    const again = await cli(['enroll', '--core', t.url, '--token', token, '--state', path.join(dir, 'second')])
    expect(again.code).to.equal(1)
    expect(again.err).to.include('NCM_ENROLLMENT_USED')
    const st = await cli(['status', '--state', dir])
    expect(st.code, st.err).to.equal(0)
    expect(st.out).to.match(/state\s+active/).and.match(/contract\s+match/)
  })

  it('fetches a device, the core stores a version and pins the host key', async () => {
    startCollector()
    const d = await fetched('ok')
    expect(d.last_status, d.last_error).to.equal('ok')
    expect(d.latest_version_id).to.be.a('string')
    expect(d.host_key_sha256).to.equal(switches.ok.hostKeySha256)
  })

  it('says timeout for a device that never answers, and too_large for one that never stops', async () => {
    const [silent, endless] = await Promise.all([fetched('silent'), fetched('endless')])
    expect(silent.last_status).to.equal('timeout')
    expect(silent.latest_version_id).to.equal(null)
    expect(endless.last_status).to.equal('too_large')
    expect(endless.latest_version_id).to.equal(null)
  })

  it('refuses a swapped host key without sending any authentication', async () => {
    const first = await fetched('swap')
    expect(first.host_key_sha256).to.equal(switches.swap.hostKeySha256)
    const { host, port } = switches.swap
    await switches.swap.close()
    switches.swap = await startFakeSwitch({ host, port, hostKey: generateHostKey().privateKey, password: PASSWORD })
    const d = await fetched('swap')
    expect(d.last_status).to.equal('host_key_mismatch')
    expect(switches.swap.connections).to.be.above(0)
    expect(switches.swap.authAttempts).to.equal(0)
    expect(d.host_key_sha256).to.equal(first.host_key_sha256)
  })

  it('lets a running job finish and upload when stopped (the first SIGTERM)', async () => {
    const c = running[0]
    const before = (await device('slow')).last_fetch_at
    await admin('POST', `/api/v1/ncm/devices/${deviceIds.slow}/fetch`)
    await until('the slow session to start', async () => switches.slow.authAttempts > 0)
    await c.stop(10_000)
    running.splice(0)
    await settle()
    const d = await device('slow')
    expect(d.last_fetch_at).not.to.equal(before)
    expect(d.last_status).to.equal('ok')
  })

  it('refuses a job re-pointed at another host: no SSH is made, the core hears protocol_error', async () => {
    const state = readState(dir)!
    const keys = stateKeys(state)
    const target = switches.repoint
    // A core (or someone between) that hands the "ok" device's job out with another host: the envelope's AAD no longer matches.
    class Repointing extends CoreClient {
      override async jobs(wait: number, slots: number, signal?: AbortSignal): Promise<JobsAnswer> {
        const a = await super.jobs(wait, slots, signal)
        for (const j of a.jobs) if (j.device_id === deviceIds.ok) Object.assign(j, { host: target.host, port: target.port })
        return a
      }
    }
    const client = new Repointing({ coreUrl: t.url, keyid: state.collector_id, signKey: keys.sign })
    const pool = new JobPool({ client, collectorId: state.collector_id, openKey: keys.open, concurrency: 2, log: silentLog(), waitSeconds: 1 })
    const connections = target.connections
    void pool.run()
    try {
      const d = await fetched('ok')
      expect(d.last_status).to.equal('protocol_error')
    } finally {
      await pool.stop(2000)
      await settle()
    }
    expect(target.connections).to.equal(connections)
    expect(target.authAttempts).to.equal(0)
  })

  it('on a contract mismatch fetches nothing, the core says mismatch, and a matching collector is accepted again', async () => {
    const old = startCollector({ contract: 'ncm-collector-00000000' })
    const seen = switches.ok.authAttempts
    await admin('POST', `/api/v1/ncm/devices/${deviceIds.ok}/fetch`)
    await until('the mismatch', async () => old.pool.state === 'contract_mismatch')
    await new Promise((r) => setTimeout(r, 1200))
    expect(switches.ok.authAttempts).to.equal(seen)
    expect((await admin('GET', `/api/v1/ncm/collectors/${collectorId}`)).contract_state).to.equal('mismatch')
    await stopAll()
    startCollector()
    const d = await until('a fetch by the matching collector', async () => {
      const x = await device('ok')
      return x.last_status === 'ok' && switches.ok.authAttempts > seen ? x : null
    })
    expect(d.last_status).to.equal('ok')
    expect((await admin('GET', `/api/v1/ncm/collectors/${collectorId}`)).contract_state).to.equal('match')
  })

  it('hears 409 NCM_JOB_UNKNOWN for a result of a job the core never leased', async () => {
    const state = readState(dir)!
    const client = new CoreClient({ coreUrl: t.url, keyid: state.collector_id, signKey: stateKeys(state).sign })
    const { gzipSync } = await import('node:zlib')
    const now = new Date().toISOString()
    const err = await client.result(gzipSync(JSON.stringify({ job_id: '00000000-0000-4000-8000-000000000000', status: 'timeout', started_at: now, finished_at: now, host_key_sha256: null }))).then(
      () => null,
      (e: unknown) => e,
    )
    expect(err).to.be.instanceOf(CoreRefusal)
    expect((err as CoreRefusal).status).to.equal(409)
    expect((err as CoreRefusal).code).to.equal('NCM_JOB_UNKNOWN')
  })

  it('runs as `npm run collector -- run` and stops cleanly on SIGTERM (exit 0)', async () => {
    await stopAll()
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
    const env = { PATH: process.env.PATH ?? '', HOME: dir }
    const child = spawn(process.execPath, commandArgs(['run', '--state', dir, '--concurrency', '2'], env, 'collector'), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr.on('data', (b: Buffer) => (out += b.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      await until('the collector process to poll', async () => out.includes('polling the core for jobs'), 30_000)
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited, out).to.equal(0)
    expect(out).to.include('collector stopped')
    await settle()
  })
})
