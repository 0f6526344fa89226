/**
 * The collector's SSH session against switches played by test/kit/fake-ssh.ts: every status the core
 * can be told (ok, timeout, too_large, host_key_mismatch, auth_failed, connect_failed), the host key
 * checked before any authentication, paging answered, enable mode, exec mode. In process, no core:
 * the session is the part that talks to devices.
 */
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { expect } from 'chai'
import { fetchConfig, type SessionTarget } from '../../collector/ssh/session.js'
import type { CollectorProfile } from '../../collector/wire.js'
import { CISCO_LIKE, generateHostKey, generateUserKey, sampleConfig, startFakeSwitch, type FakeSwitch } from '../kit/fake-ssh.js'
import { runsOn } from '../kit/app.js'

const ios: CollectorProfile = {
  id: 'test-ios',
  name: 'IOS-like',
  mode: 'shell',
  prompt: '[\\w.-]+[>#]',
  login_prompt: null,
  login_answer: null,
  pre_commands: ['terminal length 0', 'terminal width 0'],
  enable_command: null,
  enable_prompt: null,
  command: 'show running-config',
  pager_pattern: '--More--',
  pager_answer: ' ',
  command_timeout_seconds: 5,
  legacy_algorithms: false,
}

function target(sw: FakeSwitch, over: Partial<SessionTarget> = {}): SessionTarget {
  return {
    host: sw.host,
    port: sw.port,
    profile: ios,
    credential: { username: 'netops', password: 'pw-1' },
    hostKeySha256: sw.hostKeySha256,
    connectTimeoutMs: 5000,
    deadlineMs: 20_000,
    maxBytes: 8 * 1024 * 1024,
    ...over,
  }
}

