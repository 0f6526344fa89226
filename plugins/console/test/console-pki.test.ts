/**
 * The console's PKI screens in a real browser (headless chromium) against
 * the real server on a throwaway PostgreSQL, as a person uses them: a root
 * CA made in the form (a bad name refused under its input first, nothing
 * made), its details (the fingerprint the API answers) and certificate
 * downloaded; a certificate issued from a CSR made by the real openssl (a
 * weak key refused under the CSR input first), found by search and by
 * status, revoked with a reason after a confirmation, and the CA's CRL,
 * downloaded from the screen, listing it (read by openssl); in Russian, a
 * certificate with a key generated on the server and its one-time download
 * link (a short passphrase refused under its input), which delivers a
 * PKCS#12 once; a template made (a bad name pattern refused under its
 * input) and deleted; and a reader (`pki.view`) who sees no button that changes
 * anything, on a tablet too (the page does not scroll sideways). Then a CA
 * made elsewhere by the real openssl, imported through the form (a key of
 * another certificate refused under the key input and a garbage certificate
 * under the chain input first, nothing made), and
 * two EST enrollments held for approval, sent over HTTP by the test as a
 * device does: one approved and one rejected on the templates screen, after
 * which the device's next poll gets its certificate, or the refusal.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { runsOn, type TestApp } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { context, inputError, launch, needConsole, pickOption, screenshot, signInAt, startWithAdmin, clearRateLimits, answerConfirm, signInWithToken } from './browser.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const PASSWORD = 'Portcullis-Pki-2026!'
const hasOpenssl = () => spawnSync('openssl', ['version']).status === 0

const signIn = (page: Page, t: TestApp, to: string) => signInAt(page, t.url + to, 'admin', PASSWORD)

/** Picks `label` in the Mantine Select whose label is `select` (a required one's label ends with an asterisk); the last such, so a dialog's (drawn at the end of the page) before the page's filter of the same name. */
const pick = (page: Page, select: string, label: string | RegExp) => pickOption(page, select, label, { last: true })

