/**
 * What a deploy guards besides the check itself: a release whose daemon
 * check could not run is not activated unless an administrator allowed it
 * (security setting deploy.allow_unchecked), a failed check never; the
 * daemons' dated logs are removed after deploy.log_retention_days; and no
 * release folder keeps a cleartext CHAP password once CHAP is turned off (or
 * the password changed) and the change is deployed.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../kit/app.js'
import { current, releasesOf } from './helpers.js'

const PLUGINS = ['inventory', 'tacacs', './test/fixtures/plugins/deploy-probe']
const FREERADIUS_PRESENT = spawnSync('sh', ['-c', 'command -v freeradius']).status === 0
// The CHAP block below is skipped without it: say so, as every skip does (test/kit/skip.ts).
if (!FREERADIUS_PRESENT) console.log('      skipped: cleartext CHAP passwords on disk (FreeRADIUS 3.2, Debian: freeradius, is not installed)')

describe('deploy guards', function () {
  this.timeout(90_000)
  let t: TestApp
  const setting = async (key: string, value: unknown, app = t) => expect((await app.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.be.oneOf([200, 204])

  before(async () => {
    // A tac_plus-ng that is not there: its check cannot run.
    t = await startTestApp({ plugins: PLUGINS, env: { TAC_PLUS_NG: '/nonexistent/tac_plus-ng' } })
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '192.0.2.10', tacacs_key: 'k1' } })).status).to.equal(201)
  })
  after(async () => t?.stop())

  describe('a release nobody checked', () => {
    it('is refused: 422 DEPLOY_CHECK_SKIPPED naming the daemon, nothing activated, recorded failed', async () => {
      const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
      expect(r.status, r.text).to.equal(422)
      expect(r.body).to.include({ code: 'DEPLOY_CHECK_SKIPPED', field: 'daemon' })
      expect(r.body.detail).to.satisfy((d: string) => d.startsWith(
        'The configuration of tac_plus-ng could not be checked (/nonexistent/tac_plus-ng not found: check skipped); nothing was deployed. Install the daemon\'s binary (or point its server option at it), or let an administrator set deploy.allow_unchecked to deploy without the check. The other daemons of this deploy: ',
      ), r.body.detail)
      // Each other daemon's result (test/deploy/deploy-results.test.ts has the whole of it).
      expect(r.body.detail).to.include('secretd, not checked (no check ran for it), was not activated because the check of tac_plus-ng did not pass; deploy secretd alone to activate it')
      for (const daemon of ['tac_plus-ng', 'brokend', 'secretd']) expect(current(t.dataDir, daemon), daemon).to.equal(null)
      const rows = (await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')).body.items
      expect(rows).to.have.length(1)
      expect(rows[0]).to.include({ status: 'failed', checked: null })
      expect(rows[0].check_output).to.match(/^not checked, not activated \(deploy\.allow_unchecked is off\)/)
      const others = (await t.admin('GET', '/api/v1/deploys?daemon=secretd')).body.items
      expect(others[0].check_output).to.match(/^not activated: the check of tac_plus-ng could not run/)
      expect(others[0]).to.include({ failure_reason: 'not_activated' })
      expect(rows[0]).to.include({ failure_reason: 'check_skipped' })
    })

    it('is only let through by an administrator: deploy.allow_unchecked is a security setting', async () => {
      const operator = await t.token({ permissions: ['settings.write', 'settings.read', 'deploy.write'] })
      const r = await t.req('PUT', '/api/v1/settings/deploy.allow_unchecked', { token: operator, body: { value: true } })
      expect(r.status, r.text).to.equal(403)
      expect((await t.admin('GET', '/api/v1/settings/deploy.allow_unchecked')).body.value).to.equal(false)
    })

    it('is activated with deploy.allow_unchecked on, and says it was not checked', async () => {
      await setting('deploy.allow_unchecked', true)
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
      expect(r.status, r.text).to.equal(201)
      expect(r.body.deploys[0]).to.include({ status: 'active', checked: null })
      expect(r.body.deploys[0].check_output).to.match(/not found: check skipped/)
    })

    it('a check that ran and failed is never activated, whatever the setting', async () => {
      await setting('deploy-probe.break', true)
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'brokend' } })
      expect(r.status).to.equal(422)
      expect(r.body.code).to.equal('DEPLOY_CHECK_FAILED')
      expect(current(t.dataDir, 'brokend')).to.equal(null)
      await setting('deploy-probe.break', false)
    })
  })

  describe('log retention (deploy.log_retention_days)', () => {
    it('removes the daemons\' dated logs older than the setting at a deploy, and nothing else', async () => {
      await setting('deploy.log_retention_days', 7)
      const tac = path.join(t.dataDir, 'logs', 'tacacs')
      const day = 86_400
      const now = Date.now() / 1000
      const files = {
        [path.join(tac, 'authentication-2026-01-01.log')]: now - 30 * day,
        [path.join(tac, 'accounting-2026-01-02.log')]: now - 8 * day,
        [path.join(tac, 'authorization-2026-01-20.log')]: now - 6 * day,
        [path.join(tac, 'notes.txt')]: now - 90 * day,
      }
      for (const [p, mtime] of Object.entries(files)) {
        mkdirSync(path.dirname(p), { recursive: true })
        writeFileSync(p, 'x\n')
        utimesSync(p, mtime, mtime)
      }
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'secretd' } })
      expect(r.status, r.text).to.equal(201)
      expect(readdirSync(tac).sort()).to.deep.equal(['authorization-2026-01-20.log', 'notes.txt'])
      // The hourly run does the same between deploys.
      writeFileSync(path.join(tac, 'authentication-2026-01-03.log'), 'x\n')
      utimesSync(path.join(tac, 'authentication-2026-01-03.log'), now - 10 * day, now - 10 * day)
      expect(await t.app.deploys.pruneOldLogs()).to.deep.equal([{ directory: tac, removed: ['authentication-2026-01-03.log'] }])
    })
  })

  ;(FREERADIUS_PRESENT ? describe : describe.skip)('cleartext CHAP passwords on disk (FreeRADIUS)', () => {
    let ra: TestApp
    before(async () => {
      ra = await startTestApp({ plugins: ['inventory', 'radius'] })
    })
    after(async () => ra?.stop())
    const releaseFiles = (daemon: string) => readdirSync(releasesOf(ra.dataDir, daemon)).filter((n) => /^\d{8}T/.test(n))
    const holds = (release: string, text: string) =>
      readdirSync(path.join(releasesOf(ra.dataDir, 'freeradius'), release), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .some((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8').includes(text))

    it('removes every older release holding a CHAP password once CHAP is turned off and deployed; a rollback to one answers 409 DEPLOY_RELEASE_MISSING', async () => {
      const password = 'Chap-Cleartext-Visible-1'
      const u = await ra.admin('POST', '/api/v1/users', { body: { username: 'bob', password, network_login: true, chap_enabled: true } })
      expect(u.status, u.text).to.equal(201)
      const deploy = async () => {
        const r = await ra.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
        expect(r.status, r.text).to.equal(201)
        expect(r.body.deploys[0].checked).to.equal(true)
        return r.body.deploys[0]
      }
      const a = await deploy()
      expect(holds(a.release, password)).to.equal(true)
      // Another change: the same cleartext stays where it is.
      expect((await ra.admin('POST', '/api/v1/devices', { body: { name: 'sw2', address: '192.0.2.11', radius_secret: 's2' } })).status).to.equal(201)
      const b = await deploy()
      expect(releaseFiles('freeradius')).to.include.members([a.release, b.release])

      expect((await ra.admin('PUT', `/api/v1/users/${u.body.id}`, { body: { chap_enabled: false } })).status).to.equal(200)
      const c = await deploy()
      expect(releaseFiles('freeradius')).to.deep.equal([c.release])
      expect(holds(c.release, password)).to.equal(false)
      expect(readFileSync(path.join(releasesOf(ra.dataDir, 'freeradius'), c.release, 'portcullis', 'verifiers'), 'utf8')).to.not.include('Cleartext-Password')
      // The history keeps the rows; the folders are gone.
      const rb = await ra.admin('POST', `/api/v1/deploys/${a.id}/rollback`, { body: {} })
      expect(rb.status).to.equal(409)
      expect(rb.body.code).to.equal('DEPLOY_RELEASE_MISSING')
      expect(existsSync(path.join(releasesOf(ra.dataDir, 'freeradius'), b.release))).to.equal(false)
    })

    it('removes FreeRADIUS\'s dated JSON lines after the retention, not its own radius.log', async () => {
      await setting('deploy.log_retention_days', 3, ra)
      const rad = path.join(ra.dataDir, 'logs', 'radius')
      const now = Date.now() / 1000
      mkdirSync(rad, { recursive: true })
      for (const [n, age] of [['radius-auth-2026-01-01.jsonl', 4], ['radius-acct-2026-01-25.jsonl', 2], ['radius.log', 90]] as const) {
        writeFileSync(path.join(rad, n), 'x\n')
        utimesSync(path.join(rad, n), now - age * 86_400, now - age * 86_400)
      }
      expect(await ra.app.deploys.pruneOldLogs()).to.deep.equal([{ directory: rad, removed: ['radius-auth-2026-01-01.jsonl'] }])
      expect(readdirSync(rad).sort()).to.deep.equal(['radius-acct-2026-01-25.jsonl', 'radius.log'])
    })

    it('a release without any cleartext keeps its history: releases are removed only for a password they hold', async () => {
      expect((await ra.admin('POST', '/api/v1/devices', { body: { name: 'sw3', address: '192.0.2.12', radius_secret: 's3' } })).status).to.equal(201)
      const before = releaseFiles('freeradius')
      const r = await ra.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
      expect(r.status).to.equal(201)
      expect(releaseFiles('freeradius')).to.deep.equal([...before, r.body.deploys[0].release].sort())
    })
  })
})
