/**
 * Issue 10, privilege escalation through settings: what names a program or a
 * path is a server option (configuration only, 404 through the API), and the
 * settings that decide where mail and links go, how long sessions live or which
 * shared keys hold are an administrator's to change, audited, and shown in
 * system info. Through the HTTP API, on both engines.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'nac']
/** Every key that once was a setting and names a program, a command line or a folder a daemon writes to. */
const SERVER_OPTIONS = [
  'deploy.reload_commands',
  'tacacs.binary',
  'radius.freeradius_binary',
  'tacacs.log_directory',
  'radius.log_directory',
  'radius.run_directory',
  'radius.freeradius_libdir',
  'tacacs.daemon_user',
  'tacacs.daemon_group',
  'tacacs.mavis_directory',
  'tacacs.perl_binary',
  'tacacs.lockout_directory',
  'radius.daemon_user',
  'radius.daemon_group',
  'aaa-logs.tacacs_log_directory',
  'aaa-logs.radius_log_directory',
  // The EAP server certificate and key (802.1X): files on the server, never through the API.
  'radius.eap_certificate_file',
  'radius.eap_private_key_file',
]
const SECURITY_SETTINGS = ['identity.public_url', 'identity.session_ttl_seconds', 'mail.smtp_host', 'mail.smtp_port', 'mail.smtp_tls', 'mail.smtp_user', 'mail.smtp_password', 'mail.from', 'mfa.internal_key', 'aaa-logs.ingest_enabled', 'aaa-logs.retention_months', 'deploy.allow_unchecked', 'deploy.log_retention_days', 'deploy.keep_releases', 'radius.listen_address', 'tacacs.listen_address', 'nac.coa_on_change', 'nac.coa_port', 'nac.portal_redirect_key']
/** A value each security setting accepts, to show the refusal is about who asks, not what. */
const VALID: Record<string, unknown> = {
  'identity.public_url': 'https://attacker.example',
  'identity.session_ttl_seconds': 7 * 86400,
  'mail.smtp_host': 'mail.attacker.example',
  'mail.smtp_port': 2525,
  'mail.smtp_tls': 'none',
  'mail.smtp_user': 'mallory',
  'mail.smtp_password': 'hunter2hunter2',
  'mail.from': 'it@attacker.example',
  'mfa.internal_key': 'k'.repeat(40),
  'aaa-logs.ingest_enabled': false,
  'aaa-logs.retention_months': 1,
  'deploy.allow_unchecked': true,
  'deploy.log_retention_days': 30,
  'deploy.keep_releases': 1,
  'radius.listen_address': '0.0.0.0',
  'tacacs.listen_address': '::',
  'nac.coa_on_change': 'off',
  'nac.coa_port': 1700,
  'nac.portal_redirect_key': 'Attacker-Chosen-Portal-Key-0123456789',
}

