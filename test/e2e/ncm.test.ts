/**
 * Configuration tracking end to end, every part real: two switches played by Debian's OpenSSH server
 * on 127.0.0.11 and 127.0.0.12 (test/kit/sshd.ts, the forced fake switch CLI re-reading a file the
 * test changes), a collector process enrolled with a real one-time token (`portcullis collector
 * enroll`, then `run`), the deployed tac_plus-ng taking TACACS+ accounting from switch 1's address, the
 * ingester, and a real SMTP listener. Switch 1 goes through the built-in cisco_ios profile (paging
 * off); switch 2 through a custom profile that never turns paging off, so the collector answers its
 * ` --More-- ` prompts.
 *
 * Fetch; change switch 1's configuration while alice's `ip http server` is accounted from switch 1;
 * fetch now: the diff shows `+ip http server`, "who changed it" names alice and marks her command as
 * matching the diff, a whole-line search finds switch 1 only (switch 2 has `no ip http server`), and a
 * "must not contain" rule fails on switch 1 and mails the violation.
 *
 * Pinned to the embedded run: one app, a deploy, one tac_plus-ng, two sshd and a collector process cost
 * about a minute on a loaded 2-core machine, and the PostgreSQL run is the suite's critical path (the
 * plugin's API tests cover PostgreSQL).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { TacacsClient } from '../../plugins/tacacs/client/index.js'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { skipBecause } from '../kit/skip.js'
import { startSmtp, type TestSmtp } from '../kit/smtp.js'
import { SSHD_SKIP, sshdBinary, startSwitches, type SshdSwitches } from '../kit/sshd.js'
import { TAC_PLUS_NG_SKIP, tacPlusNgBinary, type RunningTacPlusNg } from '../kit/tac-plus-ng.js'
import * as k from './support.js'
import { commandArgs } from '../kit/cli.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const KEY1 = `n1-${randomBytes(6).toString('hex')}`
const KEY2 = `n2-${randomBytes(6).toString('hex')}`
const MAIL_TO = 'noc@example.org'
const N = '/api/v1/ncm'

/** A switch's running configuration: enough lines that the pager shows several pages. */
const running = (name: string, extra: string[] = []) =>
  [`hostname ${name}`, '!', ...Array.from({ length: 40 }, (_, i) => `interface GigabitEthernet0/${i + 1}\n description ${name} port ${i + 1}\n!`), ...extra, 'line vty 0 4', ' transport input ssh', '!', 'end', ''].join('\n')
const SW1 = running('sw1')
const SW2 = running('sw2', ['no ip http server', '!'])

/** Poll `get` until `ok` holds (the collector and the ingester work on their own time), or fail saying what was seen. */
async function until<T>(what: string, get: () => Promise<T>, ok: (x: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const x = await get()
    if (ok(x)) return x
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(x).slice(0, 2000)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

/** `portcullis collector …` as an operator runs it (no database, no master key). */
function collectorCli(args: string[]) {
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir() }
  return spawn(process.execPath, commandArgs(['collector', ...args], env), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
}
function collectorOnce(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = collectorCli(args)
  let out = ''
  child.stdout.on('data', (b) => (out += b))
  child.stderr.on('data', (b) => (out += b))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })))
}

