/**
 * A deploy of every daemon in which one daemon's check fails (a tac_plus-ng checker that
 * prints an error and exits 1) while FreeRADIUS's own check passes: the 422 names each
 * daemon's result in the caller's language, the history says why the FreeRADIUS release
 * was not activated (`failure_reason`, `blocked_by`, its check output), each release is
 * audited `deploy.failed` with the outcome failure, and FreeRADIUS deployed alone succeeds.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startTestApp, type TestApp } from '../kit/app.js'
import { current } from './helpers.js'

const FREERADIUS_PRESENT = spawnSync('sh', ['-c', 'command -v freeradius']).status === 0
if (!FREERADIUS_PRESENT) console.log('      skipped: per-daemon deploy results (FreeRADIUS 3.2, Debian: freeradius, is not installed)')

;(FREERADIUS_PRESENT ? describe : describe.skip)('deploy: each daemon\'s result when one check fails', function () {
  this.timeout(120_000)
  let t: TestApp
  const bin = mkdtempSync(path.join(os.tmpdir(), 'portcullis-failing-check-'))
  const checker = path.join(bin, 'tac_plus-ng')

  before(async () => {
    // The check's first line is blank: the summary is the first line that says something.
    writeFileSync(checker, '#!/bin/sh\necho "" >&2\necho "tac_plus-ng.cfg:3: unrecognized keyword \'bogus\'" >&2\necho "parse error" >&2\nexit 1\n')
    chmodSync(checker, 0o755)
    t = await startTestApp({ plugins: ['inventory', 'tacacs', 'radius'], env: { TAC_PLUS_NG: checker } })
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '192.0.2.10', tacacs_key: 'k1', radius_secret: 's1' } })).status).to.equal(201)
  })
  after(async () => {
    await t?.stop()
    rmSync(bin, { recursive: true, force: true })
  })

  let refused: { tac: any; fr: any }

  it('answers 422 DEPLOY_CHECK_FAILED naming what happened to each daemon, in the envelope', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { comment: 'all' } })
    expect(r.status, r.text).to.equal(422)
    expect(Object.keys(r.body).sort()).to.deep.equal(['code', 'detail', 'field'])
    expect(r.body.code).to.equal('DEPLOY_CHECK_FAILED')
    expect(r.body.detail).to.include('The configuration check of tac_plus-ng failed').and.include("unrecognized keyword 'bogus'")
    expect(r.body.detail).to.include('freeradius passed its check but was not activated because the check of tac_plus-ng did not pass; deploy freeradius alone to activate it')
    expect(current(t.dataDir, 'freeradius')).to.equal(null)
    const ru = await t.admin('POST', '/api/v1/deploys', { body: {}, headers: { 'accept-language': 'ru' } })
    expect(ru.status).to.equal(422)
    expect(ru.body.detail).to.include('Проверка конфигурации tac_plus-ng не пройдена').and.include('freeradius прошёл проверку, но не активирован, потому что не прошла проверка tac_plus-ng; разверните freeradius отдельно')
  })

  it('the history says why each release was not activated', async () => {
    const failed = (await t.admin('GET', '/api/v1/deploys?status=failed&search=&per_page=50')).body.items.filter((d: any) => d.comment === 'all')
    refused = { tac: failed.find((d: any) => d.daemon === 'tac_plus-ng'), fr: failed.find((d: any) => d.daemon === 'freeradius') }
    expect(refused.tac).to.include({ status: 'failed', failure_reason: 'check_failed', checked: true })
    expect(refused.tac.blocked_by).to.deep.equal([])
    expect(refused.tac.check_output).to.include("unrecognized keyword 'bogus'")
    expect(refused.fr).to.include({ status: 'failed', failure_reason: 'not_activated', checked: true })
    expect(refused.fr.blocked_by).to.deep.equal(['tac_plus-ng'])
    expect(refused.fr.check_output).to.match(/^not activated: the check of tac_plus-ng failed; deploy freeradius alone to activate it\n/)
    expect((await t.admin('GET', `/api/v1/deploys/${refused.fr.id}`)).body).to.include({ failure_reason: 'not_activated' })
  })

  it('audits each release deploy.failed with the outcome failure and its reason', async () => {
    for (const [d, reason] of [[refused.fr, 'not_activated'], [refused.tac, 'check_failed']] as const) {
      const a = await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${d.id}`)
      expect(a.status, a.text).to.equal(200)
      expect(a.body.items).to.have.length(1)
      expect(a.body.items[0]).to.include({ action: 'deploy.failed', outcome: 'failure', reason })
      expect(a.body.items[0].after).to.include({ failure_reason: reason, daemon: d.daemon })
    }
    const failures = await t.admin('GET', '/api/v1/audit?outcome=failure&action=deploy.failed&per_page=50')
    expect(failures.body.items.length).to.be.at.least(2)
  })

  it('FreeRADIUS deployed alone is activated', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
    expect(r.status, r.text).to.equal(201)
    expect(r.body.deploys[0]).to.include({ daemon: 'freeradius', status: 'active', checked: true, failure_reason: null })
    expect(r.body.deploys[0].blocked_by).to.deep.equal([])
    expect(current(t.dataDir, 'freeradius')).to.equal(r.body.deploys[0].release)
    const a = await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${r.body.deploys[0].id}`)
    expect(a.body.items[0]).to.include({ action: 'deploy.activate', outcome: 'success' })
  })
})