// No database here: the same on either engine, so once per `npm test`, in the embedded run (the PostgreSQL run is the suite's critical path).
;(runsOn('embedded') ? describe : describe.skip)('collector: the SSH session against fake switches', function () {
  this.timeout(30_000)
  const started: FakeSwitch[] = []
  const sw = async (o: Parameters<typeof startFakeSwitch>[0]) => {
    const s = await startFakeSwitch({ password: 'pw-1', ...o })
    started.push(s)
    return s
  }
  after(async () => {
    for (const s of started) await s.close()
  })

  it('fetches the configuration: paging turned off, the echo and the prompts removed', async () => {
    const s = await sw({ config: sampleConfig(3000) })
    const r = await fetchConfig(target(s))
    expect(r.status, r.detail).to.equal('ok')
    expect(r.output).to.equal(s.config + '\n')
    expect(r.hostKeySha256).to.equal(s.hostKeySha256)
    expect(s.commands).to.deep.equal(['terminal length 0', 'terminal width 0', 'show running-config'])
  })

  it('answers --More-- when paging stays on, and removes its text and erase sequence', async () => {
    const s = await sw({ mode: 'paging', pageLines: 7, config: sampleConfig(1500) })
    const r = await fetchConfig(target(s, { profile: { ...ios, pre_commands: [] } }))
    expect(r.status, r.detail).to.equal('ok')
    expect(s.pagerAnswers).to.be.above(3)
    expect(r.output).to.equal(s.config + '\n')
    expect(r.output).not.to.match(/More|\x08/)
  })

  it('logs in with a private key, goes through enable mode with the enable secret', async () => {
    const user = generateUserKey()
    const s = await sw({ password: undefined, publicKey: user.publicKey, personality: { ...CISCO_LIKE, enable: { userPrompt: 'sw1>', command: 'enable', passwordPrompt: 'Password: ', secret: 'en-secret' } } })
    const profile = { ...ios, enable_command: 'enable', enable_prompt: '[Pp]assword:' }
    const r = await fetchConfig(target(s, { profile, credential: { username: 'netops', private_key: user.privateKey, enable_secret: 'en-secret' } }))
    expect(r.status, r.detail).to.equal('ok')
    expect(r.output).to.equal(s.config + '\n')
    expect(s.commands[0]).to.equal('enable')
  })

  it('says protocol_error when the device asks for an enable secret the credential lacks', async () => {
    const s = await sw({ personality: { ...CISCO_LIKE, enable: { userPrompt: 'sw1>', command: 'enable', passwordPrompt: 'Password: ', secret: 'en-secret' } } })
    const r = await fetchConfig(target(s, { profile: { ...ios, enable_command: 'enable', enable_prompt: '[Pp]assword:' } }))
    expect(r.status).to.equal('protocol_error')
    expect(r.detail).to.match(/enable secret/)
    expect(s.commands).not.to.include('show running-config')
  })

  it('pins nothing itself: with no pin, the key seen is reported for the core to pin', async () => {
    const s = await sw({})
    const r = await fetchConfig(target(s, { hostKeySha256: null }))
    expect(r.status).to.equal('ok')
    expect(r.hostKeySha256).to.equal(s.hostKeySha256).and.match(/^SHA256:[A-Za-z0-9+/]{43}$/)
  })

  it('refuses a swapped host key before sending any authentication', async () => {
    const pinned = generateHostKey()
    const s = await sw({})
    const r = await fetchConfig(target(s, { hostKeySha256: pinned.sha256 }))
    expect(r.status).to.equal('host_key_mismatch')
    expect(r.hostKeySha256).to.equal(s.hostKeySha256)
    expect(s.authAttempts).to.equal(0)
    expect(s.commands).to.deep.equal([])
  })

  it('says auth_failed for a wrong password, and for a key the device does not know', async () => {
    const s = await sw({})
    const r = await fetchConfig(target(s, { credential: { username: 'netops', password: 'wrong' } }))
    expect(r.status).to.equal('auth_failed')
    expect(r.detail).not.to.include('wrong')
    const k = generateUserKey()
    const r2 = await fetchConfig(target(s, { credential: { username: 'netops', private_key: k.privateKey } }))
    expect(r2.status).to.equal('auth_failed')
  })

  it('says connect_failed when nothing listens', async () => {
    const free = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port
        srv.close(() => resolve(port))
      })
    })
    const r = await fetchConfig({ ...target({ host: '127.0.0.1', port: free, hostKeySha256: '' } as FakeSwitch), hostKeySha256: null })
    expect(r.status).to.equal('connect_failed')
    expect(r.hostKeySha256).to.equal(null)
  })

  it('says timeout for a device that logs in and then says nothing', async () => {
    const s = await sw({ mode: 'silent' })
    const t0 = Date.now()
    const r = await fetchConfig(target(s, { profile: { ...ios, command_timeout_seconds: 1 } }))
    expect(r.status).to.equal('timeout')
    expect(r.detail).to.match(/no output for 1 s/)
    expect(Date.now() - t0).to.be.below(15_000)
  })

  it('stops at the deadline even while the device keeps talking', async () => {
    const s = await sw({ mode: 'paging', latencyMs: 300, pageLines: 1, config: sampleConfig(4000) })
    const r = await fetchConfig(target(s, { profile: { ...ios, pre_commands: [] }, deadlineMs: 1500 }))
    expect(r.status).to.equal('timeout')
    expect(r.detail).to.match(/longer than/)
  })

  it('says too_large for endless output and keeps no more than the cap', async () => {
    const s = await sw({ mode: 'endless' })
    const before = process.memoryUsage().heapUsed
    const r = await fetchConfig(target(s, { maxBytes: 256 * 1024 }))
    expect(r.status).to.equal('too_large')
    expect(r.output).to.equal(undefined)
    // Generous (the collector is not alone in this heap): an unbounded buffer would have grown past it by the deadline.
    expect(process.memoryUsage().heapUsed - before).to.be.below(64 * 1024 * 1024)
  })

  it('brings a 5 MB configuration whole', async () => {
    const s = await sw({ mode: 'huge' })
    const r = await fetchConfig(target(s))
    expect(r.status, r.detail).to.equal('ok')
    expect(r.output!.length).to.equal(s.config.length + 1)
    expect(r.output).to.equal(s.config + '\n')
  })

  it('runs the command by exec when the profile says so', async () => {
    const s = await sw({ config: sampleConfig(2000) })
    const r = await fetchConfig(target(s, { profile: { ...ios, mode: 'exec' } }))
    expect(r.status, r.detail).to.equal('ok')
    expect(r.output).to.equal(s.config + '\n')
    expect(s.commands).to.deep.equal(['show running-config'])
    const bad = await fetchConfig(target(s, { profile: { ...ios, mode: 'exec', command: 'show nothing' } }))
    expect(bad.status).to.equal('protocol_error')
  })

  it('accepts the legacy algorithms switch (appended, the modern ones still first)', async () => {
    const s = await sw({})
    const r = await fetchConfig(target(s, { profile: { ...ios, legacy_algorithms: true } }))
    expect(r.status, r.detail).to.equal('ok')
  })
})
