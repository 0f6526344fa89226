/**
 * Compliance on configurations put in through the collector API (test/kit/ncm-collector.ts, no SSH):
 * evaluation of every new version in the ingest, masked evidence, the report and its summary, one
 * mail per device and version for newly failing `notify` rules (test/kit/smtp.ts), re-evaluation
 * when a rule changes, and what a holder of ncm.read sees; then the rules API (compliance-rules.ts).
 */
import { randomBytes } from 'node:crypto'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError, uniq } from '../../../test/kit/expect.js'
import { enrollCollector, takeJob, TestCollector, trackDevice } from '../../../test/kit/ncm-collector.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import type { Logger } from '../../../sdk/index.js'
import { VersionHooks } from '../services/hooks.js'
import { describeRulesApi } from './compliance-rules.js'

const NOC = 'noc@example.net'
const TACACS_KEY = `tk-${randomBytes(6).toString('hex')}`

/** A Cisco-like configuration: `http` adds `ip http server`, `snmp` the community line. */
const config = (o: { host: string; http?: boolean; snmp?: boolean; extra?: string[] }) =>
  [
    'Building configuration...',
    `hostname ${o.host}`,
    '!',
    ...(o.http ? ['ip http server'] : ['no ip http server']),
    ...(o.snmp ? ['snmp-server community n0c-ro RO'] : []),
    `tacacs-server key ${TACACS_KEY}`,
    'interface GigabitEthernet1/0/1',
    ' description uplink',
    ...(o.extra ?? []),
    'end',
    '',
  ].join('\n')

