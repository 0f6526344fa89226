/**
 * What every FreeRADIUS reply carries, against the deployed tree (e2e-lab.ts)
 * with radclient: Message-Authenticator first, Proxy-State echoed, Status-Server
 * answered, unknown and disabled users rejected before the policy with a reason,
 * MS-CHAPv1 only where a profile allows it, a profile of exactly the reply
 * budget sent whole, and every file the daemon writes in the tree's own
 * folders. Skipped where FreeRADIUS 3 and radclient are not installed.
 */
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { attr, fullProfile, LONGEST_AVPAIR, RadiusLab, SECRET } from './e2e-lab.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, rcString } from './e2e-support.js'
import { runsOn } from '../../../test/kit/app.js'

/** A file's size and change time, or null when absent: what a write would change. */
const stamp = (p: string) => (existsSync(p) ? `${statSync(p).size} ${statSync(p).mtimeMs}` : null)

async function waitFor<T>(f: () => T | null, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== null) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: what every FreeRADIUS reply carries (radclient against the deployed tree)', function () {
  let lab: RadiusLab

  before(async function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    lab = await RadiusLab.open()
  })

  after(async () => lab?.close())

  it('puts Message-Authenticator first in every Access-Accept and Access-Reject (PAP, CHAP, MS-CHAPv2), and echoes Proxy-State in both', async () => {
    const proxied = ['Proxy-State = 0x70726f78792d31', 'Proxy-State = 0x02']
    const replies = [
      await lab.pap('alice', lab.pw.alice),
      await lab.auth([`User-Name = "alice"`, `User-Password = ${rcString(lab.pw.alice)}`, ...proxied]),
      await lab.auth([`User-Name = "alice"`, `User-Password = "wrong"`, ...proxied]),
      await lab.auth([`User-Name = "mallory"`, `User-Password = "wrong"`, ...proxied]),
      await lab.chap('gina', lab.pw.gina),
      await lab.mschap('alice'),
      await lab.mschap('alice', 'wrong'),
    ]
    expect(replies.map((r) => r.code)).to.deep.equal(['Access-Accept', 'Access-Accept', 'Access-Reject', 'Access-Reject', 'Access-Accept', 'Access-Accept', 'Access-Reject'])
    for (const r of replies) {
      expect(r.attributes[0]?.name, r.raw).to.equal('Message-Authenticator')
      expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    }
    // RFC 2865 §5.33: every Proxy-State, unchanged and in order, in accepts and in rejects.
    for (const r of replies.slice(1, 4)) expect(attr(r, 'Proxy-State'), r.raw).to.deep.equal(['0x70726f78792d31', '0x02'])
    expect(attr(replies[2], 'Service-Type')).to.deep.equal([])
  })

  it('answers Status-Server on the auth port (radclient status), signed, and only to a client with its secret', async () => {
    const r = await radclient(lab.authPort, 'status', SECRET, ['Message-Authenticator = 0x00'])
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(r.attributes.map((a) => a.name), r.raw).to.deep.equal(['Message-Authenticator'])
    const wrong = await radclient(lab.authPort, 'status', 'wrong-secret', ['Message-Authenticator = 0x00'])
    expect(wrong.code, wrong.raw).to.equal(null)
    expect((await radclient(lab.acctPort, 'status', SECRET, ['Message-Authenticator = 0x00'])).code).to.equal('Accounting-Response')
  })

  it('rejects unknown, disabled and network-login-off users before the policy: no rule named, a reason that says why', async () => {
    const expectations: [string, string][] = [
      ['mallory', 'unknown user'],
      ['ALICE', 'unknown user'],
      ['dave', 'the user is disabled'],
      ['nora', 'network login is off for this user'],
    ]
    for (const [user, reason] of expectations) {
      const r = await lab.pap(user, 'Whatever-Password-1')
      expect(r.code, r.raw).to.equal('Access-Reject')
      const e = lab.lastAuth()
      expect(e, user).to.include({ username: user, result: 'reject', reason, authType: 'PAP' })
      expect(e.ruleName, user).to.equal(null)
      expect(e.ruleLabel, user).to.equal(null)
    }
  })

  it('refuses MS-CHAPv1 unless the rule\'s profile allows it, logged as MS-CHAPv1; allowed, it authenticates', async () => {
    const refused = await lab.mschapv1('alice')
    expect(refused.code, refused.raw).to.equal('Access-Reject')
    expect(lab.lastAuth()).to.include({ username: 'alice', result: 'reject', authType: 'MS-CHAPv1', ruleName: 'admins-core', ruleLabel: 'admin' })
    expect(lab.lastAuth().reason).to.match(/^MS-CHAPv1 is refused: the RADIUS profile of the matching rule does not allow it/)
    const put = (allow: boolean) => lab.t.admin('PUT', `/api/v1/radius/profiles/${lab.profiles.admin.id}`, { body: { allow_mschapv1: allow } })
    expect((await put(true)).status).to.equal(200)
    try {
      await lab.deploy()
      const ok = await lab.mschapv1('alice')
      expect(ok.code, ok.raw).to.equal('Access-Accept')
      expect(ok.attributes[0].name).to.equal('Message-Authenticator')
      expect(attr(ok, 'Service-Type')).to.deep.equal(['Administrative-User'])
      expect(lab.lastAuth()).to.include({ username: 'alice', result: 'accept', authType: 'MS-CHAPv1', ruleName: 'admins-core' })
      const bad = await lab.mschapv1('alice', 'wrong')
      expect(bad.code, bad.raw).to.equal('Access-Reject')
      expect(lab.lastAuth()).to.include({ result: 'reject', authType: 'MS-CHAPv1' })
      // MS-CHAPv2 is unaffected either way.
      expect((await lab.mschap('alice')).code).to.equal('Access-Accept')
    } finally {
      expect((await put(false)).status).to.equal(200)
      await lab.deploy()
    }
  })

  it('sends a profile of exactly the reply budget whole: a 4096-byte MS-CHAPv2 accept with a 253-octet Proxy-State, the longest Cisco-AVPair intact', async () => {
    const proxy = `Proxy-State = 0x${randomBytes(253).toString('hex')}`
    const r = await lab.mschap('maxi', undefined, [proxy])
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(r.length, r.raw).to.equal(4096)
    expect(r.attributes[0].name).to.equal('Message-Authenticator')
    const sent = fullProfile().map((a) => a.name)
    const got = r.attributes.map((a) => a.name).filter((n) => !['Message-Authenticator', 'MS-CHAP2-Success', 'Proxy-State'].includes(n))
    expect(got).to.deep.equal(sent)
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', LONGEST_AVPAIR])
    expect(attr(r, 'MS-CHAP2-Success')).to.have.length(1)
    expect(attr(r, 'Proxy-State')).to.have.length(1)
    expect(lab.daemon!.output()).to.match(/Sent Access-Accept Id \d+ from [^\n]* length 4096\n/)
  })

  it('keeps every file it writes in its own folders: the deploy check writes nothing; the daemon logs and keeps its pid file there, not in the packaged service\'s', async () => {
    await lab.stopDaemon()
    const packaged = ['/var/log/freeradius/radius.log', '/var/run/freeradius/freeradius.pid', '/run/freeradius/freeradius.pid']
    const before = packaged.map(stamp)
    const release = lab.release
    // The check exactly as the deploy runs it.
    const check = await lab.t.app.registry.renderers.find((r) => r.renderer.id === 'radius.freeradius')!.renderer.check!()
    const c = spawnSync(check!.binary, check!.args(release), { encoding: 'utf8' })
    expect(c.status, c.stdout + c.stderr).to.equal(0)
    expect(existsSync(path.join(lab.logDir, 'radius.log')), 'the check writes no log').to.equal(false)
    expect(existsSync(lab.runDir), 'the check creates no run folder').to.equal(false)
    // As a service runs it: in the background, with no -l and no -f.
    const started = spawnSync('freeradius', ['-d', release], { stdio: 'ignore' })
    const log = () => (existsSync(path.join(lab.logDir, 'radius.log')) ? readFileSync(path.join(lab.logDir, 'radius.log'), 'utf8') : '(no radius.log)')
    expect(started.status, log()).to.equal(0)
    const pidFile = path.join(lab.runDir, 'freeradius.pid')
    const pidIn = (f: string) => (existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || null : null)
    const pid = await waitFor(() => pidIn(pidFile)).catch(() => null)
    try {
      expect(pid, `no pid file in ${lab.runDir}: ${log()}`).to.not.equal(null)
      const r = await lab.pap('alice', lab.pw.alice)
      expect(r.code, r.raw).to.equal('Access-Accept')
      expect(log()).to.include('Ready to process requests')
    } finally {
      // Stop the daemon this test started, wherever it put its pid file: only a process running this release.
      const ours = [pid, ...packaged.map(pidIn)].filter((p): p is number => p !== null && existsSync(`/proc/${p}/cmdline`) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(release))
      for (const p of new Set(ours)) process.kill(p, 'SIGTERM')
      // Gone, or a zombie that only its parent can reap.
      const alive = (p: number) => existsSync(`/proc/${p}/stat`) && readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
      await waitFor(() => (ours.some(alive) ? null : true))
    }
    expect(packaged.map(stamp)).to.deep.equal(before)
  })
})
