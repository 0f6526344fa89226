/**
 * The deploy pipeline through the API: release folders, the current link,
 * modes, history, audit, determinism, dry-run diffs, a failing check,
 * rollback, and the configuration preview's masking.
 */
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import { tacPlusNgBinary, TAC_PLUS_NG_SKIP } from '../kit/tac-plus-ng.js'
import { current, DEPLOY_PLUGINS, matches, mode, releasesOf, sha } from './helpers.js'

describe('deploy pipeline', function () {
  // On the embedded engine (TEST_ENGINE) a start takes seconds more.
  this.timeout(60_000)
  let t: TestApp
  const rel = (daemon: string, ...p: string[]) => path.join(releasesOf(t.dataDir, daemon), ...p)

  before(async () => {
    t = await startTestApp({ plugins: DEPLOY_PLUGINS })
    // Without a tac_plus-ng binary its release cannot be checked: let it through (deploy-guards.test.ts tests the refusal).
    if (!tacPlusNgBinary()) expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    expect((await t.admin('POST', '/api/v1/greetings', { body: { name: 'noc', message: 'Welcome' } })).status).to.equal(201)
    expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw1', address: '192.0.2.10', tacacs_key: 'SuperSecretKey1' } })).status).to.equal(201)
  })
  after(async () => t?.stop())
  /** A deploy's file records as the database keeps them: the hashes of the files on disk. */
  const recorded = async (id: string): Promise<{ path: string; sha256: string; size: number }[]> => {
    const row = (await t.app.db.knex('deploys').where({ id }).first())!
    return typeof row.files === 'string' ? JSON.parse(row.files) : row.files
  }

  let first: any[]

  it('deploys every daemon: release folders, current links, modes, history and audit rows', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { comment: 'first' } })
    expect(r.status, r.text).to.equal(201)
    first = r.body.deploys
    expect(first.map((d: any) => d.daemon)).to.deep.equal(['brokend', 'motd', 'secretd', 'tac_plus-ng'])
    for (const d of first) {
      expect(d.status).to.equal('active')
      expect(d.comment).to.equal('first')
      expect(d.actor_name).to.be.a('string')
      expect(d.release).to.match(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/)
      expect(current(t.dataDir, d.daemon)).to.equal(d.release)
      expect(matches(rel(d.daemon, d.release), await recorded(d.id)), d.daemon).to.equal(true)
    }
    const tac = first.find((d: any) => d.daemon === 'tac_plus-ng')
    const cfg = rel('tac_plus-ng', 'current', 'tac_plus-ng.cfg')
    expect(mode(cfg)).to.equal(0o600)
    // The API shows the hash and size of the masked text (no guess of the key can be tested against them); the record keeps the file's.
    const masked = readFileSync(cfg, 'utf8').replaceAll('"SuperSecretKey1"', '***')
    expect(tac.files).to.deep.equal([{ path: 'tac_plus-ng.cfg', sha256: createHash('sha256').update(masked).digest('hex'), size: Buffer.byteLength(masked), mode: '0600' }])
    expect((await recorded(tac.id))[0]).to.include({ sha256: sha(cfg), size: readFileSync(cfg).length })
    expect(readFileSync(cfg, 'utf8')).to.include('SuperSecretKey1')
    if (tacPlusNgBinary()) {
      expect(tac.checked, tac.check_output).to.equal(true)
    } else {
      expect(tac.checked).to.equal(null)
      expect(tac.check_output).to.match(/not found: check skipped/)
    }
    const motd = first.find((d: any) => d.daemon === 'motd')
    expect(motd.checked).to.equal(null)
    expect(readFileSync(rel('motd', 'current', 'motd.txt'), 'utf8')).to.equal('Welcome, noc!\n')
    // Declared 0644 and 0640: under DATA_DIR only the owner bits are kept (kernel/deploy/account.ts onDiskMode), with no daemon account.
    expect(mode(rel('motd', 'current', 'motd.txt'))).to.equal(0o600)
    expect(mode(rel('secretd', 'current', 'mods-config/files/authorize'))).to.equal(0o600)
    expect(first.find((d: any) => d.daemon === 'brokend').checked).to.equal(true)

    const h = await t.admin('GET', '/api/v1/deploys?daemon=tac_plus-ng')
    expect(h.status).to.equal(200)
    expect(h.body.items.map((d: any) => d.id)).to.deep.equal([tac.id])
    expect((await t.admin('GET', `/api/v1/deploys/${tac.id}`)).body).to.deep.equal(tac)
    const audit = await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${tac.id}`)
    expect(audit.body.items.map((a: any) => a.action)).to.deep.equal(['deploy.activate'])
    // The trail names the deploy by its daemon and release (the id alone says nothing to a reader).
    expect(audit.body.items[0].resource_name).to.equal(`tac_plus-ng ${tac.release}`)
  })

  it('is deterministic: a second deploy without a change writes the same hashes to a new release', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
    expect(r.status, r.text).to.equal(201)
    const [d] = r.body.deploys
    const before = first.find((x: any) => x.daemon === 'tac_plus-ng')
    expect(d.release).to.not.equal(before.release)
    expect(d.files).to.deep.equal(before.files)
    expect(current(t.dataDir, 'tac_plus-ng')).to.equal(d.release)
    expect((await t.admin('GET', `/api/v1/deploys/${before.id}`)).body.status).to.equal('superseded')
    // The superseded release is kept, intact.
    expect(matches(rel('tac_plus-ng', before.release), await recorded(before.id))).to.equal(true)
  })

  it('dry run: a per-file diff after a change, secrets masked, nothing activated', async () => {
    const cur = current(t.dataDir, 'motd')
    const n = (await t.admin('GET', '/api/v1/deploys')).body.total
    await t.admin('POST', '/api/v1/greetings', { body: { name: 'ops', message: 'Hi' } })
    await t.admin('PUT', '/api/v1/settings/deploy-probe.secret', { body: { value: 'n3w-s3cret' } })
    const r = await t.admin('POST', '/api/v1/deploys', { body: { dry_run: true } })
    expect(r.status, r.text).to.equal(200)
    expect(r.body.dry_run).to.equal(true)
    const motd = r.body.daemons.find((d: any) => d.daemon === 'motd')
    expect(motd.current_release).to.equal(cur)
    expect(motd.changes).to.have.length(1)
    expect(motd.changes[0].change).to.equal('changed')
    expect(motd.changes[0].diff).to.match(/^--- a\/motd\.txt\n\+\+\+ b\/motd\.txt\n@@ -1,1 \+1,2 @@\n/)
    expect(motd.changes[0].diff).to.match(/\n\+Hi, ops/)
    const secretd = r.body.daemons.find((d: any) => d.daemon === 'secretd')
    const clients = secretd.changes.find((c: any) => c.path === 'clients.conf')
    expect(clients.change).to.equal('changed')
    // Both sides mask the secret, so the change itself is invisible in the text.
    expect(clients.diff).to.equal('')
    expect(JSON.stringify(r.body)).to.not.include('n3w-s3cret').and.not.include('testing123').and.not.include('SuperSecretKey1')
    expect(secretd.changes.find((c: any) => c.path === 'mods-config/files/authorize').change).to.equal('unchanged')
    expect(r.body.daemons.find((d: any) => d.daemon === 'tac_plus-ng').changes[0].change).to.equal('unchanged')
    expect(current(t.dataDir, 'motd')).to.equal(cur)
    expect((await t.admin('GET', '/api/v1/deploys')).body.total).to.equal(n)
  })

  it('a failing check: 422 DEPLOY_CHECK_FAILED with the checker\'s message, nothing activated', async () => {
    const before = { brokend: current(t.dataDir, 'brokend'), motd: current(t.dataDir, 'motd') }
    await t.admin('PUT', '/api/v1/settings/deploy-probe.break', { body: { value: true } })
    try {
      const r = await t.admin('POST', '/api/v1/deploys', { body: {} })
      expect(r.status, r.text).to.equal(422)
      expect(r.body.code).to.equal('DEPLOY_CHECK_FAILED')
      expect(r.body.detail).to.match(/brokend.*broken config in .*brokend\.conf line 1/s)
      // All or nothing: motd's new release (it changed) is not activated either.
      expect(current(t.dataDir, 'brokend')).to.equal(before.brokend)
      expect(current(t.dataDir, 'motd')).to.equal(before.motd)
      const failed = (await t.admin('GET', '/api/v1/deploys?status=failed&daemon=brokend')).body.items
      expect(failed).to.have.length(1)
      expect(failed[0].checked).to.equal(true)
      expect(failed[0].check_output).to.include('broken config')
      expect((await t.admin('GET', '/api/v1/deploys?status=failed&daemon=motd')).body.items[0].check_output).to.match(/not activated: the check of brokend failed/)
      const only = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'brokend' } })
      expect(only.status).to.equal(422)
      // A failed deploy cannot be rolled back to.
      expect((await t.admin('POST', `/api/v1/deploys/${failed[0].id}/rollback`)).body.code).to.equal('DEPLOY_NOT_ROLLBACKABLE')
    } finally {
      await t.admin('PUT', '/api/v1/settings/deploy-probe.break', { body: { value: false } })
    }
    expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'brokend' } })).status).to.equal(201)
  })

  it('an unknown daemon is a 404', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'nope' } })
    expect(r.status).to.equal(404)
    expect(r.body.code).to.equal('DEPLOY_DAEMON_UNKNOWN')
  })

  it('rollback re-activates an earlier release and records it', async () => {
    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd' } })
    expect(r.status).to.equal(201)
    const now = r.body.deploys[0]
    expect(readFileSync(rel('motd', 'current', 'motd.txt'), 'utf8')).to.include('Hi, ops')
    const old = first.find((d: any) => d.daemon === 'motd')
    const rb = await t.admin('POST', `/api/v1/deploys/${old.id}/rollback`)
    expect(rb.status, rb.text).to.equal(200)
    expect(rb.body.status).to.equal('active')
    expect(current(t.dataDir, 'motd')).to.equal(old.release)
    expect(readFileSync(rel('motd', 'current', 'motd.txt'), 'utf8')).to.not.include('Hi, ops')
    expect((await t.admin('GET', `/api/v1/deploys/${now.id}`)).body.status).to.equal('rolled_back')
    expect((await t.admin('GET', '/api/v1/deploys?daemon=motd&status=active')).body.items.map((d: any) => d.id)).to.deep.equal([old.id])
    const audit = await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${old.id}`)
    expect(audit.body.items.map((a: any) => a.action)).to.include('deploy.rollback')
    // Forward again.
    expect((await t.admin('POST', `/api/v1/deploys/${now.id}/rollback`)).status).to.equal(200)
    expect(current(t.dataDir, 'motd')).to.equal(now.release)
  })

  it('keeps the change impact the deployer was shown in the audit entry of each release; a bad one is a 422 at its field and deploys nothing', async () => {
    const impact = {
      text: '12 users lose access to 4 devices; 2 rules now decide 1,980 requests they did not',
      window_days: 7,
      permit_to_deny: { requests: 40, events: 310 },
      deny_to_permit: { requests: 0, events: 0 },
      attributes: { requests: 3, events: 9 },
      rule: { requests: 2, events: 1980 },
      unreplayable: { requests: 1, events: 4 },
      sources: [{ name: 'aaa', state: 'complete' }, { name: 'nac', state: 'forbidden' }],
      confirmed: true,
    }
    const count = async () => (await t.admin('GET', '/api/v1/deploys?daemon=motd')).body.total
    const before = await count()
    const bad: [object, string][] = [
      [{ ...impact, window_days: 91 }, 'impact.window_days'],
      [{ ...impact, permit_to_deny: { requests: -1, events: 0 } }, 'impact.permit_to_deny.requests'],
      [{ ...impact, text: '' }, 'impact.text'],
      [{ ...impact, text: 'x'.repeat(2001) }, 'impact.text'],
      [{ ...impact, text: 'forged\u001b[2Jline' }, 'impact.text'],
      [{ ...impact, sources: [{ name: 'AAA; drop', state: 'complete' }] }, 'impact.sources[0].name'],
      [{ ...impact, sources: [{ name: 'aaa', state: 'maybe' }] }, 'impact.sources[0].state'],
      [{ ...impact, sources: Array.from({ length: 9 }, () => ({ name: 'aaa', state: 'complete' })) }, 'impact.sources'],
      [{ ...impact, extra: 1 }, 'impact.extra'],
    ]
    for (const [body, field] of bad) {
      const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd', impact: body } })
      expect(r.status, `${field}: ${r.text}`).to.equal(422)
      expect(r.body.field, r.text).to.equal(field)
      expect(r.body.detail).to.be.a('string').and.not.equal('')
    }
    const { text: _text, ...noText } = impact
    const missing = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd', impact: noText } })
    expect(missing.status).to.equal(422)
    expect(missing.body.field).to.match(/^impact/)
    expect(await count(), 'nothing deployed by a refused request').to.equal(before)

    const r = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd', comment: 'with impact', impact } })
    expect(r.status, r.text).to.equal(201)
    const id = r.body.deploys[0].id
    const audit = await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${id}`)
    const entry = audit.body.items.find((a: any) => a.action === 'deploy.activate')
    expect(entry.after.impact).to.deep.equal(impact)
    expect(entry.after.comment).to.equal('with impact')
    // Without one, the entry has none (the field is optional: the API's own clients need not send it).
    const plain = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd' } })
    const plainEntry = (await t.admin('GET', `/api/v1/audit?resource_type=deploy&resource_id=${plain.body.deploys[0].id}`)).body.items[0]
    expect(plainEntry.after).to.not.have.property('impact')
  })

  it('runs the reload command of the server option deploy.reload_commands and records its result', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-reload-'))
    const marker = path.join(dir, 'reloaded')
    // A program to run comes from the server's configuration only (here the config file's `options`).
    const r2 = await startTestApp({ plugins: DEPLOY_PLUGINS, options: { 'deploy.reload_commands': { motd: ['/bin/sh', '-c', `echo reloaded > ${marker}`], secretd: ['/bin/sh', '-c', 'echo nope >&2; exit 3'] } } })
    try {
      // As in before(): without tac_plus-ng its release cannot be checked, and this test is about the reload.
      if (!tacPlusNgBinary()) expect((await r2.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
      const r = await r2.admin('POST', '/api/v1/deploys', { body: {} })
      expect(r.status, r.text).to.equal(201)
      const by = Object.fromEntries(r.body.deploys.map((d: any) => [d.daemon, d]))
      expect(by.motd.reload_status).to.equal('ok')
      expect(readFileSync(marker, 'utf8')).to.equal('reloaded\n')
      expect(by.secretd.reload_status).to.equal('failed')
      expect(by.secretd.reload_output).to.match(/nope[\s\S]*exit 3/)
      expect(by.secretd.status).to.equal('active') // the release is current; the reload failure is reported
      expect(by['tac_plus-ng'].reload_status).to.equal(null)
    } finally {
      await r2.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('gates the routes by deploy.read / deploy.write', async () => {
    const reader = await t.token({ permissions: ['deploy.read'] })
    expect((await t.req('GET', '/api/v1/deploys', { token: reader })).status).to.equal(200)
    expect((await t.req('POST', '/api/v1/deploys', { token: reader, body: { dry_run: true } })).status).to.equal(403)
    const nobody = await t.token({ permissions: ['users.read'] })
    expect((await t.req('GET', '/api/v1/deploys', { token: nobody })).status).to.equal(403)
    const rbac = await t.admin('GET', '/api/v1/rbac/schema')
    expect(JSON.stringify(rbac.body)).to.include('deploy.read').and.include('deploy.write').and.include('config.reveal')
  })

  it('the preview reads the deployed files, masks secrets, reveals with ?reveal=true and config.reveal only', async () => {
    // The secret changed in the dry-run test above: deploy it.
    expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'secretd' } })).status).to.equal(201)
    const reader = await t.token({ permissions: ['deploy-probe.read'] })
    const revealer = await t.token({ permissions: ['deploy-probe.read', 'config.reveal'] })
    const p = await t.req('GET', '/api/v1/radius/config/preview', { token: reader })
    expect(p.status, p.text).to.equal(200)
    expect(p.body.daemon).to.equal('secretd')
    expect(p.body.release).to.equal(current(t.dataDir, 'secretd'))
    expect(p.body.files.map((f: any) => f.path)).to.deep.equal(['clients.conf', 'mods-config/files/authorize'])
    const clients = p.body.files[0]
    expect(clients.content).to.equal('client lab {\n\tipaddr = 192.0.2.1\n\tsecret = ***\n}\n')
    expect(clients.mode).to.equal('0600')
    // Of the text shown, never of the file on disk (which would confirm a guessed secret offline).
    expect(clients.sha256).to.equal(createHash('sha256').update(clients.content).digest('hex')).and.not.equal(sha(rel('secretd', 'current', 'clients.conf')))
    expect(clients.size).to.equal(Buffer.byteLength(clients.content))
    expect(p.body.files[1].content).to.equal('alice Cleartext-Password := ***\nbob NT-Password := ***\n\tReply-Message = "hello"\n')
    expect((await t.req('GET', '/api/v1/radius/config/preview?reveal=true', { token: reader })).status).to.equal(403)
    expect((await t.req('GET', '/api/v1/radius/config/preview', { token: revealer })).body.files[0].content).to.include('secret = ***')
    const shown = await t.req('GET', '/api/v1/radius/config/preview?reveal=true', { token: revealer })
    expect(shown.body.files[0].content).to.include('secret = n3w-s3cret')
    expect(shown.body.files[1].content).to.include('"wonderland"')
    expect((await t.admin('GET', '/api/v1/radius/config/preview?reveal=true')).body.files[0].content).to.include('n3w-s3cret')
  })

  it('keeps the newest deploy.keep_releases folders; a pruned release cannot be rolled back to', async () => {
    const oldest = first.find((d: any) => d.daemon === 'motd')
    await t.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 2 } })
    try {
      for (let i = 0; i < 3; i++) expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd' } })).status).to.equal(201)
      const names = readdirSync(releasesOf(t.dataDir, 'motd')).filter((n) => /^\d{8}T/.test(n))
      expect(names).to.have.length(2)
      expect(names).to.include(current(t.dataDir, 'motd'))
      const r = await t.admin('POST', `/api/v1/deploys/${oldest.id}/rollback`)
      expect(r.status).to.equal(409)
      expect(r.body.code).to.equal('DEPLOY_RELEASE_MISSING')
    } finally {
      await t.admin('PUT', '/api/v1/settings/deploy.keep_releases', { body: { value: 20 } })
    }
  })

  it('keeps failed releases out of `current` and leaves no partial folders', () => {
    for (const daemon of ['motd', 'tac_plus-ng', 'brokend', 'secretd']) {
      const names = readdirSync(releasesOf(t.dataDir, daemon))
      expect(names.filter((n) => n.endsWith('.partial') || n.startsWith('.current-'))).to.deep.equal([])
      expect(existsSync(rel(daemon, 'current'))).to.equal(true)
    }
  })

  it('the tac_plus-ng check uses the server option tacacs.binary (env TAC_PLUS_NG): a checker failing without output is a 422 too', async () => {
    const other = await startTestApp({ plugins: DEPLOY_PLUGINS, env: { TAC_PLUS_NG: '/bin/false' } })
    try {
      const r = await other.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
      expect(r.status, r.text).to.equal(422)
      expect(r.body.code).to.equal('DEPLOY_CHECK_FAILED')
      expect(r.body.detail).to.match(/\/bin\/false -P .*tac_plus-ng\.cfg: exit 1/)
      expect(existsSync(path.join(other.dataDir, 'releases', 'tac_plus-ng', 'current'))).to.equal(false)
    } finally {
      await other.stop()
    }
  })

  it('with TAC_PLUS_NG, the real tac_plus-ng -P checks the release before it is activated', async function () {
    if (!tacPlusNgBinary()) {
      console.log(`      (skipped: ${TAC_PLUS_NG_SKIP})`)
      return this.skip()
    }
    await t.admin('POST', '/api/v1/devices', { body: { name: 'sw2', address: '192.0.2.11', tacacs_key: 'AnotherKey2' } })
    const ok = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'tac_plus-ng' } })
    expect(ok.status, ok.text).to.equal(201)
    expect(ok.body.deploys[0].checked, ok.body.deploys[0].check_output).to.equal(true)
    expect(current(t.dataDir, 'tac_plus-ng')).to.equal(ok.body.deploys[0].release)
    // The dry run runs the real check as well.
    const dry = await t.admin('POST', '/api/v1/deploys', { body: { dry_run: true, daemon: 'tac_plus-ng' } })
    expect(dry.body.daemons[0]).to.include({ checked: true, check_ok: true })
  })
})

// Pinned to the embedded engine: in the embedded run only, not once more in the PostgreSQL run (docs/testing.md).
;(runsOn('embedded') ? describe : describe.skip)('deploy pipeline on the embedded engine', function () {
  this.timeout(60_000)
  let t: TestApp
  before(async () => {
    t = await startTestApp({ engine: 'embedded', plugins: ['./examples/greetings-plugin'] })
  })
  after(async () => t?.stop())

  it('deploys, diffs and rolls back through the single connection', async () => {
    const a = await t.admin('POST', '/api/v1/deploys', { body: {} })
    expect(a.status, a.text).to.equal(201)
    await t.admin('POST', '/api/v1/greetings', { body: { name: 'e', message: 'Embedded' } })
    const dry = await t.admin('POST', '/api/v1/deploys', { body: { dry_run: true } })
    expect(dry.body.daemons[0].changes[0].diff).to.include('+Embedded, e!')
    const b = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd', comment: 'second' } })
    expect(b.status).to.equal(201)
    expect(current(t.dataDir, 'motd')).to.equal(b.body.deploys[0].release)
    expect((await t.admin('POST', `/api/v1/deploys/${a.body.deploys[0].id}/rollback`)).status).to.equal(200)
    expect(current(t.dataDir, 'motd')).to.equal(a.body.deploys[0].release)
    expect((await t.admin('GET', '/api/v1/deploys?status=rolled_back')).body.items.map((d: any) => d.id)).to.deep.equal([b.body.deploys[0].id])
  })

  it('deploys the platform asks for: coalesced per daemon, no actor, the reasons in the comment, live when they resolve', async () => {
    const rows = () => t.app.db.knex('deploys').where({ daemon: 'motd' }).orderBy('created_at', 'asc').select('id', 'actor_id', 'comment', 'release', 'status')
    const before = (await rows()).length
    await t.admin('POST', '/api/v1/greetings', { body: { name: 'guest1', message: 'Registered' } })
    // Asked at once: one deploy serves all three.
    await Promise.all([t.app.deploys.request('motd', 'guest a'), t.app.deploys.request('motd', 'guest b'), t.app.deploys.request('motd', 'guest a')])
    let all = await rows()
    expect(all.length - before).to.equal(1)
    const one = all[all.length - 1]
    expect(one).to.include({ actor_id: null, status: 'active', comment: 'guest a; guest b' })
    expect(current(t.dataDir, 'motd'), 'live when the request resolved').to.equal(one.release)
    // Asked while a deploy runs: they wait for the next one, which they share, and it carries what changed after the first began.
    const first = t.app.deploys.request('motd', 'guest c')
    // Past the gathering of its requests (100 ms): its deploy has begun.
    await new Promise((r) => setTimeout(r, 250))
    await t.admin('POST', '/api/v1/greetings', { body: { name: 'guest2', message: 'Later' } })
    await Promise.all([first, t.app.deploys.request('motd', 'guest d'), t.app.deploys.request('motd', 'guest e')])
    all = await rows()
    expect(all.length - before).to.equal(3)
    expect(all.slice(-2).map((r) => r.comment)).to.deep.equal(['guest c', 'guest d; guest e'])
    const live = await t.app.deploys.currentFiles('motd')
    expect(live!.files.map((f) => f.content).join('')).to.include('Later, guest2!')
    // A request for a daemon nothing renders rejects with the deploy's error.
    let err: unknown = null
    await t.app.deploys.request('nosuchd', 'x').catch((e: unknown) => (err = e))
    expect((err as { code?: string } | null)?.code).to.equal('DEPLOY_DAEMON_UNKNOWN')
  })
})
