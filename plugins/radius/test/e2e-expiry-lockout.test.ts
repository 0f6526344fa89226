/**
 * User expiry and account lockout against FreeRADIUS 3.2 (radclient against the deployed tree,
 * e2e-lab.ts): an expired user is rejected with the right password and the log says `expired`,
 * a user not yet expired is accepted (Session-Timeout capped at the seconds left, as rlm_expiration
 * does), and the expiry instant is enforced by the daemon to the second with no deploy in between;
 * N wrong passwords lock the account, the right one is then rejected (`locked_out`) until the
 * lockout ends, other users are unaffected, and an accepted login ends a run of failures. The policy
 * test agrees on expiry. Skipped where FreeRADIUS 3 and radclient are not installed.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { RadiusLab } from './e2e-lab.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP } from './e2e-support.js'
import { runsOn } from '../../../test/kit/app.js'

const THRESHOLD = 3
const LOCKOUT_SECONDS = 10
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// What FreeRADIUS does with the deployed tree is the same whatever the engine: once per `npm test`, in its embedded run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('radius: user expiry and account lockout, enforced by FreeRADIUS', function () {
  this.timeout(120_000)
  let lab: RadiusLab
  const pw: Record<string, string> = {}
  const ids: Record<string, string> = {}
  let soon = 0

  before(async function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    lab = await RadiusLab.open({ settings: { 'identity.lockout_threshold': THRESHOLD, 'identity.lockout_seconds': LOCKOUT_SECONDS } })
    const group = lab.users.alice.group_ids[0]
    const now = Date.now()
    soon = now + 15_000
    const expiries: Record<string, string | null> = {
      'exp-past': new Date(now - 3600_000).toISOString(),
      'exp-future': new Date(now + 365 * 86400_000).toISOString(),
      'exp-soon': new Date(soon).toISOString(),
      'lock-me': null,
      'lock-reset': null,
    }
    for (const [username, expires_at] of Object.entries(expiries)) {
      pw[username] = `Tq-${Math.random().toString(36).slice(2)}-7z-${Object.keys(pw).length}`
      const r = await lab.t.admin('POST', '/api/v1/users', { body: { username, password: pw[username], network_login: true, group_ids: [group], expires_at } })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      ids[username] = r.body.id
    }
    await lab.deploy()
  })
  after(async () => lab?.close())

  const policy = async (username: string, at?: string) => {
    const r = await lab.t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'radius', username, nas_ip: '127.0.0.1', ...(at ? { at } : {}) } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }

  it('renders the expiry as seconds since 1970 and instantiates the expiration and cache modules', async () => {
    const r = await lab.t.admin('GET', `/api/v1/users/${ids['exp-future']}`)
    const file = (p: string) => readFileSync(path.join(lab.release, p), 'utf8')
    expect(file('portcullis/verifiers')).to.include(`Expiration := ${Math.floor(Date.parse(r.body.expires_at) / 1000)}`)
    expect(file('mods-enabled/expiration')).to.include('expiration {')
    expect(file('mods-enabled/portcullis_lockout')).to.match(new RegExp(`ttl = ${LOCKOUT_SECONDS}\n`))
    expect(file('portcullis/login')).to.include(`>= ${THRESHOLD}`)
  })

  it('rejects an expired user with the right password (reason expired), and the policy test says deny for the same reason', async () => {
    const r = await lab.pap('exp-past', pw['exp-past'])
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('expired')
    const said = await policy('exp-past')
    expect(said.decision).to.equal('deny')
    expect(said.reason).to.include('expired')
  })

  it('accepts a user not yet expired, with Session-Timeout at most the seconds left, and the policy test permits', async () => {
    const r = await lab.pap('exp-future', pw['exp-future'])
    expect(r.code, r.raw).to.equal('Access-Accept')
    const timeout = Number(r.attributes.find((a) => a.name === 'Session-Timeout')?.value)
    expect(timeout).to.be.within(365 * 86400 - 120, 365 * 86400)
    const said = await policy('exp-future')
    expect(said.decision).to.equal('permit')
    expect(said.attributes[0].name).to.equal('Session-Timeout')
    expect(Math.abs(Number(said.attributes[0].value) - timeout)).to.be.at.most(3)
  })

  it('enforces the expiry instant itself, to the second, with no deploy in between', async () => {
    expect((await lab.pap('exp-soon', pw['exp-soon'])).code).to.equal('Access-Accept')
    expect((await policy('exp-soon', new Date(soon - 1000).toISOString())).decision).to.equal('permit')
    expect((await policy('exp-soon', new Date(soon).toISOString())).decision).to.equal('deny')
    await sleep(Math.max(0, soon - Date.now()) + 1100)
    const r = await lab.pap('exp-soon', pw['exp-soon'])
    expect(r.code, r.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('expired')
  })

  it(`locks an account after ${THRESHOLD} wrong passwords: the right one is rejected (locked_out) until the lockout ends; others unaffected`, async () => {
    for (let i = 0; i < THRESHOLD; i++) {
      const r = await lab.pap('lock-me', `wrong-${i}`)
      expect(r.code).to.equal('Access-Reject')
      expect(lab.lastAuth().rejectReason).to.equal('wrong_password')
    }
    const lockedAt = Date.now()
    const locked = await lab.pap('lock-me', pw['lock-me'])
    expect(locked.code, locked.raw).to.equal('Access-Reject')
    expect(lab.lastAuth().rejectReason).to.equal('locked_out')
    // Other users: not affected, nor is the same user over MS-CHAPv2 let through.
    expect((await lab.pap('alice', lab.pw.alice)).code).to.equal('Access-Accept')
    expect((await lab.mschap('lock-me')).code).to.equal('Access-Reject')
    await sleep(Math.max(0, lockedAt + LOCKOUT_SECONDS * 1000 - Date.now()) + 1500)
    const after = await lab.pap('lock-me', pw['lock-me'])
    expect(after.code, after.raw).to.equal('Access-Accept')
  })

  it('an accepted login ends a run of failures: the count starts again', async () => {
    for (let i = 0; i < THRESHOLD - 1; i++) expect((await lab.pap('lock-reset', 'wrong')).code).to.equal('Access-Reject')
    expect((await lab.pap('lock-reset', pw['lock-reset'])).code).to.equal('Access-Accept')
    for (let i = 0; i < THRESHOLD - 1; i++) expect((await lab.pap('lock-reset', 'wrong')).code).to.equal('Access-Reject')
    expect((await lab.pap('lock-reset', pw['lock-reset'])).code).to.equal('Access-Accept')
  })

  it('a lockout cleared after the failures is forgotten by the daemon (the clear instant rendered with the user)', async () => {
    // The clear in the future, written straight to the row: any failure counted before it is dropped.
    await lab.t.app.db.knex('users').where({ id: ids['lock-me'] }).update({ lockout_cleared_at: new Date(Date.now() + 3600_000) })
    await lab.deploy()
    for (let i = 0; i < THRESHOLD; i++) expect((await lab.pap('lock-me', 'wrong')).code).to.equal('Access-Reject')
    const r = await lab.pap('lock-me', pw['lock-me'])
    expect(r.code, r.raw).to.equal('Access-Accept')
  })
})