;(runsOn('postgres') ? describe : describe.skip)('console: the PKI screens in a browser', function () {
  this.timeout(300_000)
  let t: TestApp
  beforeEach(() => clearRateLimits(t))
  let browser: Browser
  let dir: string
  const openssl = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, timeout: 60_000 })
    expect(r.status, `openssl ${args.join(' ')}\n${r.stderr}`).to.equal(0)
    return r.stdout.toString()
  }
  const csr = (subject: string, key: string[]) => {
    openssl(['req', '-new', ...key, '-nodes', '-keyout', 'req.key', '-subj', subject, '-addext', `subjectAltName=DNS:${subject.slice(4)}`, '-out', 'req.csr'])
    return readFileSync(path.join(dir, 'req.csr'), 'utf8')
  }

  before(async function () {
    needConsole(this)
    if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl): the test makes its CSR with it')
    t = await startWithAdmin({ engine: 'postgres', plugins: ['pki', 'console'] }, PASSWORD)
    dir = mkdtempSync(path.join(tmpdir(), 'console-pki-'))
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('makes a root CA, issues a certificate from a CSR, finds it, revokes it, and the downloaded CRL lists it', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/pki/cas')
    await page.getByRole('heading', { name: 'Certificate authorities', level: 1 }).waitFor()
    const menu = page.getByRole('navigation')
    await menu.getByRole('link', { name: 'Certificates', exact: true }).waitFor()
    await menu.getByRole('link', { name: 'Certificate templates' }).waitFor()

    // A name with a space is refused under the name input; nothing is made.
    await page.getByRole('button', { name: 'Add CA' }).click()
    await page.locator('input[name="name"]').fill('e2e root')
    await page.locator('input[name="subject.CN"]').fill('E2E Root CA')
    await page.locator('input[name="subject.O"]').fill('Portcullis')
    await page.getByTestId('ca-form').getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'name')).to.not.equal('')
    expect((await t.admin('GET', '/api/v1/pki/cas')).body).to.have.length(0)
    await page.locator('input[name="name"]').fill('e2e-root')
    await page.getByTestId('ca-form').getByRole('button', { name: 'Create' }).click()

    // Made: its details open, with what the API answers.
    const details = page.getByTestId('ca-details')
    await details.waitFor()
    const [ca] = (await t.admin('GET', '/api/v1/pki/cas')).body
    expect(ca).to.include({ name: 'e2e-root', kind: 'root', subject: 'CN=E2E Root CA,O=Portcullis', crl_number: 1 })
    expect(await details.getByTestId('fingerprint').textContent()).to.equal(ca.fingerprint_sha256)
    await details.getByText('CN=E2E Root CA,O=Portcullis').waitFor()
    await page.locator('tr[data-ca="e2e-root"]').getByText('root', { exact: true }).waitFor()
    const [pem] = await Promise.all([page.waitForEvent('download'), details.getByRole('button', { name: 'Download certificate' }).click()])
    expect(pem.suggestedFilename()).to.equal('e2e-root.pem')
    expect(readFileSync((await pem.path())!, 'utf8')).to.equal(ca.certificate)
    await screenshot(page, 'pki-cas')
    await page.keyboard.press('Escape')

    // Issue from a CSR: a 1024-bit RSA key first, refused under the CSR input by the template; nothing issued.
    await menu.getByRole('link', { name: 'Certificates', exact: true }).click()
    await page.getByRole('heading', { name: 'Certificates', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Issue certificate' }).click()
    await pick(page, 'Template', 'freeradius-eap-server')
    await page.getByTestId('template-summary').getByText(/825 days/).waitFor()
    await page.locator('textarea[name="csr"]').fill(csr('/CN=weak.example.net', ['-newkey', 'rsa:1024']))
    await page.getByRole('button', { name: 'Issue', exact: true }).click()
    expect(await inputError(page, 'csr')).to.match(/2048/)
    expect((await t.admin('GET', '/api/v1/pki/certificates')).body.total).to.equal(0)
    await page.locator('textarea[name="csr"]').fill(csr('/CN=radius1.example.net', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']))
    await page.getByRole('button', { name: 'Issue', exact: true }).click()
    const cd = page.getByTestId('certificate-details')
    await cd.getByTestId('certificate-status').getByText('valid').waitFor()
    const cert = (await t.admin('GET', '/api/v1/pki/certificates')).body.items[0]
    expect(cert).to.include({ subject: 'CN=radius1.example.net', san: 'DNS:radius1.example.net', status: 'valid', ca_id: ca.id })
    await cd.getByText(cert.fingerprint_sha256).waitFor()
    await page.keyboard.press('Escape')

    // In the list; found by a search, and not among the revoked.
    const row = page.locator(`tr[data-serial="${cert.serial}"]`)
    await row.waitFor()
    await page.locator('input[name="search"]').fill('radius1')
    await page.getByTestId('certificates-total').getByText('1 in all').waitFor()
    expect(page.url()).to.include('search=radius1')
    await pick(page, 'Status', 'revoked')
    await page.getByText('No certificates match.').waitFor()
    await page.goto(t.url + '/pki/certificates?search=radius1')
    await row.waitFor()

    // Revoke, with a reason, after the confirmation: the screen and the server say revoked.
    await page.getByRole('button', { name: `Details of ${cert.subject}` }).click()
    await cd.getByRole('button', { name: 'Revoke…' }).click()
    const confirm = page.getByRole('dialog', { name: 'Revoke the certificate' })
    await confirm.getByText('Revocation is final').waitFor()
    await pick(page, 'Reason', 'Key compromise')
    await confirm.getByRole('button', { name: 'Revoke', exact: true }).click()
    await cd.getByTestId('certificate-status').getByText('revoked').waitFor()
    await cd.getByText(/Key compromise/).waitFor()
    expect((await t.admin('GET', `/api/v1/pki/certificates/${cert.id}`)).body).to.include({ status: 'revoked', revocation_reason: 'keyCompromise' })
    await page.keyboard.press('Escape')
    await page.locator(`tr[data-serial="${cert.serial}"][data-status="revoked"]`).waitFor()
    await screenshot(page, 'pki-certificates')

    // The CA's CRL moved to number 2; the file the screen downloads lists the certificate, revoked for key compromise.
    await menu.getByRole('link', { name: 'Certificate authorities' }).click()
    await page.getByRole('button', { name: 'CA e2e-root' }).click()
    await details.getByTestId('crl-number').getByText('2').waitFor()
    const [crl] = await Promise.all([page.waitForEvent('download'), details.getByTestId('crl-pem').click()])
    const text = spawnSync('openssl', ['crl', '-in', (await crl.path())!, '-noout', '-text']).stdout.toString()
    expect(text).to.include(`Serial Number: ${cert.serial}`)
    expect(text).to.include('Key Compromise')

    // The certificate's own audit trail, from its details: its issue and its revocation.
    await page.keyboard.press('Escape')
    await menu.getByRole('link', { name: 'Certificates', exact: true }).click()
    await page.locator(`tr[data-serial="${cert.serial}"]`).getByRole('button').first().click()
    await cd.getByRole('link', { name: 'Audit trail of this record' }).click()
    await page.getByRole('heading', { name: 'Audit trail', level: 1 }).waitFor()
    await page.getByTestId('audit-table').locator('tr[data-action="pki_certificate.revoke"]').waitFor()
    expect(await page.getByTestId('audit-table').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')))).to.have.members(['pki_certificate.issue', 'pki_certificate.revoke'])
    await page.context().close()
  })

  it('in Russian: issues with a key generated on the server and makes its one-time link, which delivers once', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, t, '/pki/certificates')
    await page.getByRole('heading', { name: 'Сертификаты', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Выпустить сертификат' }).click()
    await page.getByText('Создать ключ на сервере').click()
    await pick(page, 'ЦС', 'e2e-root')
    await pick(page, 'Шаблон', 'freeradius-eap-server')
    await page.locator('input[name="subject.CN"]').fill('sw1.example.net')
    await page.locator('textarea[name="san"]').fill('sw1.example.net\nIP:10.0.0.1')
    await page.getByRole('button', { name: 'Выпустить', exact: true }).click()
    const issued = page.getByTestId('issued-generated')
    await issued.getByText('Закрытый ключ на сервере, один раз').waitFor()
    const cert = (await t.admin('GET', '/api/v1/pki/certificates?search=sw1')).body.items[0]
    expect(cert).to.include({ subject: 'CN=sw1.example.net', san: 'DNS:sw1.example.net, IP:10.0.0.1' })

    // A passphrase under 8 characters is refused under its input; no link is made.
    await page.locator('input[name="passphrase"]').fill('short')
    await page.getByRole('button', { name: 'Сделать ссылку' }).click()
    expect(await inputError(page, 'passphrase')).to.not.equal('')
    await page.locator('input[name="passphrase"]').fill('Correct-Horse-9')
    await page.getByRole('button', { name: 'Сделать ссылку' }).click()
    await issued.getByText('Эта ссылка содержит закрытый ключ').waitFor()
    expect(await issued.getByText('Закрытый ключ на сервере, один раз').count()).to.equal(0)
    const url = await page.getByTestId('download-url').inputValue()
    expect(url).to.match(new RegExp(`^${t.url}/api/v1/public/cert-download/[A-Za-z0-9_-]{43}$`))
    await screenshot(page, 'pki-issue-key')

    // The link delivers a PKCS#12 with the key once (openssl opens it with the passphrase), then is spent.
    const first = await fetch(url, { method: 'POST' })
    expect(first.status).to.equal(200)
    expect(first.headers.get('content-type')).to.include('application/x-pkcs12')
    const p12 = path.join(dir, 'sw1.p12')
    writeFileSync(p12, Buffer.from(await first.arrayBuffer()))
    expect(spawnSync('openssl', ['pkcs12', '-in', p12, '-passin', 'pass:Correct-Horse-9', '-nodes']).stdout.toString()).to.include('PRIVATE KEY')
    expect((await fetch(url, { method: 'POST' })).status).to.equal(410)
    await page.getByRole('button', { name: 'Готово' }).click()
    await page.getByTestId('certificate-details').getByText('CN=sw1.example.net').waitFor()
    await page.context().close()
  })

  it('makes a template (a bad name pattern refused under its input) and deletes it after the confirmation', async () => {
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/pki/templates')
    await page.getByRole('heading', { name: 'Certificate templates', level: 1 }).waitFor()
    await page.locator('tr[data-template="freeradius-eap-server"]').getByText('serverAuth').waitFor()
    await page.getByRole('button', { name: 'Add template' }).click()
    await page.locator('input[name="name"]').fill('e2e-clients')
    await page.locator('textarea[name="name_patterns"]').fill('*.clients.example.net\nbad..name')
    await page.getByTestId('template-form').getByRole('button', { name: 'Create' }).click()
    expect(await inputError(page, 'name_patterns')).to.not.equal('')
    const names = async () => ((await t.admin('GET', '/api/v1/pki/templates')).body as { name: string }[]).map((x) => x.name)
    expect(await names()).not.to.include('e2e-clients')
    await page.locator('textarea[name="name_patterns"]').fill('*.clients.example.net')
    await page.getByTestId('template-form').getByRole('button', { name: 'Create' }).click()
    await page.locator('tr[data-template="e2e-clients"]').getByText('*.clients.example.net').waitFor()
    const made = ((await t.admin('GET', '/api/v1/pki/templates')).body as { name: string; name_patterns: string[]; extended_key_usage: string[] }[]).find((x) => x.name === 'e2e-clients')!
    expect(made).to.deep.include({ name_patterns: ['*.clients.example.net'], extended_key_usage: ['clientAuth'] })
    await page.getByRole('button', { name: 'Delete e2e-clients' }).click()
    await answerConfirm(page)
    await page.locator('tr[data-template="e2e-clients"]').waitFor({ state: 'detached' })
    expect(await names()).not.to.include('e2e-clients')
    await page.context().close()
  })

  it('shows a reader (pki.view) the CAs and certificates without a button that changes them, and fits a tablet', async () => {
    const token = await t.token({ permissions: ['pki.view'] })
    const c = await context(browser, { locale: 'en-US' })
    await signInWithToken(c, t.url, token)
    const page = await c.newPage()
    await page.goto(t.url + '/pki/certificates')
    await page.getByRole('heading', { name: 'Certificates', level: 1 }).waitFor()
    await page.locator('tr[data-status="revoked"]').waitFor()
    expect(await page.getByRole('button', { name: 'Issue certificate' }).count()).to.equal(0)
    await page.locator('tr[data-status="valid"]').getByRole('button').first().click()
    await page.getByTestId('certificate-details').waitFor()
    expect(await page.getByRole('button', { name: 'Revoke…' }).count()).to.equal(0)
    expect(await page.getByTestId('download-link').count()).to.equal(0)
    await page.goto(t.url + '/pki/cas')
    await page.locator('tr[data-ca="e2e-root"]').waitFor()
    expect(await page.getByRole('button', { name: 'Add CA' }).count()).to.equal(0)
    await page.goto(t.url + '/pki/templates')
    await page.locator('tr[data-template="freeradius-eap-server"]').waitFor()
    expect(await page.getByRole('button', { name: 'Add template' }).count()).to.equal(0)
    // On a tablet in portrait the wide table scrolls in its own box: the page itself does not scroll sideways.
    await page.setViewportSize({ width: 820, height: 1180 })
    await page.goto(t.url + '/pki/certificates')
    await page.locator('tr[data-status="revoked"]').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).to.equal(true)
    await c.close()
  })

  it('imports a CA made by openssl (a key of another certificate and a garbage certificate refused under their inputs, nothing made) and lists it with its subject', async () => {
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ext.key', '-subj', '/CN=Elsewhere Root CA/O=Elsewhere', '-days', '365', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'ext.pem'])
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'other.key'])
    const certificate = readFileSync(path.join(dir, 'ext.pem'), 'utf8')
    const cas = async () => (await t.admin('GET', '/api/v1/pki/cas')).body as { name: string; subject: string; imported: boolean; kind: string; certificate: string; key_algorithm: string }[]
    const before = (await cas()).length
    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/pki/cas')
    await page.getByRole('heading', { name: 'Certificate authorities', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Add CA' }).click()
    const form = page.getByTestId('ca-form')
    await form.getByText('Import', { exact: true }).click()
    await page.locator('input[name="name"]').fill('elsewhere-root')
    await page.locator('textarea[name="certificate_chain"]').fill(certificate)
    await page.locator('textarea[name="private_key"]').fill(readFileSync(path.join(dir, 'other.key'), 'utf8'))
    await form.getByRole('button', { name: 'Import', exact: true }).click()
    expect(await inputError(page, 'private_key')).to.not.equal('')
    expect(await page.locator('[name="certificate_chain"][aria-invalid="true"]').count()).to.equal(0)
    expect(await cas()).to.have.length(before)

    // Its own key, under a chain that is no certificate: refused under the chain input this time; nothing made.
    await page.locator('textarea[name="private_key"]').fill(readFileSync(path.join(dir, 'ext.key'), 'utf8'))
    await page.locator('textarea[name="certificate_chain"]').fill('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
    await form.getByRole('button', { name: 'Import', exact: true }).click()
    expect(await inputError(page, 'certificate_chain')).to.not.equal('')
    expect(await page.locator('[name="private_key"][aria-invalid="true"]').count()).to.equal(0)
    expect(await cas()).to.have.length(before)

    // The CA's certificate and its own key: imported; its details open, and the list shows it with its subject.
    await page.locator('textarea[name="certificate_chain"]').fill(certificate)
    await form.getByRole('button', { name: 'Import', exact: true }).click()
    const details = page.getByTestId('ca-details')
    await details.waitFor()
    const all = await cas()
    expect(all).to.have.length(before + 1)
    const ca = all.find((c) => c.name === 'elsewhere-root')!
    expect(ca).to.include({ kind: 'root', imported: true, key_algorithm: 'ECDSA-P256', certificate })
    expect(ca.subject).to.match(/CN=Elsewhere Root CA/).and.match(/O=Elsewhere/)
    await details.getByText(ca.subject, { exact: true }).waitFor()
    await details.getByText('root, imported').waitFor()
    await page.keyboard.press('Escape')
    await page.locator('tr[data-ca="elsewhere-root"]').getByText(ca.subject, { exact: true }).waitFor()
    await page.context().close()
  })

  it('approves one held EST enrollment and rejects another on the templates screen; the device then gets its certificate, or the refusal', async () => {
    // EST as the pki tests set it up: an issuing CA, a template, a group whose members may enroll, approval required.
    const root = ((await t.admin('GET', '/api/v1/pki/cas')).body as { id: string; name: string }[]).find((c) => c.name === 'e2e-root')!
    const ca = await t.admin('POST', '/api/v1/pki/cas', { body: { name: 'e2e-est', subject: { CN: 'E2E EST CA' }, key_algorithm: 'ECDSA-P256', validity_days: 3650, parent_id: root.id } })
    expect(ca.status, ca.text).to.equal(201)
    const template = await t.admin('POST', '/api/v1/pki/templates', {
      body: { name: 'e2e-est-devices', key_usage: ['digitalSignature'], extended_key_usage: ['clientAuth'], validity_days: 365, name_patterns: ['*.devices.example.net'], subject_attributes: ['CN'], san_types: ['dns'], min_rsa_bits: 2048, min_ec_bits: 256 },
    })
    expect(template.status, template.text).to.equal(201)
    const group = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'e2e-est-devices' } })
    const device = 'e2e-est-device'
    expect((await t.admin('POST', '/api/v1/users', { body: { username: device, password: PASSWORD, group_ids: [group.body.id] } })).status).to.equal(201)
    const settings = { 'pki.est_ca_id': ca.body.id, 'pki.est_template_id': template.body.id, 'pki.est_group_id': group.body.id, 'nac.est_enabled': true, 'pki.est_approval_required': true }
    for (const [key, value] of Object.entries(settings)) expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
    const enroll = (b64: string) =>
      fetch(`${t.url}/.well-known/est/simpleenroll`, { method: 'POST', headers: { 'content-type': 'application/pkcs10', authorization: `Basic ${Buffer.from(`${device}:${PASSWORD}`).toString('base64')}` }, body: b64 })
    const b64Csr = (cn: string) => {
      openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${cn}.key`, '-subj', `/CN=${cn}`, '-out', `${cn}.csr`])
      return readFileSync(path.join(dir, `${cn}.csr`), 'utf8').replace(/-----[^-]+-----/g, '').trim()
    }
    const approve = b64Csr('sw30.devices.example.net')
    const reject = b64Csr('sw31.devices.example.net')
    for (const csr of [approve, reject]) {
      const held = await enroll(csr)
      expect(held.status, await held.text()).to.equal(202)
    }
    const request = async (cn: string) => (await t.admin('GET', `/api/v1/pki/est-requests?search=${cn}`)).body.items[0] as { id: string; status: string; certificate_id: string | null; decided_via: string | null }
    const certificates = async (cn: string) => (await t.admin('GET', `/api/v1/pki/certificates?search=${cn}`)).body.items as { id: string; subject: string; ca_id: string; status: string }[]
    expect(await request('sw30')).to.include({ status: 'pending', certificate_id: null })

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, t, '/pki/templates')
    const queue = page.getByTestId('est-requests')
    await queue.getByRole('heading', { name: 'EST enrollments awaiting approval' }).waitFor()
    const approveButton = queue.getByRole('button', { name: 'Approve CN=sw30.devices.example.net' })
    const rejectButton = queue.getByRole('button', { name: 'Reject CN=sw31.devices.example.net' })
    await approveButton.waitFor()
    await rejectButton.waitFor()
    const filter = (label: string) => queue.locator('label').filter({ hasText: new RegExp(`^${label}$`) }).click()
    const row = (cn: string) => queue.locator('tr').filter({ hasText: `CN=${cn}` })

    // Approved: it leaves the pending list; the server holds it approved, still without a certificate (the device has not polled).
    await approveButton.click()
    await row('sw30.devices.example.net').waitFor({ state: 'detached' })
    expect(await request('sw30')).to.include({ status: 'approved', decided_via: 'api', certificate_id: null })
    // Rejected after the confirmation: the pending list is empty.
    await rejectButton.click()
    await answerConfirm(page)
    await queue.getByText('None.').waitFor()
    expect(await request('sw31')).to.include({ status: 'rejected', decided_via: 'api' })
    await filter('approved')
    await row('sw30.devices.example.net').getByText('approved', { exact: true }).waitFor()

    // The device's next poll: the approved one gets its certificate (openssl reads it), the rejected one 403.
    const got = await enroll(approve)
    expect(got.status).to.equal(200)
    writeFileSync(path.join(dir, 'sw30.p7'), Buffer.from((await got.text()).replace(/\s+/g, ''), 'base64'))
    expect(openssl(['pkcs7', '-inform', 'DER', '-in', 'sw30.p7', '-print_certs'])).to.match(/CN ?= ?sw30\.devices\.example\.net/)
    const refused = await enroll(reject)
    expect(refused.status).to.equal(403)
    expect(((await refused.json()) as { code: string }).code).to.equal('PKI_EST_REJECTED')
    const [issued] = await certificates('sw30')
    expect(issued).to.include({ subject: 'CN=sw30.devices.example.net', ca_id: ca.body.id, status: 'valid' })
    expect(await request('sw30')).to.include({ status: 'issued', certificate_id: issued.id })
    expect(await certificates('sw31')).to.have.length(0)
    expect(await request('sw31')).to.include({ status: 'rejected', certificate_id: null })

    // The screen says so: issued under its filter, rejected under its own, neither can be decided again.
    await filter('issued')
    await row('sw30.devices.example.net').getByText('issued', { exact: true }).waitFor()
    await filter('rejected')
    await row('sw31.devices.example.net').getByText('rejected', { exact: true }).waitFor()
    expect(await queue.getByRole('button', { name: /^(Approve|Reject) / }).count()).to.equal(0)
    await page.context().close()
  })
})
