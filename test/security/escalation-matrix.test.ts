/**
 * Issue 10, "no grant beyond what you hold": for every permission P, a user
 * holding only P tries every route that grants, resets or redirects anything
 * (roles, groups, admin flags, another user's password, e-mail, sessions and
 * second factor, the settings that steer mail and links, programs to run) and
 * gains nothing: each attempt is refused and the security-relevant state is
 * byte for byte what it was. Then the manage-another-user rule in detail, and
 * the MFA setup mail that never trusts the Host header. Both engines.
 */
import { expect } from 'chai'
import http from 'node:http'
import type { Knex } from 'knex'
import { base32Decode, totp } from '../../plugins/mfa/services/totp.js'
import { startSmtp, type TestSmtp } from '../kit/smtp.js'
import { hasOpenssl, Scratch } from '../../plugins/pki/test/helpers.js'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { skipBecause } from '../kit/skip.js'

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac']
const STRONG_PASSWORD = 'Tr1cky-Escalation-Pass-42'
const SECURITY_SETTINGS: Record<string, unknown> = {
  'identity.public_url': 'https://attacker.example',
  'identity.session_ttl_seconds': 7 * 86400,
  'mail.smtp_host': 'mail.attacker.example',
  'mail.smtp_port': 2525,
  'mail.from': 'it@attacker.example',
  'mfa.internal_key': 'k'.repeat(40),
  // Turning the second factor off on the devices, or the challenge into a typed-in code, is a downgrade.
  'radius.mfa_mode': 'off',
  'tacacs.mfa_mode': 'off',
  'radius.mfa_append_device_groups': ['00000000-0000-4000-8000-000000000002'],
  'identity.lockout_threshold': 1,
  'identity.lockout_seconds': 86400,
  'pki.crl_validity_hours': 720,
  'nac.est_enabled': true,
  'pki.est_group_id': '00000000-0000-4000-8000-000000000001',
  'nac.est_mtls_proxy_secret': 'm'.repeat(40),
  'pki.est_approval_required': false,
  'pki.est_approver_email': 'mallory@attacker.example',
}

/** Everything a privilege escalation would have to change, read straight from the tables. */
async function securityState(knex: Knex) {
  const rows = async (q: Knex.QueryBuilder) => JSON.stringify(await q)
  return {
    users: await rows(knex('users').orderBy('id').select('id', 'username', 'is_admin', 'enabled', 'email', 'password_hash', 'sessions_valid_after', 'network_login', 'expires_at', 'lockout_cleared_at')),
    roles: await rows(knex('roles').orderBy('id').select('id', 'name', 'permissions')),
    userRoles: await rows(knex('user_roles').orderBy(['user_id', 'role_id']).select('user_id', 'role_id')),
    groupRoles: await rows(knex('group_roles').orderBy(['group_id', 'role_id']).select('group_id', 'role_id')),
    members: await rows(knex('user_group_members').orderBy(['group_id', 'user_id']).select('group_id', 'user_id')),
    settings: await rows(knex('settings').orderBy('key').select('key', 'value')),
    mfa: await rows(knex('mfa_totp').orderBy('user_id').select('user_id', 'confirmed_at')),
    // What the CA signs with and what it will sign: only pki.manage (or an administrator) changes these.
    pkiCas: await rows(knex('pki_cas').orderBy('id').select('id', 'sealed_key', 'certificate')),
    pkiTemplates: await rows(knex('pki_templates').orderBy('id').select('id', 'name_patterns', 'key_usage', 'extended_key_usage', 'min_rsa_bits', 'min_ec_bits')),
  }
}