for (const engine of testEngines()) {
  describe(`security: settings and server options (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let dataDir: string

    before(async () => {
      dataDir = scratchFolder('portcullis-sec-settings-')
      t = await startTestApp({ engine, plugins: PLUGINS, dataDir, options: { 'deploy.reload_commands': { freeradius: ['/bin/true'] } } })
    })
    after(async () => {
      await t?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('programs, command lines and log folders are not settings: GET and PUT answer 404 even to an administrator, and the list leaves them out', async () => {
      for (const key of SERVER_OPTIONS) {
        const put = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value: key.endsWith('commands') ? { freeradius: ['/bin/sh', '-c', 'id > /tmp/pwned'] } : '/tmp/x' } })
        expect(put.status, `PUT ${key}: ${put.text}`).to.equal(404)
        expect(put.body).to.include({ code: 'NOT_FOUND', field: 'key' })
        expect((await t.admin('GET', `/api/v1/settings/${key}`)).status, `GET ${key}`).to.equal(404)
      }
      const list = await t.admin('GET', '/api/v1/settings')
      expect(list.status).to.equal(200)
      const keys = list.body.map((s: { key: string }) => s.key)
      for (const key of SERVER_OPTIONS) expect(keys).to.not.include(key)
      const rows = (await t.app.db.knex('settings').whereIn('key', SERVER_OPTIONS).count({ n: '*' }).first())!
      expect(Number(rows.n)).to.equal(0)
    })

    it('system info shows the server options with their source, and the security settings with their last change', async () => {
      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.status, info.text).to.equal(200)
      const options = Object.fromEntries(info.body.server_options.map((o: { key: string }) => [o.key, o]))
      expect(Object.keys(options)).to.include.members(SERVER_OPTIONS)
      expect(options['deploy.reload_commands']).to.deep.equal({ key: 'deploy.reload_commands', env: 'DEPLOY_RELOAD_COMMANDS', source: 'config-file', value: { freeradius: ['/bin/true'] } })
      expect(options['radius.freeradius_binary']).to.include({ env: 'FREERADIUS_BINARY', source: 'default', value: 'freeradius' })
      const marked = info.body.security_settings.map((s: { key: string }) => s.key)
      expect(marked).to.include.members(SECURITY_SETTINGS)
      expect(marked, 'an ordinary setting is not marked').to.not.include('mfa.issuer')
    })

    it('settings.write alone cannot change a security-relevant setting (403, unchanged); an administrator can, audited and shown in system info', async () => {
      const writer = await t.token({ permissions: ['settings.read', 'settings.write'] })
      for (const key of SECURITY_SETTINGS) {
        const before = await t.admin('GET', `/api/v1/settings/${key}`)
        const r = await t.req('PUT', `/api/v1/settings/${key}`, { token: writer, body: { value: VALID[key] } })
        expect(r.status, `${key}: ${r.text}`).to.equal(403)
        expect(r.body).to.deep.include({ code: 'SETTING_ADMIN_REQUIRED', field: 'key' })
        expect((await t.admin('GET', `/api/v1/settings/${key}`)).body.value, key).to.deep.equal(before.body.value)
      }
      // An ordinary setting stays within settings.write.
      expect((await t.req('PUT', '/api/v1/settings/mfa.issuer', { token: writer, body: { value: 'ACME' } })).status).to.equal(200)

      const me = await t.req('GET', '/api/v1/auth/me', { token: t.adminToken })
      const changed = await t.admin('PUT', '/api/v1/settings/mail.smtp_host', { body: { value: 'smtp.corp.example' } })
      expect(changed.status, changed.text).to.equal(200)
      const audit = await t.admin('GET', '/api/v1/audit?resource_type=setting&resource_id=mail.smtp_host')
      expect(audit.body.items[0]).to.include({ action: 'security_setting.update', actor_name: me.body.username })
      expect(audit.body.items[0].after).to.equal('smtp.corp.example')
      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      const host = info.body.security_settings.find((s: { key: string }) => s.key === 'mail.smtp_host')
      expect(host).to.include({ value: 'smtp.corp.example', updated_by: me.body.username })
      expect(Date.now() - Date.parse(host.updated_at)).to.be.below(60_000)

      expect((await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value: 's'.repeat(40) } })).status).to.equal(200)
      const again = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(again.body.security_settings.find((s: { key: string }) => s.key === 'mfa.internal_key').value, 'a secret stays masked').to.equal('***')
    })

    it('a value stored under a key that became a server option is deleted at the next start, never run', async () => {
      await t.app.db.knex('settings').insert({ key: 'deploy.reload_commands', value: JSON.stringify({ freeradius: ['/bin/sh', '-c', 'id'] }), updated_at: new Date(), updated_by: 'old-version' })
      const { databaseUrl, masterKey } = t
      await t.stop()
      t = await startTestApp({ engine, plugins: PLUGINS, dataDir, masterKey, ...(databaseUrl ? { databaseUrl } : {}) })
      expect(await t.app.db.knex('settings').where({ key: 'deploy.reload_commands' }).first()).to.equal(undefined)
      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.body.server_options.find((o: { key: string }) => o.key === 'deploy.reload_commands')).to.include({ source: 'default' })
    })

    it('a server option given as a setting in the config file refuses the boot with a message saying where it belongs', async () => {
      let err: unknown
      try {
        const other = await startTestApp({ engine, plugins: ['inventory', 'tacacs'], settings: { 'tacacs.binary': '/bin/sh' } })
        await other.stop()
      } catch (e) {
        err = e
      }
      expect(String(err)).to.match(/CONFIG_INVALID.*tacacs\.binary is a server option/)
    })
  })
}