describe('ncm compliance: evaluation, report and mail', function () {
  this.timeout(60_000)
  let t: TestApp
  let smtp: TestSmtp
  let col: TestCollector
  let a: Awaited<ReturnType<typeof trackDevice>>
  let b: Awaited<ReturnType<typeof trackDevice>>
  const rules: Record<string, { id: string; name: string }> = {}

  const put = async (deviceId: string, text: string) => {
    const job = await takeJob(t, col, deviceId)
    const r = await col.upload(TestCollector.ok(job, text))
    expect(r.status, r.text).to.equal(200)
    return r.body as { outcome: string; version_id: string }
  }
  const results = async (query: string) => {
    const r = await t.admin('GET', `/api/v1/ncm/compliance?per_page=200&${query}`)
    expect(r.status, r.text).to.equal(200)
    return r.body.items as { rule_id: string; rule_name: string; device_id: string; device_name: string; status: string; match_count: number; evidence: { line: number; text: string }[]; since: string; version_id: string }[]
  }
  const statusOf = async (deviceId: string) => Object.fromEntries((await results(`device_id=${deviceId}`)).map((r) => [r.rule_name, r.status]))
  const rule = async (key: string, body: Record<string, unknown>) => {
    const r = await t.admin('POST', '/api/v1/ncm/rules', { body: { name: uniq(key), ...body } })
    expect(r.status, r.text).to.equal(201)
    rules[key] = r.body
    return r.body
  }
  const settled = async (ruleId: string) => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const r = await t.admin('GET', `/api/v1/ncm/rules/${ruleId}`)
      if (!r.body.evaluating) return r.body
      if (Date.now() > deadline) throw new Error(`rule ${ruleId} still evaluating`)
      await new Promise((res) => setTimeout(res, 50))
    }
  }
  const mailsTo = () => smtp.messages.filter((m) => m.to.includes(NOC))

  before(async function () {
    this.timeout(120_000)
    smtp = await startSmtp()
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    const settings = { 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', 'ncm.compliance_mail_to': [NOC] }
    for (const [key, value] of Object.entries(settings)) expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    col = await enrollCollector(t)
    a = await trackDevice(t, col, { address: '192.0.2.41/32', name: uniq('sw-a'), tacacsKey: TACACS_KEY })
    b = await trackDevice(t, col, { address: '192.0.2.42/32', name: uniq('sw-b'), tacacsKey: TACACS_KEY })
    // Before any version: nothing to evaluate, so each settles at once.
    await settled((await rule('no-http', { requirement: 'must_not_contain', match: 'literal', pattern: 'ip http server', notify: true })).id)
    await settled((await rule('snmp-ro', { requirement: 'must_contain', match: 'regex', pattern: 'snmp-server community \\S+ ro', device_group_id: a.groupId, notify: true })).id)
    await settled((await rule('no-tacacs-key', { requirement: 'must_not_contain', match: 'regex', pattern: 'tacacs-server key .*' })).id)
  })
  after(async () => {
    await t?.stop()
    await smtp?.stop()
  })

  it('evaluates a new version in the ingest: the rules covering the device, evidence masked, one mail for the notify rules', async () => {
    await put(a.deviceId, config({ host: 'sw-a', http: true }))
    expect(await statusOf(a.deviceId)).to.deep.equal({ [rules['no-http'].name]: 'fail', [rules['snmp-ro'].name]: 'fail', [rules['no-tacacs-key'].name]: 'fail' })
    const items = await results(`device_id=${a.deviceId}`)
    const http = items.find((i) => i.rule_id === rules['no-http'].id)!
    expect(http).to.include({ match_count: 1 })
    expect(http.evidence).to.deep.equal([{ line: 3, text: 'ip http server' }]) // line 1, 'Building configuration...', is stripped
    const key = items.find((i) => i.rule_id === rules['no-tacacs-key'].id)!
    expect(key.evidence).to.have.length(1)
    expect(key.evidence[0].text).to.match(/^tacacs-server key /)
    expect(JSON.stringify(items)).not.to.include(TACACS_KEY)

    const mail = await smtp.take(NOC)
    expect(mail.subject).to.include(items[0].device_name)
    expect(mail.text).to.include(rules['no-http'].name).and.to.include('3: ip http server')
    expect(mail.text).to.include(rules['snmp-ro'].name)
    // Not a notify rule; and no secret in the mail.
    expect(mail.text).not.to.include(rules['no-tacacs-key'].name)
    expect(mail.text).not.to.include(TACACS_KEY)
    expect(mailsTo()).to.have.length(1)
  })

  it('covers only the devices of a rule\'s group', async () => {
    await put(b.deviceId, config({ host: 'sw-b', snmp: true }))
    expect(await statusOf(b.deviceId)).to.deep.equal({ [rules['no-http'].name]: 'pass', [rules['no-tacacs-key'].name]: 'fail' })
    // b newly fails no notify rule: no mail.
    expect(mailsTo()).to.have.length(1)
  })

  it('mails a violation once: not again while it lasts, again after it was fixed and comes back', async () => {
    const first = (await results(`device_id=${a.deviceId}&rule_id=${rules['no-http'].id}`))[0]
    await put(a.deviceId, config({ host: 'sw-a', http: true, extra: ['ntp server 192.0.2.1'] }))
    const still = (await results(`device_id=${a.deviceId}&rule_id=${rules['no-http'].id}`))[0]
    expect(still.status).to.equal('fail')
    expect(still.since).to.equal(first.since)
    expect(still.version_id).not.to.equal(first.version_id)
    expect(mailsTo()).to.have.length(1)

    await put(a.deviceId, config({ host: 'sw-a', snmp: true }))
    const fixed = await statusOf(a.deviceId)
    expect(fixed).to.include({ [rules['no-http'].name]: 'pass', [rules['snmp-ro'].name]: 'pass' })
    expect(mailsTo()).to.have.length(1)

    await put(a.deviceId, config({ host: 'sw-a', http: true, snmp: true }))
    const again = await smtp.take(NOC)
    expect(again.text).to.include(rules['no-http'].name)
    expect(again.text).not.to.include(rules['snmp-ro'].name)
    expect(mailsTo()).to.have.length(2)
  })

  it('re-evaluates every device when a rule is created or changed, without mail', async () => {
    const r = await rule('hostname', { requirement: 'must_contain', match: 'regex', pattern: 'hostname sw-a', notify: true })
    await settled(r.id)
    expect((await results(`rule_id=${r.id}`)).map((i) => [i.device_id, i.status]).sort()).to.deep.equal([[a.deviceId, 'pass'], [b.deviceId, 'fail']].sort())
    // A narrower scope drops the results outside it.
    const u = await t.admin('PUT', `/api/v1/ncm/rules/${r.id}`, { body: { device_group_id: b.groupId } })
    expect(u.body.evaluating).to.equal(true)
    await settled(r.id)
    expect((await results(`rule_id=${r.id}`)).map((i) => [i.device_id, i.status])).to.deep.equal([[b.deviceId, 'fail']])
    // A changed pattern decides anew.
    await t.admin('PUT', `/api/v1/ncm/rules/${r.id}`, { body: { pattern: 'hostname sw-b' } })
    await settled(r.id)
    expect((await results(`rule_id=${r.id}`)).map((i) => i.status)).to.deep.equal(['pass'])
    expect(mailsTo()).to.have.length(2)
    // Disabled: no results; enabled again: evaluated again.
    await t.admin('PUT', `/api/v1/ncm/rules/${r.id}`, { body: { enabled: false } })
    expect(await results(`rule_id=${r.id}`)).to.deep.equal([])
    await t.admin('PUT', `/api/v1/ncm/rules/${r.id}`, { body: { enabled: true } })
    await settled(r.id)
    expect(await results(`rule_id=${r.id}`)).to.have.length(1)
    expect((await t.admin('DELETE', `/api/v1/ncm/rules/${r.id}`)).status).to.equal(204)
  })

  it('summarizes per rule, and filters the report by status, rule and group', async () => {
    const s = await t.admin('GET', '/api/v1/ncm/compliance/summary')
    expect(s.status, s.text).to.equal(200)
    const byName = Object.fromEntries(s.body.rules.map((r: { name: string; pass: number; fail: number }) => [r.name, [r.pass, r.fail]]))
    expect(byName).to.deep.equal({ [rules['no-http'].name]: [1, 1], [rules['snmp-ro'].name]: [1, 0], [rules['no-tacacs-key'].name]: [0, 2] })
    expect(s.body).to.include({ devices_evaluated: 2, devices_failing: 2, evaluating: false })
    const inA = await t.admin('GET', `/api/v1/ncm/compliance/summary?device_group_id=${a.groupId}`)
    expect(inA.body).to.include({ devices_evaluated: 1, devices_failing: 1 })

    const failing = await results('status=fail')
    expect(failing.every((i) => i.status === 'fail')).to.equal(true)
    expect(failing).to.have.length(3)
    expect((await results(`device_group_id=${b.groupId}`)).every((i) => i.device_id === b.deviceId)).to.equal(true)
    expect(await results(`rule_id=${rules['snmp-ro'].id}&status=fail`)).to.deep.equal([])

    for (const [q, field] of [
      ['status=broken', 'status'],
      ['rule_id=r1', 'rule_id'],
      ['device_group_id=core', 'device_group_id'],
      ['per_page=201', 'per_page'],
      ['sort_by=device_secret', 'sort_by'],
      ['colour=red', 'colour'],
    ]) {
      const r = await t.admin('GET', `/api/v1/ncm/compliance?${q}`)
      expect(r.status, q).to.equal(422)
      expect(r.body.field, q).to.equal(field)
    }
    expectError(await t.admin('GET', '/api/v1/ncm/compliance/summary?device_group_id=x'), 422, 'VALIDATION_FAILED', 'device_group_id')
  })

  it('shows a holder of ncm.read the report, and no secret in it', async () => {
    const reader = await t.token({ permissions: ['ncm.read'] })
    const r = await t.req('GET', '/api/v1/ncm/compliance?per_page=200', { token: reader })
    expect(r.status).to.equal(200)
    expect(r.body.items.length).to.be.above(0)
    expect(r.text).not.to.include(TACACS_KEY)
    expect((await t.req('GET', '/api/v1/ncm/compliance/summary', { token: reader })).status).to.equal(200)
  })

  it('stores the version and its results when the mail server is down (the failure is logged)', async () => {
    const closed = createServer()
    await new Promise<void>((res) => closed.listen(0, '127.0.0.1', res))
    const port = (closed.address() as AddressInfo).port
    await new Promise((res) => closed.close(res))
    expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: port } })).status).to.equal(200)
    await put(b.deviceId, config({ host: 'sw-b', http: true, snmp: true }))
    expect((await statusOf(b.deviceId))[rules['no-http'].name]).to.equal('fail')
    expect(mailsTo()).to.have.length(2)
  })

  it('answers the upload while the mail server holds the violation mail unanswered; later mails go to a good server', async () => {
    // Accepts the connection and never says a word: the mailer waits for its greeting until its own timeout.
    const held = new Map<Socket, boolean>()
    const silent = createServer((s) => {
      held.set(s, true)
      s.on('close', () => held.set(s, false))
      s.on('error', () => undefined)
    })
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res))
    try {
      expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: (silent.address() as AddressInfo).port } })).status).to.equal(200)
      await put(a.deviceId, config({ host: 'sw-a', http: true })) // snmp-ro newly fails: a mail
      // The mail was attempted, and its connection is still waiting (the mailer gives up after 10 s and
      // hangs up): the answer did not wait for it. The pause lets a hang-up just before the answer arrive.
      const deadline = Date.now() + 10_000
      while (held.size === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20))
      expect(held.size, 'the mail server was not contacted').to.equal(1)
      await new Promise((res) => setTimeout(res, 500))
      expect([...held.values()], 'the upload answered only after the mail gave up').to.deep.equal([true])
      expect((await statusOf(a.deviceId))[rules['snmp-ro'].name]).to.equal('fail')
    } finally {
      for (const s of held.keys()) s.destroy()
      await new Promise((res) => silent.close(res))
    }
    expect((await t.admin('PUT', '/api/v1/settings/mail.smtp_port', { body: { value: smtp.port } })).status).to.equal(200)
    await put(a.deviceId, config({ host: 'sw-a', http: true, snmp: true }))
    await put(a.deviceId, config({ host: 'sw-a', http: true, extra: ['ntp server 192.0.2.2'] }))
    const later = await smtp.take(NOC, 15_000)
    expect(later.text).to.include(rules['snmp-ro'].name)
    expect(mailsTo()).to.have.length(3)
  })

  it("drops a device's results with its history", async () => {
    expect(await results(`device_id=${b.deviceId}`)).to.not.deep.equal([])
    expect((await t.admin('DELETE', `/api/v1/ncm/devices/${b.deviceId}/history`)).status).to.equal(200)
    expect(await results(`device_id=${b.deviceId}`)).to.deep.equal([])
    expect(await results(`device_id=${a.deviceId}`)).to.have.length(3)
  })

  // The same app: its rules cover every device too, so they come after the exact counts above.
  describeRulesApi(() => t)
})

describe('ncm new-version callbacks after the commit', () => {
  const logged: object[] = []
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (o) => void logged.push(o as object), child: () => logger }
  const version = { deviceId: 'd1', versionId: 'v1' }

  it('runs them without holding the caller, logs a failure with the device and version, and lets a stop wait for them, bounded', async () => {
    const hooks = new VersionHooks()
    let release = () => undefined as void
    const ran: string[] = []
    hooks.afterCommit(
      [
        async () => {
          throw new Error('smtp refused')
        },
        () => new Promise<void>((res) => (release = () => (ran.push('slow'), res()))),
      ],
      version,
      logger,
    )
    // Returned at once; the failure did not stop the next callback.
    await new Promise((res) => setImmediate(res))
    expect(logged).to.have.length(1)
    expect(logged[0]).to.include({ device: 'd1', version: 'v1' })
    expect(await hooks.settled(50), 'one still in flight').to.equal(false)
    release()
    expect(await hooks.settled(5_000)).to.equal(true)
    expect(ran).to.deep.equal(['slow'])
    // One that never ends does not hold a stop past its bound.
    hooks.afterCommit([() => new Promise<void>(() => undefined)], version, logger)
    expect(await hooks.settled(100)).to.equal(false)
  })
})
