/**
 * Changes not yet deployed and the policy test of the deployed release: GET /aaa/policy/status and
 * system info's `deploy` say pending after a change, not pending once it is put back (it renders
 * identically) or deployed; `against: deployed` answers from the inputs kept in the active release
 * while `database` answers the policy as edited; no release: 409 in the error envelope. Bad inputs
 * and missing permissions change nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import type { TestApp } from '../../../test/kit/app.js'
import {
  clearRules, createCommandSet, createDevice, createRadiusProfile, createRule, createTacacsProfile, createUser, expectError, RULES, startPolicyApp,
} from './helpers.js'

const TEST = '/api/v1/aaa/policy/test'
const STATUS = '/api/v1/aaa/policy/status'
const INFO = '/api/v1/dashboard/system-info'
const STRONG = 'Tq-deployed-test-9zX'

describe('AAA policy: changes not yet deployed, and the policy test of the deployed release', function () {
  this.timeout(120_000)
  let t: TestApp
  let alice: any, sw1: any, cmds: any, tpAdmin: any, rpAdmin: any, rAlice: any

  const status = async () => {
    const r = await t.admin('GET', STATUS)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const pendingOf = async () => Object.fromEntries((await status()).daemons.map((d: any) => [d.daemon, d.pending]))
  const test = async (body: Record<string, unknown>) => {
    const r = await t.admin('POST', TEST, { body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', ...body } })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    return r.body
  }
  const deploy = async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
    expect(r.status, r.text).to.equal(201)
    return r.body.deploys as any[]
  }

  before(async () => {
    t = await startPolicyApp()
    // Without tac_plus-ng the TACACS+ release cannot be checked: let it through (deploy-guards.test.ts tests the refusal).
    expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    alice = await createUser(t, { password: STRONG, chap_enabled: true })
    sw1 = await createDevice(t)
    cmds = await createCommandSet(t, { commands: [{ command: 'show', action: 'permit' }] })
    tpAdmin = await createTacacsProfile(t, { privilege_level: 15, command_set_ids: [cmds.id], default_action: 'deny' })
    rpAdmin = await createRadiusProfile(t)
    await clearRules(t)
    rAlice = await createRule(t, { name: 'alice-sw1', who: { user_id: alice.id }, where: { device_id: sw1.id }, tacacs_profile_id: tpAdmin.id, radius_profile_id: rpAdmin.id })
  })
  after(async () => t?.stop())

  it('before any deploy: everything pending, no release; against deployed answers 409 POLICY_TEST_NOT_DEPLOYED', async () => {
    const s = await status()
    expect(s.pending).to.equal(true)
    expect(s.daemons.map((d: any) => [d.protocol, d.daemon, d.pending, d.active_release])).to.deep.equal([
      ['tacacs', 'tac_plus-ng', true, null],
      ['radius', 'freeradius', true, null],
    ])
    expect(s.dry_run).to.deep.equal({ method: 'POST', path: '/api/v1/deploys', body: { dry_run: true } })
    const info = await t.admin('GET', INFO)
    expect(info.status).to.equal(200)
    expect(info.body.deploy.pending).to.equal(true)
    expect(info.body.deploy.render_error).to.equal(null)
    expect(info.body.deploy.daemons.map((d: any) => d.daemon)).to.include.members(['tac_plus-ng', 'freeradius'])
    const r = await t.admin('POST', TEST, { body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', against: 'deployed' } })
    expectError(r, 409, 'POLICY_TEST_NOT_DEPLOYED', 'against')
    const db = await test({})
    expect(db.decision).to.equal('permit')
    expect(db.answered_from).to.deep.equal({ against: 'database', daemon: null, release: null, deploy_id: null, deployed_at: null })
  })

  it('a deploy clears it: not pending, the active release and deploy named in both places; the inputs file holds no secret', async () => {
    const deploys = await deploy()
    const s = await status()
    expect(s.pending).to.equal(false)
    for (const d of s.daemons) {
      const dep = deploys.find((x) => x.daemon === d.daemon)
      expect(d).to.include({ pending: false, active_release: dep.release, deploy_id: dep.id })
      expect(d.deployed_at).to.equal(dep.activated_at)
      expect(dep.files.map((f: any) => f.path)).to.include('policy-test-inputs.json')
      const text = readFileSync(path.join(t.dataDir, 'releases', d.daemon, dep.release, 'policy-test-inputs.json'), 'utf8')
      for (const secret of [STRONG, '$6$', 'tac-key-1', 'rad-secret-1']) expect(text, `${d.daemon} inputs`).to.not.include(secret)
    }
    const info = await t.admin('GET', INFO)
    expect(info.body.deploy.pending).to.equal(false)
    const tac = info.body.deploy.daemons.find((d: any) => d.daemon === 'tac_plus-ng')
    expect(tac.active_release).to.equal(deploys.find((x) => x.daemon === 'tac_plus-ng').release)
  })

  it('polling without a change renders nothing again, nor after a write nothing audits; an audited change renders at once', async () => {
    const first = await status()
    const before = t.app.deploys.pendingTracker.renders
    for (let i = 0; i < 5; i++) await status()
    expect(t.app.deploys.pendingTracker.renders).to.equal(before)
    // A write beside the policy (as log ingestion or rate limiting makes): the cached render answers.
    await t.app.db.knex('rate_limit_hits').insert({ bucket: 'pending-test', client: '192.0.2.1', hits: ['1'], last_at: 1 })
    const after = await status()
    expect(t.app.deploys.pendingTracker.renders).to.equal(before)
    expect(after.checked_at).to.equal(first.checked_at)
    // A change through the API (audited): rendered again at the next poll, and still identical here.
    expect((await t.admin('PUT', `${RULES}/${rAlice.id}`, { body: { description: 'same files?' } })).status).to.equal(200)
    await status()
    expect(t.app.deploys.pendingTracker.renders).to.equal(before + 1)
    expect((await t.admin('PUT', `${RULES}/${rAlice.id}`, { body: { description: null } })).status).to.equal(200)
  })

  it('a change after the deploy is pending; against deployed answers the old rule set, database the new', async () => {
    const deployed = (await status()).daemons
    expect((await t.admin('PUT', `${RULES}/${rAlice.id}`, { body: { enabled: false } })).status).to.equal(200)
    expect(await pendingOf()).to.deep.equal({ 'tac_plus-ng': true, freeradius: true })
    expect((await t.admin('GET', INFO)).body.deploy.pending).to.equal(true)

    const now = await test({ against: 'database' })
    expect(now.decision).to.equal('deny')
    expect(now.matched_rule?.name ?? null).to.not.equal('alice-sw1')
    const then = await test({ against: 'deployed' })
    expect(then.decision, then.reason).to.equal('permit')
    expect(then.matched_rule.name).to.equal('alice-sw1')
    const tac = deployed.find((d: any) => d.daemon === 'tac_plus-ng')
    expect(then.answered_from).to.deep.equal({ against: 'deployed', daemon: 'tac_plus-ng', release: tac.active_release, deploy_id: tac.deploy_id, deployed_at: tac.deployed_at })
    // RADIUS too, from the FreeRADIUS release; with CHAP, whose kept password the inputs know of without holding it.
    const rad = await test({ protocol: 'radius', method: 'chap', against: 'deployed' })
    expect(rad.decision, rad.reason).to.equal('permit')
    expect(rad.attributes).to.deep.equal([{ name: 'Service-Type', value: 'Administrative-User' }])
    expect(rad.answered_from.daemon).to.equal('freeradius')
    expect((await test({ protocol: 'radius', method: 'chap' })).decision).to.equal('deny')
    // By address, through the kept device list.
    expect((await t.admin('POST', TEST, { body: { username: alice.username, nas_ip: sw1.address.split('/')[0], protocol: 'tacacs', against: 'deployed' } })).body.decision).to.equal('permit')
  })

  it('a change put back renders identically: not pending', async () => {
    expect((await t.admin('PUT', `${RULES}/${rAlice.id}`, { body: { enabled: true } })).status).to.equal(200)
    expect(await pendingOf()).to.deep.equal({ 'tac_plus-ng': false, freeradius: false })
    expect((await t.admin('GET', INFO)).body.deploy.pending).to.equal(false)
  })

  it('commands: deployed answers from the command sets the release was rendered from', async () => {
    expect((await t.admin('PUT', `/api/v1/tacacs/command-sets/${cmds.id}`, { body: { commands: [{ command: 'show', action: 'deny' }] } })).status).to.equal(200)
    expect(await pendingOf()).to.deep.include({ 'tac_plus-ng': true })
    expect((await test({ command: 'show version' })).command_decision.decision).to.equal('deny')
    expect((await test({ command: 'show version', against: 'deployed' })).command_decision.decision).to.equal('permit')
  })

  it('expiry: deployed answers from the expires_at the release was rendered with', async () => {
    expect((await t.admin('PUT', `/api/v1/users/${alice.id}`, { body: { expires_at: '2001-01-01T00:00:00Z' } })).status, 'expire alice').to.equal(200)
    expect((await test({ protocol: 'radius' })).decision).to.equal('deny')
    const then = await test({ protocol: 'radius', against: 'deployed' })
    expect(then.decision, then.reason).to.equal('permit')
    expect((await t.admin('PUT', `/api/v1/users/${alice.id}`, { body: { expires_at: null } })).status).to.equal(200)
  })

  it('deploying the change clears pending, and deployed then answers the new state', async () => {
    const before = (await status()).daemons
    await deploy()
    const s = await status()
    expect(s.pending).to.equal(false)
    expect(s.daemons.map((d: any) => d.deploy_id)).to.not.deep.equal(before.map((d: any) => d.deploy_id))
    expect((await test({ command: 'show version', against: 'deployed' })).command_decision.decision).to.equal('deny')
  })

  describe('hostile input and authorization', () => {
    it('against: anything but database or deployed, or the wrong type, is 422 at against', async () => {
      for (const against of ['Deployed', 'release', '', 1, null, ['deployed'], { x: 1 }]) {
        const r = await t.admin('POST', TEST, { body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', against } })
        expectError(r, 422, 'VALIDATION_FAILED', 'against')
      }
    })

    it('a release whose inputs file is not ours to read (altered on disk) answers 409, not a guess', async () => {
      const file = path.join(t.dataDir, 'releases', 'tac_plus-ng', 'current', 'policy-test-inputs.json')
      const kept = readFileSync(file, 'utf8')
      try {
        for (const junk of ['', 'not json', '{"format":2,"users":[],"rules":[]}', 'null', '[]']) {
          writeFileSync(file, junk)
          const r = await t.admin('POST', TEST, { body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', against: 'deployed' } })
          expectError(r, 409, 'POLICY_TEST_NOT_DEPLOYED', 'against')
        }
      } finally {
        writeFileSync(file, kept)
      }
      expect((await test({ against: 'deployed' })).answered_from.against).to.equal('deployed')
    })

    it('status takes no query or body fields it does not know, and answers nothing else', async () => {
      expect((await t.admin('POST', STATUS, { body: {} })).status).to.be.oneOf([404, 405])
    })

    it('status and the deployed test need aaa-policy.read; without a token, 401', async () => {
      const active = (await status()).daemons.map((d: any) => d.deploy_id)
      const none = await t.token({ permissions: [] })
      expect((await t.req('GET', STATUS, { token: none })).status).to.equal(403)
      expect((await t.req('POST', TEST, { token: none, body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', against: 'deployed' } })).status).to.equal(403)
      expect((await t.req('GET', STATUS)).status).to.equal(401)
      const reader = await t.token({ permissions: ['aaa-policy.read'] })
      expect((await t.req('GET', STATUS, { token: reader })).status).to.equal(200)
      const r = await t.req('POST', TEST, { token: reader, body: { username: alice.username, device_id: sw1.id, protocol: 'tacacs', against: 'deployed' } })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      // Reading the pending state never deploys: the active releases are those of before. (The tokens'
      // accounts, without network login, would be pending for FreeRADIUS only, which is given such
      // users to refuse; the test kit writes them without an audit row, so seen within 30 s.)
      const s = await status()
      expect(s.daemons.map((d: any) => d.deploy_id)).to.deep.equal(active)
      expect(s.daemons.find((d: any) => d.daemon === 'tac_plus-ng').pending).to.equal(false)
    })
  })
})