;(runsOn('embedded') ? describe : describe.skip)('e2e: configuration tracking with real sshd switches, a collector process and tac_plus-ng accounting', function () {
  this.timeout(240_000)
  let t: TestApp
  let smtp: TestSmtp
  let sw: SshdSwitches
  let tacplus: RunningTacPlusNg | undefined
  let tacPort = 0
  let stateDir = ''
  let collector: ReturnType<typeof collectorCli> | undefined
  let collectorLog = ''
  let token = ''
  const dev: Record<'sw1' | 'sw2', string> = { sw1: '', sw2: '' }
  const versions = async (d: string) => (await k.ok(t, 'GET', `${N}/devices/${d}/versions?per_page=100`, undefined, 200)).items as any[]

  before(async function () {
    if (!sshdBinary()) skipBecause(this, SSHD_SKIP)
    if (!tacPlusNgBinary()) skipBecause(this, TAC_PLUS_NG_SKIP)
    smtp = await startSmtp()
    t = await startTestApp({ engine: 'embedded', plugins: ['inventory', 'tacacs', 'aaa-policy', 'aaa-logs', 'ncm'] })
    sw = await startSwitches([
      { name: 'sw1', address: '127.0.0.11', config: SW1 },
      { name: 'sw2', address: '127.0.0.12', config: SW2 },
    ])
    tacPort = await k.freePort()
    for (const [key, value] of Object.entries({
      'tacacs.listen_address': '127.0.0.1', 'tacacs.listen_port': tacPort, 'aaa-logs.poll_ms': 200,
      'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', 'ncm.compliance_mail_to': [MAIL_TO],
    })) await k.setSetting(t, key, value)

    // Inventory: one group per command profile; alice may log in to switch 1 (her accounting is what we trace).
    const ios = await k.created(t, '/api/v1/device-groups', { name: 'ncm-ios' })
    const custom = await k.created(t, '/api/v1/device-groups', { name: 'ncm-custom' })
    dev.sw1 = (await k.created(t, '/api/v1/devices', { name: 'sw1', address: '127.0.0.11/32', device_group_id: ios.id, tacacs_key: KEY1 })).id
    dev.sw2 = (await k.created(t, '/api/v1/devices', { name: 'sw2', address: '127.0.0.12/32', device_group_id: custom.id, tacacs_key: KEY2 })).id
    const alice = await k.created(t, '/api/v1/users', { username: 'alice', password: `Tq-${randomBytes(9).toString('base64url')}-7z`, network_login: true })
    const tacAdmin = await k.created(t, '/api/v1/tacacs/profiles', { name: 'ncm-admin', privilege_level: 15, default_action: 'permit' })
    await k.created(t, '/api/v1/aaa/policy/rules', { name: 'alice-ios', who: { user_id: alice.id }, where: { device_group_id: ios.id }, tacacs_profile_id: tacAdmin.id })
    await k.deployAll(t)
    tacplus = await k.startTacPlusNgCurrent(t, tacPort)

    // Configuration tracking: a credential with the kit's key, switch 2's profile that leaves paging on.
    const cred = await k.created(t, `${N}/credentials`, { name: 'lab-key', username: sw.username, auth: 'private_key', private_key: sw.privateKey })
    const profiles = (await k.ok(t, 'GET', `${N}/profiles?per_page=100`, undefined, 200)).items as any[]
    const ciscoIos = profiles.find((p) => p.name === 'cisco_ios')
    expect(ciscoIos, JSON.stringify(profiles.map((p) => p.name))).to.exist
    const pager = await k.created(t, `${N}/profiles`, {
      name: 'paged-cli', mode: 'shell', prompt: 'sw2#', pre_commands: [], command: 'show running-config',
      pager_pattern: '--More--', pager_answer: ' ', strip_lines: ['Building configuration\\.\\.\\.', 'Current configuration : \\d+ bytes'], secret_lines: [],
    })
    const made = await k.created(t, `${N}/collectors`, { name: 'edge-1' })
    token = made.enrollment_token
    expect(token).to.match(/^pcc_[A-Za-z0-9_-]{43}$/)
    // A week apart: the first scheduled fetch is spread over the interval, so only "fetch now" runs here.
    for (const [group, profile] of [[ios.id, ciscoIos.id], [custom.id, pager.id]]) {
      await k.created(t, `${N}/schedules`, { device_group_id: group, collector_id: made.collector.id, credential_id: cred.id, profile_id: profile, interval_minutes: 10080, enabled: true })
    }
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-collector-'))
  })

  after(async () => {
    if (collector && collector.exitCode === null) {
      const done = new Promise((r) => collector!.once('close', r))
      collector.kill('SIGTERM')
      await done
    }
    await tacplus?.stop()
    await sw?.stop()
    await t?.stop()
    await smtp?.stop()
    if (stateDir) rmSync(stateDir, { recursive: true, force: true })
  })

  it('the collector process enrolls with the one-time token and shows active with the contract matching', async () => {
    const first = await collectorOnce(['enroll', '--core', t.url, '--token', token, '--name', 'edge-1', '--state', stateDir])
    expect(first.code, first.out).to.equal(0)

    collector = collectorCli(['run', '--state', stateDir])
    collector.stdout!.on('data', (b) => (collectorLog += b))
    collector.stderr!.on('data', (b) => (collectorLog += b))
    const c = await until('the collector in the list', async () => (await k.ok(t, 'GET', `${N}/collectors`, undefined, 200)).items.find((x: any) => x.name === 'edge-1'), (x) => !!x?.last_contact_at)
    expect(c).to.include({ state: 'active', contract_state: 'match' })
    expect(c.release).to.be.a('string').and.not.empty
  })

  it('fetches both switches: switch 1 through cisco_ios, switch 2 through a profile that answers the pager', async () => {
    const tracked = await until('both devices tracked', async () => (await k.ok(t, 'GET', `${N}/devices?per_page=100`, undefined, 200)).items as any[], (xs) => xs.length === 2)
    expect(tracked.map((d) => d.host).sort()).to.deep.equal(['127.0.0.11', '127.0.0.12'])
    for (const [i, name] of (['sw1', 'sw2'] as const).entries()) {
      await k.ok(t, 'PATCH', `${N}/devices/${dev[name]}`, { port: sw.switches[i].port }, 200)
      await k.ok(t, 'POST', `${N}/devices/${dev[name]}/fetch`, undefined, 202)
    }
    for (const name of ['sw1', 'sw2'] as const) {
      const d = await until(`${name} fetched`, async () => k.ok(t, 'GET', `${N}/devices/${dev[name]}`, undefined, 200), (x) => !!x.latest_version_id || (x.last_status && x.last_status !== 'ok' && x.consecutive_failures > 1), 90_000)
      expect(d.last_status, `${JSON.stringify(d)}\ncollector:\n${collectorLog}`).to.equal('ok')
      // No pin before the first fetch: the key the switch showed is pinned, and it is the switch's own.
      expect(d.host_key_sha256).to.equal(sw.switches[name === 'sw1' ? 0 : 1].hostKeySha256)
    }
    const text = async (name: 'sw1' | 'sw2') => {
      const [v] = await versions(dev[name])
      const r = await t.admin('GET', `${N}/devices/${dev[name]}/versions/${v.id}/config`)
      expect(r.status, r.text).to.equal(200)
      return r.text
    }
    const one = await text('sw1')
    const two = await text('sw2')
    // What the switch printed, line for line: the banner lines stripped, no pager prompt, no prompt, no echo.
    expect(one.trim()).to.equal(SW1.trim())
    expect(two.trim()).to.equal(SW2.trim())
    expect(two).to.not.include('More')
  })

  it('a change with alice\'s TACACS+ accounting in between: the diff shows +ip http server, and "who changed it" names alice', async () => {
    const [v1] = await versions(dev.sw1)
    sw.switches[0].setConfig(running('sw1', ['ip http server']))
    const acct = new TacacsClient({ host: '127.0.0.1', port: tacPort, key: KEY1, localAddress: '127.0.0.11', timeoutMs: 5000 })
    const r = await acct.account('alice', { flags: 'stop', args: ['task_id=31', 'service=shell', 'priv-lvl=15', 'cmd=ip http server <cr>'] })
    expect(r.status).to.equal('success')
    await k.waitForLogs(t, 'tacacs/accounting', { username: 'alice' }, 1)

    await k.ok(t, 'POST', `${N}/devices/${dev.sw1}/fetch`, undefined, 202)
    const vs = await until('a second version of sw1', () => versions(dev.sw1), (xs) => xs.length === 2, 90_000)
    const v2 = vs.find((v) => v.id !== v1.id)
    expect(v2).to.include({ added: 1, removed: 0, previous_id: v1.id })

    const diff = await k.ok(t, 'GET', `${N}/devices/${dev.sw1}/diff?from=${v1.id}&to=${v2.id}`, undefined, 200)
    expect(diff).to.include({ added: 1, removed: 0, truncated: false })
    const changed = diff.unified.split('\n').filter((l: string) => /^[+-](?![+-]{2} )/.test(l))
    expect(changed).to.deep.equal(['+ip http server'])

    const who = await k.ok(t, 'GET', `${N}/devices/${dev.sw1}/versions/${v2.id}/changes`, undefined, 200)
    expect(who.logs_available).to.equal(true)
    const alices = who.items.filter((c: any) => c.username === 'alice')
    expect(alices, JSON.stringify(who)).to.have.length.greaterThan(0)
    expect(alices.some((c: any) => /^ip http server/.test(c.command) && c.matches_diff === true), JSON.stringify(alices)).to.equal(true)
    // Switch 2 did not change: one version still.
    expect(await versions(dev.sw2)).to.have.length(1)
  })

  it('a whole-line search for `ip http server` finds switch 1 only (switch 2 has `no ip http server`)', async () => {
    const line = await k.ok(t, 'GET', `${N}/search?q=${encodeURIComponent('ip http server')}&match=line`, undefined, 200)
    expect(line.items.map((h: any) => h.device_name)).to.deep.equal(['sw1'])
    const contains = await k.ok(t, 'GET', `${N}/search?q=${encodeURIComponent('ip http server')}&match=contains`, undefined, 200)
    expect(contains.items.map((h: any) => h.device_name).sort()).to.deep.equal(['sw1', 'sw2'])
  })

  it('a "must not contain" rule fails on switch 1 only, and the violation is mailed', async () => {
    await k.created(t, `${N}/rules`, { name: 'no-http-server', requirement: 'must_not_contain', match: 'literal', pattern: 'ip http server', notify: true, enabled: true, device_group_id: null })
    const failing = await until('the rule evaluated', async () => (await k.ok(t, 'GET', `${N}/compliance?status=fail`, undefined, 200)).items as any[], (xs) => xs.length > 0)
    expect(failing.map((x) => x.device_name)).to.deep.equal(['sw1'])
    // A rule that is new finds an existing violation; a fetch that brings a new one mails it. Switch 2 gets it now.
    sw.switches[1].setConfig(SW2.replace('no ip http server', 'ip http server'))
    await k.ok(t, 'POST', `${N}/devices/${dev.sw2}/fetch`, undefined, 202)
    const mail = await smtp.take(MAIL_TO, 90_000)
    expect(mail.text).to.include('no-http-server').and.include('sw2').and.include('ip http server')
    const now = await until('sw2 failing too', async () => (await k.ok(t, 'GET', `${N}/compliance?status=fail`, undefined, 200)).items as any[], (xs) => xs.length === 2)
    expect(now.map((x) => x.device_name).sort()).to.deep.equal(['sw1', 'sw2'])
  })
})
