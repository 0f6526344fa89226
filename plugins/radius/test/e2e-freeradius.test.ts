/**
 * The FreeRADIUS renderer end to end (e2e-lab.ts): users, groups, devices,
 * RADIUS and TACACS+ profiles and AAA policy rules made through the API; the
 * tree rendered from one repeatable-read snapshot, checked with
 * `freeradius -C`, run on loopback ports and asked with radclient (PAP,
 * MS-CHAPv2, CHAP for a user with chap_enabled and rejected for the others,
 * accounting). What every reply carries: e2e-replies.test.ts. Skipped where
 * FreeRADIUS 3 and radclient are not installed.
 */
import { randomBytes } from 'node:crypto'
import { createSocket } from 'node:dgram'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { attr, HOSTILE_REPLY, RadiusLab, SECRET } from './e2e-lab.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, rcString, renderFreeradius } from './e2e-support.js'
import { runsOn } from '../../../test/kit/app.js'

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: FreeRADIUS renderer end to end (freeradius -C, daemon, radclient)', function () {
  let lab: RadiusLab

  before(async function () {
    // A server, a deploy and the daemon's start: on the embedded engine beside a busy CI, over 30 s (a limit, not a timing assertion).
    this.timeout(180_000)
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    lab = await RadiusLab.open()
  })

  after(async () => lab?.close())

  it('renders the same bytes twice from the same data; secrets and verifiers in 0600 files', async () => {
    const a = await renderFreeradius(lab.t)
    const b = await renderFreeradius(lab.t)
    expect(b).to.deep.equal(a)
    const mode = (p: string) => a.find((f) => f.path === p)!.mode
    expect(mode('clients.conf')).to.equal(0o600)
    expect(mode('portcullis/verifiers')).to.equal(0o600)
    expect(statSync(path.join(lab.release, 'clients.conf')).mode & 0o777).to.equal(0o600)
    const clients = a.find((f) => f.path === 'clients.conf')!.content
    expect(clients).to.include('require_message_authenticator = yes').and.include('shortname = "sw1"')
    const verifiers = a.find((f) => f.path === 'portcullis/verifiers')!.content
    expect(verifiers).to.match(/Crypt-Password := '\$6\$/).and.match(/NT-Password := 0x[0-9A-F]{32}/)
    for (const f of a) expect(f.content, f.path).to.not.include(lab.pw.alice)
    const renderer = lab.t.app.registry.renderers.find((r) => r.renderer.id === 'radius.freeradius')!.renderer
    expect(renderer.daemon).to.equal('freeradius')
    const check = await renderer.check!()
    expect(check!.binary).to.equal('freeradius')
    expect(check!.args('/srv/release')).to.deep.equal(['-C', '-l', 'stdout', '-d', '/srv/release'])
  })

  it('PAP: accepts with the profile reply attributes in order and Message-Authenticator; logs rule and label', async () => {
    const r = await lab.pap('alice', lab.pw.alice)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', 'shell:roles="network-admin"'])
    expect(attr(r, 'Reply-Message')).to.deep.equal([HOSTILE_REPLY])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    const e = lab.lastAuth()
    expect(e).to.include({ username: 'alice', result: 'accept', ruleName: 'admins-core', ruleLabel: 'admin', authType: 'PAP' })
    expect(e.replyAttributes).to.deep.include({ name: 'Reply-Message', value: HOSTILE_REPLY })
  })

  it('MS-CHAPv2: accepts with the profile reply attributes; a wrong response is rejected', async () => {
    const r = await lab.mschap('alice')
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'MS-CHAP2-Success'), r.raw).to.have.length(1)
    expect(lab.lastAuth()).to.include({ result: 'accept', ruleName: 'admins-core', authType: 'MS-CHAPv2' })
    const bad = await lab.mschap('alice', 'wrong')
    expect(bad.code, bad.raw).to.equal('Access-Reject')
    expect(attr(bad, 'Service-Type')).to.deep.equal([])
  })

  it('rejects a wrong password with no profile attributes, but with Message-Authenticator', async () => {
    const r = await lab.pap('alice', 'not-the-password')
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(attr(r, 'Service-Type')).to.deep.equal([])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal([])
    expect(attr(r, 'Reply-Message')).to.deep.equal([])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    expect(lab.lastAuth()).to.include({ username: 'alice', result: 'reject', ruleName: 'admins-core' })
  })

  it('follows the policy: a rule without a RADIUS profile rejects; a disabled rule is skipped; the next rule permits; no match rejects', async () => {
    const bob = await lab.pap('bob', lab.pw.bob)
    expect(bob.code, bob.raw).to.equal('Access-Reject')
    expect(attr(bob, 'Service-Type')).to.deep.equal([])
    expect(lab.lastAuth()).to.include({ username: 'bob', result: 'reject', ruleName: 'bob-sw1-tacacs-only' })
    expect(lab.lastAuth().reason).to.match(/grants no RADIUS profile/)

    // dana (helpdesk): the disabled rule would give `admin`; the next rule gives helpdesk-ro.
    const dana = await lab.pap('dana', lab.pw.dana)
    expect(dana.code, dana.raw).to.equal('Access-Accept')
    expect(attr(dana, 'Service-Type')).to.deep.equal(['NAS-Prompt-User'])
    expect(attr(dana, 'Cisco-AVPair')).to.deep.equal([])
    expect(lab.lastAuth()).to.include({ username: 'dana', result: 'accept', ruleName: 'helpdesk-sw1', ruleLabel: 'helpdesk-ro' })

    // carol: no rule but the default, which has no RADIUS profile.
    const carol = await lab.pap('carol', lab.pw.carol)
    expect(carol.code, carol.raw).to.equal('Access-Reject')
    expect(lab.lastAuth()).to.include({ username: 'carol', result: 'reject', ruleName: 'default' })

    const nobody = await lab.pap('mallory', 'whatever-password')
    expect(nobody.code, nobody.raw).to.equal('Access-Reject')
  })

  it('rejects CHAP for a user without chap_enabled with a clear reason (no cleartext password is kept)', async () => {
    const r = await lab.chap('alice', lab.pw.alice)
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(attr(r, 'Service-Type')).to.deep.equal([])
    expect(lab.lastAuth().reason).to.match(/CHAP is not supported for this user/)
  })

  it('CHAP: accepts a user with chap_enabled with the profile reply attributes; a wrong password is rejected; PAP still works', async () => {
    const files = await renderFreeradius(lab.t)
    const verifiers = files.find((f) => f.path === 'portcullis/verifiers')!.content
    expect(verifiers.match(/Cleartext-Password/g), 'only gina has a kept password').to.have.length(1)
    expect(files.find((f) => f.path === 'sites-enabled/default')!.content).to.match(/Auth-Type CHAP \{\n\t\tchap\n\t\t\$INCLUDE \.\.\/portcullis\/mfa-password\n\t\}/)
    const r = await lab.chap('gina', lab.pw.gina)
    expect(r.code, r.raw).to.equal('Access-Accept')
    expect(attr(r, 'Service-Type')).to.deep.equal(['Administrative-User'])
    expect(attr(r, 'Cisco-AVPair')).to.deep.equal(['shell:priv-lvl=15', 'shell:roles="network-admin"'])
    expect(attr(r, 'Reply-Message')).to.deep.equal([HOSTILE_REPLY])
    expect(attr(r, 'Message-Authenticator'), r.raw).to.have.length(1)
    expect(lab.lastAuth()).to.include({ username: 'gina', result: 'accept', ruleName: 'admins-core', ruleLabel: 'admin', authType: 'CHAP' })
    const bad = await lab.chap('gina', lab.pw.gina + 'x')
    expect(bad.code, bad.raw).to.equal('Access-Reject')
    expect(attr(bad, 'Service-Type')).to.deep.equal([])
    const p = await lab.pap('gina', lab.pw.gina)
    expect(p.code, p.raw).to.equal('Access-Accept')
    expect(lab.lastAuth()).to.include({ username: 'gina', result: 'accept', authType: 'PAP' })
    const m = await lab.mschap('gina')
    expect(m.code, m.raw).to.equal('Access-Accept')
  })

  it('does not answer a wrong secret, a request without Message-Authenticator, or an unknown client address', async () => {
    const wrong = await radclient(lab.authPort, 'auth', 'wrong-secret', [`User-Name = "alice"`, `User-Password = ${rcString(lab.pw.alice)}`, 'Message-Authenticator = 0x00'])
    expect(wrong.code, wrong.raw).to.equal(null)
    const noMa = await radclient(lab.authPort, 'auth', SECRET, [`User-Name = "alice"`, `User-Password = ${rcString(lab.pw.alice)}`])
    expect(noMa.code, noMa.raw).to.equal(null)
    // 127.0.0.3 is in no device prefix (sw1 is 127.0.0.1/32, other 127.0.0.128/25).
    const s = createSocket('udp4')
    await new Promise<void>((r) => s.bind(0, '127.0.0.3', r))
    let answered = false
    s.on('message', () => (answered = true))
    const packet = Buffer.concat([Buffer.from([1, 7, 0, 20 + 7]), randomBytes(16), Buffer.from([1, 7]), Buffer.from('alice')])
    s.send(packet, lab.authPort, '127.0.0.1')
    await new Promise((r) => setTimeout(r, 1500))
    s.close()
    expect(answered).to.equal(false)
  })

  it('accounting Start and Stop are answered and logged', async () => {
    const before = lab.logRecords('acct').length
    for (const status of ['Start', 'Stop']) {
      const r = await radclient(lab.acctPort, 'acct', SECRET, ['User-Name = "alice"', `Acct-Status-Type = ${status}`, 'Acct-Session-Id = "sess-1"', 'NAS-IP-Address = 127.0.0.1', 'Acct-Session-Time = 42'])
      expect(r.code, r.raw).to.equal('Accounting-Response')
    }
    const recs = lab.logRecords('acct').slice(before)
    expect(recs.map((r) => r.kind === 'acct' && r.event.acctStatusType)).to.deep.equal(['Start', 'Stop'])
    expect(recs[1].kind === 'acct' && recs[1].event).to.include({ username: 'alice', acctSessionId: 'sess-1', sessionTime: 42 })
  })

  it('writes one parsable JSON line per answered authentication, without passwords', () => {
    const recs = lab.logRecords('auth')
    expect(recs).to.have.length(lab.sent.auth)
    const text = readdirSync(lab.logDir)
      .map((f) => readFileSync(path.join(lab.logDir, f), 'utf8'))
      .join('')
    for (const p of Object.values(lab.pw)) expect(text).to.not.include(p)
  })

  it('CHAP turned off: the kept password leaves the next render and CHAP is rejected; PAP still accepts', async () => {
    const r = await lab.t.admin('PUT', `/api/v1/users/${lab.users.gina.id}`, { body: { chap_enabled: false } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    const release = await lab.deploy()
    expect(readFileSync(path.join(release, 'portcullis', 'verifiers'), 'utf8')).to.not.include('Cleartext-Password')
    const no = await lab.chap('gina', lab.pw.gina)
    expect(no.code, no.raw).to.equal('Access-Reject')
    expect(attr(no, 'Service-Type')).to.deep.equal([])
    expect(lab.lastAuth().reason).to.match(/CHAP is not supported for this user/)
    const ok = await lab.pap('gina', lab.pw.gina)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
  })

  it('a user disabled after a new render is rejected', async () => {
    const ok = await lab.pap('frank', lab.pw.frank)
    expect(ok.code, ok.raw).to.equal('Access-Accept')
    const r = await lab.t.admin('PUT', `/api/v1/users/${lab.users.frank.id}`, { body: { enabled: false } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    await lab.deploy()
    const no = await lab.pap('frank', lab.pw.frank)
    expect(no.code, no.raw).to.equal('Access-Reject')
    expect(attr(no, 'Service-Type')).to.deep.equal([])
  })
})
