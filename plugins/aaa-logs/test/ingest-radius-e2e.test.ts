/**
 * RADIUS log rows from the real FreeRADIUS 3.2 (issue 12): the tree the radius
 * renderer writes, run on loopback ports (plugins/radius/test/e2e-lab.ts),
 * asked with radclient, its JSON lines tailed by the ingester from the folder
 * of `radius.log_directory` (no option of the ingester's own), read back
 * through the API. Each reject names why and how the password came; an accept
 * carries every reply attribute; accounting folds the Gigawords in; the
 * verified client stands beside what the NAS claims. Skipped where FreeRADIUS
 * and radclient are not installed.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { RadiusLab, RULES, SECRET, strongPassword } from '../../radius/test/e2e-lab.js'
import { deployFreeradius, FREERADIUS_PRESENT, FREERADIUS_SKIP, radclient, rcString } from '../../radius/test/e2e-support.js'
import { startTestApp } from '../../../test/kit/app.js'

type Row = Record<string, unknown>
const AUTH = '/api/v1/aaa/logs/radius/authentication'
const ACCT = '/api/v1/aaa/logs/radius/accounting'

describe('aaa-logs: RADIUS rows from FreeRADIUS (reject reasons, reply attributes, Gigawords, verified client)', function () {
  this.timeout(120_000)
  let lab: RadiusLab

  before(async function () {
    if (!FREERADIUS_PRESENT) {
      console.log(`      skipped: ${FREERADIUS_SKIP}`)
      return this.skip()
    }
    lab = await RadiusLab.open({ plugins: ['aaa-logs'], settings: { 'aaa-logs.poll_ms': 20 } })
  })
  after(async () => lab?.close())

  /** The newest row of `path` for `username` once ingested (through the API, as an operator reads it). */
  async function rowOf(pathname: string, username: string, after = 0, filter = ''): Promise<Row> {
    const end = Date.now() + 15_000
    for (;;) {
      const r = await lab.t.admin('GET', `${pathname}?username=${encodeURIComponent(username)}&per_page=200&sort_by=timestamp&sort_order=desc${filter}`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const items = (r.body as { items: Row[] }).items
      if (items.length > after) return items[0]
      if (Date.now() > end) throw new Error(`no new row for ${username} in ${pathname} (have ${items.length})`)
      await new Promise((res) => setTimeout(res, 50))
    }
  }
  const countOf = async (pathname: string, username: string) => ((await lab.t.admin('GET', `${pathname}?username=${encodeURIComponent(username)}&per_page=1`)).body as { total_by_filter: number }).total_by_filter

  /** Send, expect `code`, and return the row the request left. */
  async function sent(username: string, send: () => Promise<{ code: string | null; raw: string }>, code: string): Promise<Row> {
    const before = await countOf(AUTH, username)
    const r = await send()
    expect(r.code, r.raw).to.equal(code)
    return rowOf(AUTH, username, before)
  }

  it('a reject for each reason gives a row with that reason, the method the request used and what FreeRADIUS said', async () => {
    // `message`: the row's reason column, what FreeRADIUS said (the renderer's refusal, or the module that checked the
    // password), never the error FreeRADIUS 3.2 adds when a condition compares an absent attribute (issue 26, finding 10).
    const cases: { user: string; send: () => Promise<{ code: string | null; raw: string }>; reason: string; authType: string | null; message: string }[] = [
      { user: 'mallory', send: () => lab.pap('mallory', 'whatever-password'), reason: 'unknown_user', authType: 'PAP', message: 'unknown user' },
      { user: 'dave', send: () => lab.mschap('dave', 'wrong'), reason: 'disabled', authType: 'MS-CHAPv2', message: 'the user is disabled' },
      { user: 'nora', send: () => lab.pap('nora', 'whatever-password'), reason: 'network_login_off', authType: 'PAP', message: 'network login is off for this user' },
      { user: 'carol', send: () => lab.pap('carol', lab.pw.carol), reason: 'no_rule', authType: 'PAP', message: 'AAA policy rule default grants no RADIUS profile' },
      { user: 'bob', send: () => lab.pap('bob', lab.pw.bob), reason: 'no_radius_profile', authType: 'PAP', message: 'AAA policy rule bob-sw1-tacacs-only grants no RADIUS profile' },
      { user: 'alice', send: () => lab.pap('alice', 'not-the-password'), reason: 'wrong_password', authType: 'PAP', message: 'pap: Crypt digest does not match "known good" digest' },
      { user: 'frank', send: () => lab.mschap('frank', 'wrong'), reason: 'wrong_password', authType: 'MS-CHAPv2', message: 'mschap: MS-CHAP2-Response is incorrect' },
      { user: 'dana', send: () => lab.chap('dana', lab.pw.dana), reason: 'chap_not_kept', authType: 'CHAP', message: 'CHAP is not supported for this user: it needs the cleartext password, which the platform keeps only with chap_enabled' },
      { user: 'alice', send: () => lab.mschapv1('alice'), reason: 'mschapv1_refused', authType: 'MS-CHAPv1', message: 'MS-CHAPv1 is refused: the RADIUS profile of the matching rule does not allow it (allow_mschapv1)' },
      { user: 'gina', send: () => lab.chap('gina', 'not-the-password'), reason: 'wrong_password', authType: 'CHAP', message: 'chap: Password comparison failed: password is incorrect' },
      { user: 'frank', send: () => lab.auth([`User-Name = ${rcString('frank')}`]), reason: 'no_credentials', authType: null, message: 'No Auth-Type found: rejecting the user via Post-Auth-Type = Reject' },
    ]
    for (const c of cases) {
      const row = await sent(c.user, c.send, 'Access-Reject')
      expect(row, `${c.user}: ${c.reason}`).to.include({ status: 'reject', reject_reason: c.reason, auth_type: c.authType, reason: c.message })
      expect(row.reply_attributes, c.reason).to.deep.equal([])
    }
    // Users the policy never ran for name no rule.
    expect(await rowOf(AUTH, 'mallory')).to.include({ rule_name: null })
    // Filtered by reason through the API (counted from the rows: the rollup does not split by it).
    const r = await lab.t.admin('GET', `${AUTH}?reject_reason=wrong_password&per_page=200`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    const page = r.body as { items: Row[]; total_by_filter: number }
    expect(page.items.map((i) => i.username).sort()).to.deep.equal(['alice', 'frank', 'gina'])
    expect(page.total_by_filter).to.equal(3)
    const bad = await lab.t.admin('GET', `${AUTH}?reject_reason=default`)
    expect(bad.status).to.equal(422)
    expect((bad.body as { field: string | null }).field).to.match(/reject_reason/)
  })

  it('a user with network login on and no network password set: no_network_password', async function () {
    // Network login on without any password: allowed (the verifiers come with the first password), so the daemon knows the name and holds nothing to check.
    const u = await lab.t.admin('POST', '/api/v1/users', { body: { username: 'nopw', network_login: true } })
    expect(u.status, JSON.stringify(u.body)).to.equal(201)
    const user = (await lab.t.app.identity.networkUsers(lab.t.app.db.knex)).find((x) => x.username === 'nopw')
    expect(user, 'a network user').to.not.equal(undefined)
    expect(user!.verifiers, 'no verifiers yet').to.not.be.ok
    await lab.deploy()
    const row = await sent('nopw', () => lab.pap('nopw', 'whatever-password'), 'Access-Reject')
    expect(row).to.include({ reject_reason: 'no_network_password', auth_type: 'PAP', reason: 'no network password is set for this user' })
  })

  it('an accept gives every reply attribute, in packet order, with nothing of the password check', async () => {
    const full = await sent('maxi', () => lab.pap('maxi', lab.pw.maxi), 'Access-Accept')
    // No reason on an accept: nothing failed (issue 26, finding 10: every accept carried a condition's error).
    expect(full).to.include({ status: 'accept', reject_reason: null, reason: null, rule_name: 'maxi-full', rule_label: 'full', auth_type: 'PAP' })
    // A reply of 3,752 bytes of attributes: FreeRADIUS writes 2,047 bytes of the list, so the row holds
    // the attributes before the cut, whole and in order, and says it is cut (the line is not lost).
    const logged = full.reply_attributes as { name: string; value: string }[]
    const profile = (lab.profiles.full.attributes as { name: string; value: string }[]).map((a) => a.name)
    expect(full.reply_attributes_truncated).to.equal(true)
    expect(logged.length).to.be.greaterThan(10).and.lessThan(profile.length)
    expect(logged.map((a) => a.name)).to.deep.equal(profile.slice(0, logged.length))
    expect(logged.find((a) => a.name === 'Framed-IP-Address')).to.deep.equal({ name: 'Framed-IP-Address', value: '192.0.2.7' })

    // MS-CHAPv2: the reply holds MS-CHAP2-Success too (proof of the password check), not logged.
    const ms = await sent('alice', () => lab.mschap('alice'), 'Access-Accept')
    expect(ms).to.include({ auth_type: 'MS-CHAPv2', reason: null })
    const admin = lab.profiles.admin.attributes as { name: string; value: string }[]
    expect(ms.reply_attributes).to.deep.equal(admin.map((a) => ({ name: a.name, value: a.value })))
    expect(ms.reply_attributes_truncated).to.equal(false)

    // A rule whose client prefixes hold both address families: the request came over IPv4, so the IPv6
    // address is absent and must not be compared (FreeRADIUS 3.2 would log that as the accept's reason).
    const pw = strongPassword()
    const cora = await lab.t.admin('POST', '/api/v1/users', { body: { username: 'cora', password: pw, network_login: true } })
    expect(cora.status, JSON.stringify(cora.body)).to.equal(201)
    const sw1 = ((await lab.t.admin('GET', '/api/v1/devices?per_page=100')).body as { items: { id: string; name: string }[] }).items.find((d) => d.name === 'sw1')!
    const rule = await lab.t.admin('POST', RULES, {
      body: { name: 'cora-prefixes', who: { user_id: (cora.body as { id: string }).id }, where: { device_id: sw1.id }, client_prefixes: ['2001:db8::/32', '127.0.0.0/8'], radius_profile_id: lab.profiles.admin.id },
    })
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201)
    await lab.deploy()
    const both = await sent('cora', () => lab.pap('cora', pw), 'Access-Accept')
    expect(both).to.include({ status: 'accept', rule_name: 'cora-prefixes', reason: null })
  })

  it('accounting with Gigawords gives the 64-bit totals', async () => {
    const before = await countOf(ACCT, 'alice')
    const r = await radclient(lab.acctPort, 'acct', SECRET, [
      'User-Name = "alice"',
      'Acct-Status-Type = Stop',
      'Acct-Session-Id = "gw-1"',
      'Acct-Session-Time = 86400',
      'Acct-Input-Octets = 5',
      'Acct-Input-Gigawords = 3',
      'Acct-Output-Octets = 4294967295',
      'Acct-Output-Gigawords = 2',
    ])
    expect(r.code, r.raw).to.equal('Accounting-Response')
    const row = await rowOf(ACCT, 'alice', before)
    expect(row).to.include({ acct_session_id: 'gw-1', input_octets: 3 * 2 ** 32 + 5, output_octets: 3 * 2 ** 32 - 1, session_time: 86400 })
  })

  it('the verified client and a spoofed NAS-IP-Address / NAS-Identifier differ, each in its column', async () => {
    const row = await sent(
      'alice',
      () => lab.auth([`User-Name = ${rcString('alice')}`, `User-Password = ${rcString(lab.pw.alice)}`, 'NAS-IP-Address = 10.66.66.66', 'NAS-Identifier = "core-9"']),
      'Access-Accept',
    )
    expect(row).to.include({ nas_ip: '127.0.0.1', device_name: 'sw1', nas_ip_address: '10.66.66.66', nas_identifier: 'core-9' })
    // Filtering by the device address finds it by where it came from, not by what it claimed.
    const byClaim = await lab.t.admin('GET', `${AUTH}?nas_ip=10.66.66.66`)
    expect((byClaim.body as { items: Row[] }).items).to.deep.equal([])
    const before = await countOf(ACCT, 'bob')
    const acct = await radclient(lab.acctPort, 'acct', SECRET, ['User-Name = "bob"', 'Acct-Status-Type = Start', 'Acct-Session-Id = "s-9"', 'NAS-IP-Address = 10.66.66.66', 'NAS-Identifier = "core-9"'])
    expect(acct.code, acct.raw).to.equal('Accounting-Response')
    expect(await rowOf(ACCT, 'bob', before)).to.include({ nas_ip: '127.0.0.1', device_name: 'sw1', nas_ip_address: '10.66.66.66', nas_identifier: 'core-9' })
  })

  it('one setting for where FreeRADIUS logs: changed, deployed, and the ingester follows it', async () => {
    const moved = path.join(lab.dir, 'moved-logs')
    await lab.restartApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.poll_ms': 20 }, options: { 'radius.log_directory': moved } })
    const row = await sent('dana', () => lab.pap('dana', lab.pw.dana), 'Access-Accept')
    expect(row.source_file).to.equal(path.join(moved, readdirSync(moved).find((f) => f.startsWith('radius-auth-'))!))
    expect(existsSync(moved)).to.equal(true)
  })

  it('no AAA policy loaded (the radius plugin alone): no_policy', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-nopolicy-'))
    const t = await startTestApp({ plugins: ['inventory', 'radius', 'aaa-logs'], settings: { 'aaa-logs.poll_ms': 20 }, options: { 'radius.log_directory': path.join(dir, 'logs'), 'radius.run_directory': path.join(dir, 'run') } })
    let daemon: { stop(): Promise<void> } | undefined
    try {
      const pw = `Np-${randomBytes(9).toString('base64url')}-7z`
      expect((await t.admin('POST', '/api/v1/users', { body: { username: 'olga', password: pw, network_login: true } })).status).to.equal(201)
      expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'sw9', address: '127.0.0.1/32', radius_secret: 'np-secret' } })).status).to.equal(201)
      const up = await deployFreeradius(t, path.join(dir, 'release'))
      daemon = up.daemon
      const r = await radclient(up.port, 'auth', 'np-secret', ['User-Name = "olga"', `User-Password = ${rcString(pw)}`, 'Message-Authenticator = 0x00'])
      expect(r.code, r.raw).to.equal('Access-Reject')
      const end = Date.now() + 15_000
      let items: Row[] = []
      while (items.length === 0 && Date.now() < end) {
        items = ((await t.admin('GET', `${AUTH}?username=olga`)).body as { items: Row[] }).items
        if (!items.length) await new Promise((res) => setTimeout(res, 50))
      }
      expect(items[0]).to.include({ status: 'reject', reject_reason: 'no_policy', auth_type: 'PAP', device_name: 'sw9', rule_name: null })
    } finally {
      await daemon?.stop()
      await t.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the ingester\'s own folder options are gone: a value given refuses the boot, naming the option to set', async () => {
    for (const [how, o] of [
      ['config file', { options: { 'aaa-logs.radius_log_directory': '/var/log/x' } }],
      ['environment', { env: { AAA_LOGS_TACACS_LOG_DIRECTORY: '/var/log/x' } }],
    ] as const) {
      let error: Error | null = null
      await startTestApp({ engine: 'embedded', plugins: ['aaa-logs'], ...o })
        .then((t) => t.stop())
        .catch((e: Error) => (error = e))
      expect(error, how).to.not.equal(null)
      expect(error!.message, how).to.match(how === 'environment' ? /AAA_LOGS_TACACS_LOG_DIRECTORY.*no longer read: set tacacs\.log_directory/ : /aaa-logs\.radius_log_directory is no longer read: set radius\.log_directory/)
    }
  })
})