/** A request with a Host header of the caller's choosing (fetch does not let a test pick one). */
function rawPost(url: string, path: string, token: string, host: string): Promise<number> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'POST', headers: { host, authorization: `Bearer ${token}`, 'x-forwarded-host': host, 'x-forwarded-proto': 'https' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

for (const engine of testEngines()) {
  describe(`security: no permission grants more than it names (${engine})`, function () {
    this.timeout(300_000)
    let t: TestApp
    let smtp: TestSmtp
    let adminId: string
    let everything: string[]
    let allRole: string
    let strongGroup: string
    let strongUser: string
    let estGroup: string
    let estMember: string

    const me = async (token: string) => (await t.req('GET', '/api/v1/auth/me', { token })).body as { id: string; username: string }
    const created = async (path: string, body: unknown) => {
      const r = await t.admin('POST', path, { body })
      expect(r.status, `${path}: ${r.text}`).to.equal(201)
      return r.body as { id: string }
    }

    before(async () => {
      smtp = await startSmtp()
      t = await startTestApp({ engine, plugins: PLUGINS })
      for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none' })) {
        expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status).to.equal(200)
      }
      adminId = (await me(t.adminToken)).id
      await t.admin('PUT', `/api/v1/users/${adminId}`, { body: { email: 'admin@corp.example' } })
      // The administrator guards their sign-in with TOTP: the prize of an MFA reset.
      const started = await t.req('POST', '/api/v1/mfa/enrollment', { token: t.adminToken })
      expect(started.status, started.text).to.equal(200)
      const code = totp(base32Decode(started.body.secret), Date.now())
      expect((await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token: t.adminToken, body: { code } })).status).to.equal(200)

      const schema = await t.admin('GET', '/api/v1/rbac/schema')
      everything = schema.body.groups.flatMap((g: { permissions: { name: string }[] }) => g.permissions.map((p) => p.name))
      expect(everything.length).to.be.greaterThan(20)
      allRole = (await created('/api/v1/roles', { name: 'everything', permissions: everything })).id
      strongGroup = (await created('/api/v1/user-groups', { name: 'strong', role_ids: [allRole] })).id
      strongUser = (await created('/api/v1/users', { username: 'strong-operator', email: 'strong@corp.example', password: STRONG_PASSWORD, role_ids: [allRole] })).id
      // EST on, as a site runs it (issue 26, 12): membership of the EST group gets clientAuth certificates
      // from the EST CA, which FreeRADIUS takes for EAP-TLS under their common name.
      const estCa = await created('/api/v1/pki/cas', { name: 'est-root', subject: { CN: 'EST Root' }, key_algorithm: 'ECDSA-P256', validity_days: 3650 })
      const estTemplate = await created('/api/v1/pki/templates', { name: 'est-users', key_usage: ['digitalSignature'], extended_key_usage: ['clientAuth'], validity_days: 365, name_patterns: ['*'], subject_attributes: ['CN'], san_types: [], min_rsa_bits: 2048, min_ec_bits: 256 })
      estGroup = (await created('/api/v1/user-groups', { name: 'est-enrollers' })).id
      estMember = (await created('/api/v1/users', { username: 'device-enroller', password: STRONG_PASSWORD, group_ids: [estGroup] })).id
      for (const [key, value] of Object.entries({ 'pki.est_ca_id': estCa.id, 'pki.est_template_id': estTemplate.id, 'pki.est_group_id': estGroup, 'nac.est_enabled': true })) {
        expect((await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })).status, key).to.equal(200)
      }
    })
    after(async () => {
      await t?.stop()
      await smtp?.stop()
    })

    /** Every route that grants, resets or redirects: none may succeed for someone holding only `perms`. */
    async function attempts(token: string, self: { id: string; roleId: string; groupId: string }, tag: string) {
      const out: [string, number][] = []
      const tryIt = async (what: string, method: string, path: string, body?: unknown) => out.push([what, (await t.req(method, path, { token, body })).status])
      await tryIt('make myself administrator', 'PUT', `/api/v1/users/${self.id}`, { is_admin: true })
      await tryIt('give myself the all-permissions role', 'PUT', `/api/v1/users/${self.id}`, { role_ids: [self.roleId, allRole] })
      await tryIt('join the strong group', 'PUT', `/api/v1/users/${self.id}`, { group_ids: [self.groupId, strongGroup] })
      await tryIt('create a role with every permission', 'POST', '/api/v1/roles', { name: `grab-${tag}`, permissions: everything })
      await tryIt('widen my own role', 'PUT', `/api/v1/roles/${self.roleId}`, { permissions: everything })
      await tryIt('give my group the all-permissions role', 'PUT', `/api/v1/user-groups/${self.groupId}`, { role_ids: [allRole] })
      await tryIt('create an administrator', 'POST', '/api/v1/users', { username: `sneaky-admin-${tag}`, password: STRONG_PASSWORD, is_admin: true })
      await tryIt('create a user with the strong role', 'POST', '/api/v1/users', { username: `sneaky-${tag}`, password: STRONG_PASSWORD, role_ids: [allRole] })
      await tryIt('create a user in the strong group', 'POST', '/api/v1/users', { username: `sneaky-g-${tag}`, password: STRONG_PASSWORD, group_ids: [strongGroup] })
      // The EST group grants no role, only certificates: giving it needs pki.issue all the same.
      await tryIt('join the EST group', 'PUT', `/api/v1/users/${self.id}`, { group_ids: [self.groupId, estGroup] })
      await tryIt('create a user in the EST group', 'POST', '/api/v1/users', { username: `sneaky-est-${tag}`, password: STRONG_PASSWORD, group_ids: [estGroup] })
      await tryIt("set an EST group member's password", 'PUT', `/api/v1/users/${estMember}`, { password: STRONG_PASSWORD + tag })
      for (const [who, id] of [['the administrator', adminId], ['a stronger user', strongUser]] as const) {
        await tryIt(`set ${who}'s password`, 'PUT', `/api/v1/users/${id}`, { password: STRONG_PASSWORD + tag })
        await tryIt(`redirect ${who}'s e-mail`, 'PUT', `/api/v1/users/${id}`, { email: `mallory-${tag}@attacker.example` })
        await tryIt(`disable ${who}`, 'PUT', `/api/v1/users/${id}`, { enabled: false })
        await tryIt(`revoke ${who}'s sessions`, 'DELETE', `/api/v1/users/${id}/sessions`)
        await tryIt(`expire ${who}`, 'PUT', `/api/v1/users/${id}`, { expires_at: '2000-01-01T00:00:00Z' })
        await tryIt(`clear ${who}'s lockout`, 'POST', `/api/v1/users/${id}/lockout/clear`)
        await tryIt(`reset ${who}'s MFA`, 'DELETE', `/api/v1/users/${id}/mfa`)
        await tryIt(`mail ${who} an MFA setup token`, 'POST', `/api/v1/users/${id}/mfa/enrollment-link`)
        await tryIt(`delete ${who}`, 'DELETE', `/api/v1/users/${id}`)
      }
      for (const [key, value] of Object.entries(SECURITY_SETTINGS)) await tryIt(`set ${key}`, 'PUT', `/api/v1/settings/${key}`, { value })
      await tryIt('set a reload command', 'PUT', '/api/v1/settings/deploy.reload_commands', { value: { freeradius: ['/bin/sh', '-c', 'id'] } })
      await tryIt('set the tac_plus-ng binary', 'PUT', '/api/v1/settings/tacacs.binary', { value: '/bin/sh' })
      return out
    }

    /** A user holding exactly `perms` (through one role), in a group of its own that grants nothing. */
    async function attacker(perms: string[], tag: string) {
      const token = await t.token({ permissions: perms })
      const { id } = await me(token)
      const user = (await t.admin('GET', `/api/v1/users/${id}`)).body as { role_ids: string[] }
      const groupId = (await created('/api/v1/user-groups', { name: `own-${tag}` })).id
      expect((await t.admin('PUT', `/api/v1/users/${id}`, { body: { group_ids: [groupId] } })).status).to.equal(200)
      return { token, self: { id, roleId: user.role_ids[0], groupId } }
    }

    it('every permission alone, and the narrow grants together, gain nothing through any route that grants, resets or redirects', async () => {
      const holders: [string, string[]][] = everything.map((p) => [p, [p]])
      holders.push(['the narrow grants together', ['users.read', 'users.write', 'groups.read', 'groups.write', 'roles.read', 'roles.write', 'mfa.manage', 'settings.read', 'settings.write']])
      let tried = 0
      for (const [i, [name, perms]] of holders.entries()) {
        const { token, self } = await attacker(perms, String(i))
        const before = await securityState(t.app.db.knex)
        const results = await attempts(token, self, String(i))
        tried += results.length
        for (const [what, status] of results) expect([401, 403, 404], `${name}: "${what}" answered ${status}`).to.include(status)
        expect(await securityState(t.app.db.knex), `${name} changed security-relevant state`).to.deep.equal(before)
      }
      expect(tried).to.be.greaterThan(holders.length * 30)
      // The administrator still signs in with a second factor, with the old password and e-mail.
      const adminMfa = await t.admin('GET', `/api/v1/users/${adminId}/mfa`)
      expect(adminMfa.body.enrolled).to.equal(true)
    })

    it('users.write gets no certificate from the EST CA: the EST group is given only with pki.issue, and EST issues only a name its account may claim (issue 26, 12)', async function () {
      if (!hasOpenssl()) skipBecause(this, 'openssl is not installed (Debian package openssl)')
      const s = new Scratch()
      const estRole = await created('/api/v1/roles', { name: `users-writer-${engine}`, permissions: ['users.read', 'users.write'] })
      const writerName = `writer-${engine}`
      await created('/api/v1/users', { username: writerName, password: STRONG_PASSWORD, role_ids: [estRole.id] })
      const token = (await t.req('POST', '/api/v1/auth/login', { body: { username: writerName, password: STRONG_PASSWORD } })).body.access_token as string
      const writer = await me(token)
      const certificates = async () => Number((await t.app.db.knex('pki_certificates').count({ n: '*' }))[0].n)
      const enroll = async (who: string, cn: string) => {
        const { csr } = s.csr({ subject: `/CN=${cn}` })
        const r = await fetch(`${t.url}/.well-known/est/simpleenroll`, {
          method: 'POST',
          headers: { 'content-type': 'application/pkcs10', authorization: `Basic ${Buffer.from(`${who}:${STRONG_PASSWORD}`).toString('base64')}` },
          body: csr.replace(/-----[^-]+-----/g, '').trim(),
        })
        return { status: r.status, code: r.status === 200 ? null : ((await r.json()) as { code: string }).code }
      }
      try {
        const before = await securityState(t.app.db.knex)
        const issued = await certificates()
        const self = await t.req('PUT', `/api/v1/users/${writer.id}`, { token, body: { group_ids: [estGroup] } })
        expect(self.status, self.text).to.equal(403)
        expect(self.body).to.include({ code: 'GROUP_EXCEEDS_OWN_PERMISSIONS', field: 'group_ids[0]' })
        expect(self.body.detail).to.include('pki.issue')
        const other = await t.req('POST', '/api/v1/users', { token, body: { username: `est-helper-${engine}`, password: STRONG_PASSWORD, group_ids: [estGroup] } })
        expect(other.body).to.include({ code: 'GROUP_EXCEEDS_OWN_PERMISSIONS', field: 'group_ids[0]' })
        const takeover = await t.req('PUT', `/api/v1/users/${estMember}`, { token, body: { password: `${STRONG_PASSWORD}-mine` } })
        expect(takeover.body).to.include({ code: 'USER_EXCEEDS_OWN_PERMISSIONS', field: 'user_id' })
        expect(await securityState(t.app.db.knex), 'users.write changed security-relevant state').to.deep.equal(before)
        // Its own credentials are not an EST member's; the member's name nobody else's.
        expect(await enroll(writerName, 'admin')).to.deep.equal({ status: 403, code: 'PKI_EST_FORBIDDEN' })
        for (const cn of ['admin', writerName, 'strong-operator']) expect(await enroll('device-enroller', cn), cn).to.deep.equal({ status: 403, code: 'PKI_EST_SUBJECT_NOT_CLAIMABLE' })
        expect(await certificates()).to.equal(issued)
        expect(await enroll('device-enroller', 'device-enroller')).to.deep.equal({ status: 200, code: null })
        // The rule is about pki.issue: who holds it with users.write may give the group.
        const issuer = await t.token({ permissions: ['users.read', 'users.write', 'pki.issue'] })
        const given = await t.req('POST', '/api/v1/users', { token: issuer, body: { username: `est-by-issuer-${engine}`, password: STRONG_PASSWORD, group_ids: [estGroup] } })
        expect(given.status, given.text).to.equal(201)
      } finally {
        s.remove()
      }
    })

    it('the rule is about the target, not the route: mfa.manage resets and mails a weaker user, never a stronger one', async () => {
      const manager = await t.token({ permissions: ['mfa.manage', 'users.read'] })
      const plain = await created('/api/v1/users', { username: `plain-${engine}`, email: 'plain@corp.example', password: STRONG_PASSWORD })
      const helpdesk = await created('/api/v1/users', { username: `helpdesk-${engine}`, email: 'helpdesk@corp.example', password: STRONG_PASSWORD, role_ids: [allRole] })
      expect((await t.req('GET', `/api/v1/users/${plain.id}/mfa`, { token: manager })).status).to.equal(200)
      expect((await t.req('DELETE', `/api/v1/users/${plain.id}/mfa`, { token: manager })).status).to.equal(204)
      expect((await t.req('POST', `/api/v1/users/${plain.id}/mfa/enrollment-link`, { token: manager })).status).to.equal(202)
      expect((await smtp.take('plain@corp.example')).text).to.match(/setup token/)
      for (const [id, code] of [[adminId, 'ADMIN_REQUIRED'], [helpdesk.id, 'USER_EXCEEDS_OWN_PERMISSIONS']] as const) {
        for (const [method, path] of [['GET', `/api/v1/users/${id}/mfa`], ['DELETE', `/api/v1/users/${id}/mfa`], ['POST', `/api/v1/users/${id}/mfa/enrollment-link`]] as const) {
          const r = await t.req(method, path, { token: manager })
          expect(r.status, `${method} ${path}`).to.equal(403)
          expect(r.body).to.include({ code, field: 'user_id' })
        }
      }
    })

    it('revoking sessions: users.write signs a weaker user out everywhere within a second, never an administrator', async () => {
      const writer = await t.token({ permissions: ['users.write', 'users.read'] })
      const victim = await created('/api/v1/users', { username: `leaver-${engine}`, password: STRONG_PASSWORD })
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username: `leaver-${engine}`, password: STRONG_PASSWORD } })
      const session = login.body.access_token as string
      expect((await t.req('GET', '/api/v1/auth/me', { token: session })).status).to.equal(200)
      await new Promise((r) => setTimeout(r, 1100)) // token times have one-second precision
      const r = await t.req('DELETE', `/api/v1/users/${victim.id}/sessions`, { token: writer })
      expect(r.status, r.text).to.equal(204)
      expect((await t.req('GET', '/api/v1/auth/me', { token: session })).status).to.equal(401)
      const audit = await t.admin('GET', `/api/v1/audit?resource_id=${victim.id}`)
      expect(audit.body.items.map((a: { action: string }) => a.action)).to.include('user.sessions_revoke')
      const refused = await t.req('DELETE', `/api/v1/users/${adminId}/sessions`, { token: writer })
      expect(refused.status).to.equal(403)
      expect(refused.body.code).to.equal('ADMIN_REQUIRED')
      expect((await t.req('GET', '/api/v1/auth/me', { token: t.adminToken })).status, 'the administrator is still signed in').to.equal(200)
    })

    it('the MFA setup mail never names the host a request claims: identity.public_url or nothing', async () => {
      const user = await created('/api/v1/users', { username: `hosted-${engine}`, email: 'hosted@corp.example', password: STRONG_PASSWORD })
      expect(await rawPost(t.url, `/api/v1/users/${user.id}/mfa/enrollment-link`, t.adminToken, 'evil.example')).to.equal(202)
      const mail = await smtp.take('hosted@corp.example')
      expect(mail.text).to.not.include('evil.example')
      expect(mail.text).to.include('POST /api/v1/mfa/enrollment ')
    })
  })
}
