/**
 * The authorization matrix, generated from the route table: every route of
 * the kernel, of every plugin under plugins/ and of the example plugin, called
 * with every kind of credential, must get the answer its declaration promises.
 * A new route is covered the day it is registered, with no change here.
 *
 * The point is the gate, not the handler: path parameters are random UUIDs
 * and no body is sent, so a request that passes the gate may still answer
 * 404 or 422. What is asserted:
 *
 * - PUBLIC routes never answer 401/403 from the gate (and are on the allow-list below);
 * - gated routes answer 401 to every invalid token and to every purpose they
 *   do not accept, 403 to a valid session without the permission (except
 *   AUTHENTICATED routes), and pass the permission holder (directly or
 *   through a group) and the administrator;
 * - nothing answers 500.
 */
import { expect } from 'chai'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { SignJWT } from 'jose'
import { AUTHENTICATED, jsonText, PUBLIC, type RouteDefinition } from '../../sdk/index.js'
import { fullPath } from '../../kernel/http/mount.js'
import { parseMasterKey } from '../../kernel/security/master-key.js'
import { deriveKey } from '../../kernel/security/secrets.js'
import { TokenService, type TokenPurpose } from '../../kernel/security/tokens.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { request, type TestResponse } from '../kit/http.js'

/**
 * Every route anyone may call without a bearer token. A PUBLIC route missing
 * here fails the test: nothing becomes open by accident. `owner` is the
 * plugin that registers it (entries of plugins not loaded are not checked);
 * `ownCredential` marks a route that checks a credential of its own (not a
 * bearer token) and so may answer 401/403 itself.
 */
const PUBLIC_ALLOWLIST: Record<string, { owner: string; why: string; ownCredential?: true }> = {
  'GET /healthz': { owner: 'kernel', why: 'liveness probe of the orchestrator' },
  'GET /ready': { owner: 'kernel', why: 'readiness probe of the load balancer' },
  'POST /api/v1/auth/login': { owner: 'kernel', why: 'sign-in; rate-limited per IP' },
  'POST /api/v1/auth/password-reset': { owner: 'kernel', why: 'reset request; always 202; rate-limited per IP' },
  'POST /api/v1/auth/password-reset/confirm': { owner: 'kernel', why: 'spends the emailed one-time token; rate-limited per IP' },
  'POST /api/v1/mfa/verify': { owner: 'mfa', why: 'spends an `mfa` token carried in the body, never a bearer token', ownCredential: true },
  'POST /api/v1/mfa/internal/verify': { owner: 'mfa', why: 'RADIUS/NAC daemons, shared secret in X-Internal-Key', ownCredential: true },
  'GET /api/v1/public/crl/{crl_file}': { owner: 'pki', why: 'CRL distribution point (RFC 5280): relying parties fetch it without credentials' },
  'POST /api/v1/public/ocsp': { owner: 'pki', why: 'OCSP responder (RFC 6960): relying parties ask without credentials' },
  'GET /api/v1/public/ocsp/{request}': { owner: 'pki', why: 'OCSP responder, GET form (RFC 6960 A.1)' },
  'GET /api/v1/public/cert-download/{token}': { owner: 'pki', why: 'previews a one-time certificate download; the token in the URL is the credential', ownCredential: true },
  'GET /.well-known/est/cacerts': { owner: 'pki', why: 'EST (RFC 7030 4.1): CA certificates for anyone; 404 unless EST is on' },
  'GET /.well-known/est/csrattrs': { owner: 'pki', why: 'EST (RFC 7030 4.5); 404 unless EST is on' },
  'POST /.well-known/est/simpleenroll': { owner: 'pki', why: 'EST enrollment: HTTP Basic of a local account in the EST group, or a client certificate through the trusted front end; rate-limited per IP; 404 unless EST is on', ownCredential: true },
  'POST /.well-known/est/simplereenroll': { owner: 'pki', why: 'EST re-enrollment: a client certificate of ours through the trusted mutual-TLS front end; rate-limited per IP; 404 unless EST is on', ownCredential: true },
  'GET /api/v1/public/est-approval/{token}': { owner: 'pki', why: 'renders a held EST enrollment to the approver; the mailed one-time token is the credential', ownCredential: true },
  'POST /api/v1/public/est-approval/{token}': { owner: 'pki', why: 'decides a held EST enrollment once; the mailed one-time token is the credential', ownCredential: true },
  'POST /api/v1/public/cert-download/{token}': { owner: 'pki', why: 'delivers a one-time certificate download once; the token in the URL is the credential', ownCredential: true },
  'POST /api/v1/mfa/internal/check': { owner: 'mfa', why: 'RADIUS and TACACS+ daemons during a device login, shared secret in X-Internal-Key', ownCredential: true },
  'POST /api/v1/mfa/internal/push': { owner: 'mfa', why: 'RADIUS and TACACS+ daemons: a push during a device login, shared secret in X-Internal-Key', ownCredential: true },
  'POST /api/v1/mfa/internal/push-start': { owner: 'mfa', why: 'RADIUS challenge mode: a push with number matching, shared secret in X-Internal-Key', ownCredential: true },
  'POST /api/v1/mfa/internal/push-wait': { owner: 'mfa', why: 'RADIUS challenge mode: the wait for that push, shared secret in X-Internal-Key', ownCredential: true },
  'POST /api/v1/mfa/internal/app/devices': { owner: 'mfa', why: 'the push service relaying a phone enrollment: channel signature (mfa.push_service_key), then the one-time QR token', ownCredential: true },
  'GET /api/v1/mfa/internal/app/device': { owner: 'mfa', why: 'the push service relaying the phone: channel signature, then the device key signature', ownCredential: true },
  'PATCH /api/v1/mfa/internal/app/device': { owner: 'mfa', why: 'the push service relaying the phone: channel signature, then the device key signature', ownCredential: true },
  'DELETE /api/v1/mfa/internal/app/device': { owner: 'mfa', why: 'the push service relaying the phone: channel signature, then the device key signature', ownCredential: true },
  'GET /api/v1/mfa/internal/app/challenges': { owner: 'mfa', why: 'the push service relaying the phone: channel signature, then the device key signature', ownCredential: true },
  'POST /api/v1/mfa/internal/app/challenges/{challenge_id}/answer': { owner: 'mfa', why: 'the push service relaying the phone: channel signature, device key signature, answer signature', ownCredential: true },
  'POST /api/v1/ncm/collector/enroll': { owner: 'ncm', why: 'a configuration collector enrolls: the one-time token in the body, signed (RFC 9421) by the key it enrolls; rate-limited per IP', ownCredential: true },
  'GET /api/v1/ncm/collector/jobs': { owner: 'ncm', why: 'an enrolled collector takes its jobs: every request signed with its Ed25519 key (RFC 9421), nonce and time window checked', ownCredential: true },
  'POST /api/v1/ncm/collector/results': { owner: 'ncm', why: 'an enrolled collector uploads a result: signed with its Ed25519 key over the body digest; only a job leased to it is taken', ownCredential: true },
  'GET /api/v1/ncm/collector/status': { owner: 'ncm', why: 'an enrolled collector reads its own status: signed with its Ed25519 key', ownCredential: true },
  'GET /portal/assets/portal.css': { owner: 'portal', why: 'the stylesheet of the captive portal pages (static)' },
  'GET /portal/assets/wait.js': { owner: 'portal', why: 'the sponsor wait\'s check, the portal pages\' one script (static)' },
  'GET /portal': { owner: 'portal', why: 'a guest\'s redirect naming no portal: on to the portal of its NAS or SSID' },
  'GET /portal/{slug}/theme.css': { owner: 'portal', why: 'the colours of a captive portal, for its pages; rate-limited per IP' },
  'GET /portal/{slug}/logo': { owner: 'portal', why: 'the logo of a captive portal, for its pages; rate-limited per IP' },
  'GET /portal/{slug}': { owner: 'portal', why: 'the captive portal page a NAS redirects unknown devices to: the signed redirect or the guest cookie is the credential; rate-limited per IP', ownCredential: true },
  'GET /portal/{slug}/status': { owner: 'portal', why: 'the page of a captive portal session; the guest cookie is the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/hotspot': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/register': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/verify-code': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/sponsor': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/login': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/account': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/byod-verify': { owner: 'portal', why: 'a captive portal form: the guest cookie and the CSRF token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /portal/{slug}/byod-push': { owner: 'portal', why: 'a captive portal form: the guest cookie, the CSRF token and the byod_mfa token of the form are the credential; rate-limited per IP, each push a strike of the token', ownCredential: true },
  'POST /portal/{slug}/byod-push-wait': { owner: 'portal', why: 'a captive portal form: the guest cookie, the CSRF token and the byod_mfa token of the form are the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/start': { owner: 'portal', why: 'starts a guest session from the signed redirect of the NAS (the signature is the credential); rate-limited per IP', ownCredential: true },
  'GET /api/v1/captive-portal/guest/status': { owner: 'portal', why: 'the guest session; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/hotspot': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/register': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/verify-code': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/sponsor': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/login': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/guest/account': { owner: 'portal', why: 'a step of a guest; X-Guest-Token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/byod/verify': { owner: 'portal', why: 'spends a `byod_mfa` token carried in the body (never a bearer token) with X-Guest-Token; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/byod/push': { owner: 'portal', why: 'sends a push for a `byod_mfa` token carried in the body (never a bearer token) with X-Guest-Token, a strike of its budget first; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/byod/push-wait': { owner: 'portal', why: 'waits for the push of a `byod_mfa` token carried in the body (never a bearer token) with X-Guest-Token; rate-limited per IP', ownCredential: true },
  'GET /api/v1/captive-portal/sponsor/callback': { owner: 'portal', why: 'the page of the sponsor; the mailed one-time token is the credential; rate-limited per IP', ownCredential: true },
  'POST /api/v1/captive-portal/sponsor/callback': { owner: 'portal', why: 'the decision of the sponsor, once; the mailed one-time token is the credential; rate-limited per IP', ownCredential: true },
}

/**
 * AUTHENTICATED routes that only an administrator may use (their handler
 * refuses everyone else with 403 ADMIN_REQUIRED): what they do is no
 * permission a role could hold. Any other signed-in caller must get that 403.
 */
const ADMIN_ONLY: Record<string, { owner: string; why: string }> = {
  'POST /api/v1/backups': { owner: 'kernel', why: 'an archive carries every password hash and sealed secret (docs/backup.md)' },
  'POST /api/v1/update-feed/check': { owner: 'update-feed', why: 'sends the installation id to the configured feed address (docs/update-feed.md)' },
}

/**
 * Gated routes whose handler also requires a second permission (403 FORBIDDEN at `field` without
 * it): the holder of the route's permission alone gets that 403; holding both passes.
 */
const SECOND_PERMISSION: Record<string, { owner: string; permission: string; field: string; why: string }> = {
  'POST /api/v1/aaa/policy/impact': { owner: 'aaa-policy', permission: 'aaa-logs.read', field: 'logs', why: 'the change impact shows the logs\' requests: aaa-policy.read and aaa-logs.read' },
  'POST /api/v1/nac/policy/impact': { owner: 'nac', permission: 'aaa-logs.read', field: 'logs', why: 'the NAC change impact shows the logs\' requests: nac.policy.read and aaa-logs.read' },
}

/** Codes only the gate answers with. */
const GATE_CODES = ['TOKEN_INVALID', 'TOKEN_PURPOSE_NOT_ACCEPTED', 'PERMISSION_DENIED']

/** Every plugin that exists under plugins/ (a folder with index.ts), plus the example plugin and the Pro reports. */
function allPlugins(): string[] {
  const dir = 'plugins'
  const own = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'index.ts')))
        .map((d) => `./${dir}/${d.name}`)
        .sort()
    : []
  // The Pro edition's plugins too: their routes are held to the same gate.
  return [...own, './examples/greetings-plugin', './pro/reports']
}

const routeKey = (r: RouteDefinition) => `${r.method} ${fullPath(r)}`
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>

type Who = 'admin' | 'plain' | 'holder' | 'group-holder' | 'sans'
type Credential =
  | { name: string; kind: 'invalid'; header: string | null }
  | { name: string; kind: 'valid'; who: Who; purpose: TokenPurpose }

describe('authorization matrix (every route × every credential)', function () {
  // Every route × every credential: about 3 minutes on a busy 2-core machine with both engines running.
  this.timeout(600_000)
  let t: TestApp
  let tokens: TokenService
  let master: Buffer
  const invalid: Extract<Credential, { kind: 'invalid' }>[] = []
  let disabledAfterMs = 0

  /** A user with a role holding `permissions` (directly, or through a group). */
  async function mkUser(o: { admin?: boolean; permissions?: string[]; viaGroup?: boolean } = {}): Promise<{ id: string; username: string }> {
    const knex = t.app.db.knex
    const id = randomUUID()
    const username = `mx-${id.slice(0, 13)}`
    await knex.transaction(async (trx) => {
      await trx('users').insert({ id, username, is_admin: o.admin ?? false, source: 'local' })
      if (o.permissions?.length) {
        const [role] = await trx('roles').insert({ name: username, permissions: jsonText(o.permissions) }).returning('id')
        if (o.viaGroup) {
          const [g] = await trx('user_groups').insert({ name: username }).returning('id')
          await trx('group_roles').insert({ group_id: g.id, role_id: role.id })
          await trx('user_group_members').insert({ group_id: g.id, user_id: id })
        } else await trx('user_roles').insert({ user_id: id, role_id: role.id })
      }
    })
    return { id, username }
  }

  const sign = async (sub: string, purpose: TokenPurpose = 'session', ttlSeconds = 600) => (await tokens.issue({ sub, name: 'matrix', purpose, ttlSeconds })).token

  before(async () => {
    t = await startTestApp({ plugins: allPlugins() })
    tokens = t.app.tokens!
    master = parseMasterKey(t.masterKey, 'masterKey')
    const knex = t.app.db.knex

    const victim = await mkUser({ admin: true })
    const plain = await mkUser()
    const adminSession = await sign(victim.id)
    const plainSession = await sign(plain.id)
    const p = adminSession.split('.')[1]

    // Revoked: a valid admin session, signed out through the API.
    const revokedUser = await mkUser({ admin: true })
    const revoked = await sign(revokedUser.id)
    expect((await t.req('GET', '/api/v1/auth/me', { token: revoked })).status).to.equal(200)
    expect((await t.req('POST', '/api/v1/auth/logout', { token: revoked })).status).to.equal(204)

    // Disabled: a valid admin session whose account is then disabled directly in the
    // database; the identity_version bump reaches the node's cache at its next poll.
    const disabledUser = await mkUser({ admin: true })
    const disabled = await sign(disabledUser.id)
    expect((await t.req('GET', '/api/v1/auth/me', { token: disabled })).status).to.equal(200)
    await knex('users').where({ id: disabledUser.id }).update({ enabled: false })
    await knex.raw(`UPDATE kernel_meta SET value = (value::bigint + 1)::text WHERE key = 'identity_version'`)
    const t0 = Date.now()
    while ((await t.req('GET', '/api/v1/auth/me', { token: disabled })).status !== 401) {
      if (Date.now() - t0 > 3000) throw new Error('a disabled account still signs in after 3 s')
      await new Promise((r) => setTimeout(r, 50))
    }
    disabledAfterMs = Date.now() - t0

    const expiredAdmin = await sign(victim.id, 'session', -60)
    const pwChange = await sign(plain.id, 'password_change')
    const rightKey = deriveKey(master, 'jwt')
    const now = Math.floor(Date.now() / 1000)
    const forged = (claims: Record<string, unknown>, alg = 'HS256', key: Uint8Array = rightKey) =>
      new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key)
    const base = { sub: victim.id, name: 'x', jti: randomUUID(), iat: now, exp: now + 600, iss: 'portcullis' }

    invalid.push(
      { name: 'no token', kind: 'invalid', header: null },
      { name: 'Basic credentials', kind: 'invalid', header: `Basic ${Buffer.from(`${victim.username}:x`).toString('base64')}` },
      { name: 'garbage bearer', kind: 'invalid', header: 'Bearer not.a.jwt' },
      { name: 'expired admin session', kind: 'invalid', header: `Bearer ${expiredAdmin}` },
      // Payload edited, signature kept.
      { name: 'tampered: sub → an admin', kind: 'invalid', header: `Bearer ${plainSession.split('.')[0]}.${b64({ ...claimsOf(plainSession), sub: victim.id })}.${plainSession.split('.')[2]}` },
      { name: 'tampered: purpose → session', kind: 'invalid', header: `Bearer ${pwChange.split('.')[0]}.${b64({ ...claimsOf(pwChange), purpose: 'session' })}.${pwChange.split('.')[2]}` },
      { name: 'tampered: exp extended', kind: 'invalid', header: `Bearer ${expiredAdmin.split('.')[0]}.${b64({ ...claimsOf(expiredAdmin), exp: now + 3600 })}.${expiredAdmin.split('.')[2]}` },
      { name: 'alg none', kind: 'invalid', header: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.` },
      { name: 'alg HS512 with the right key', kind: 'invalid', header: `Bearer ${await forged({ ...base, purpose: 'session' }, 'HS512', Buffer.concat([rightKey, rightKey]))}` },
      { name: 'signed with a wrong key', kind: 'invalid', header: `Bearer ${(await new TokenService(randomBytes(32)).issue({ sub: victim.id, name: 'x', purpose: 'session', ttlSeconds: 600 })).token}` },
      { name: 'right key, wrong issuer', kind: 'invalid', header: `Bearer ${await forged({ ...base, purpose: 'session', iss: 'elsewhere' })}` },
      { name: 'right key, unknown purpose', kind: 'invalid', header: `Bearer ${await forged({ ...base, purpose: 'superuser' })}` },
      // Without iat a token would escape "void every session issued before the password change"; without exp it would never expire.
      { name: 'right key, no exp', kind: 'invalid', header: `Bearer ${await forged({ ...base, purpose: 'session', exp: undefined })}` },
      { name: 'right key, no iat', kind: 'invalid', header: `Bearer ${await forged({ ...base, purpose: 'session', iat: undefined })}` },
      { name: 'right key, unknown user', kind: 'invalid', header: `Bearer ${await sign(randomUUID())}` },
      { name: 'revoked (signed out) admin session', kind: 'invalid', header: `Bearer ${revoked}` },
      { name: 'session of a since-disabled admin', kind: 'invalid', header: `Bearer ${disabled}` },
    )
  })
  after(async () => t?.stop())

  it('a disabled account loses its sessions within ~1.5 s (identity_version poll)', () => {
    expect(disabledAfterMs).to.be.below(1500)
  })

  it('loads every plugin under plugins/ and the example plugin', async () => {
    const info = await t.admin('GET', '/api/v1/dashboard/system-info')
    expect(info.status).to.equal(200)
    expect(info.body.plugins.map((p: { id: string }) => p.id)).to.include('greetings')
    expect(info.body.plugins).to.have.length(allPlugins().length)
  })

  it('every route is gated (a permission or AUTHENTICATED) or on the PUBLIC allow-list', () => {
    const open = t.app.registry.routes.filter(({ route }) => route.permission === PUBLIC && !PUBLIC_ALLOWLIST[routeKey(route)])
    expect(open.map(({ owner, route }) => `${routeKey(route)} (${owner})`), 'PUBLIC routes missing from PUBLIC_ALLOWLIST in test/auth/authorization-matrix.test.ts').to.deep.equal([])
    for (const { route } of t.app.registry.routes) {
      const p = route.permission
      expect(p === PUBLIC || p === AUTHENTICATED || (typeof p === 'string' && t.app.registry.permissions.has(p)), routeKey(route)).to.equal(true)
    }
  })

  it('the allow-list does not rot: each entry of a loaded owner is a PUBLIC route', () => {
    const owners = new Set(t.app.registry.routes.map((r) => r.owner))
    const byKey = new Map(t.app.registry.routes.map(({ route }) => [routeKey(route), route]))
    const stale = Object.entries(PUBLIC_ALLOWLIST)
      .filter(([, v]) => owners.has(v.owner))
      .filter(([k]) => byKey.get(k)?.permission !== PUBLIC)
      .map(([k]) => k)
    expect(stale, 'allow-list entries that are not (or no longer) PUBLIC routes').to.deep.equal([])
  })

  // The matrix walks the route table, so these are covered because they are registered; this
  // says so for the routes a console user reaches most (NAC, PKI, the console's own), and fails
  // if one of them stops being mounted or becomes PUBLIC.
  it('walks the routes of nac, pki and console, each gated', () => {
    const byKey = new Map(t.app.registry.routes.map(({ owner, route }) => [routeKey(route), { owner, route }]))
    const expected: Record<string, string[]> = {
      nac: [
        'GET /api/v1/nac/authorization-profiles', 'POST /api/v1/nac/authorization-profiles', 'GET /api/v1/nac/authorization-profiles/{profile_id}',
        'PUT /api/v1/nac/authorization-profiles/{profile_id}', 'DELETE /api/v1/nac/authorization-profiles/{profile_id}',
        'GET /api/v1/nac/policy/rules', 'POST /api/v1/nac/policy/rules', 'PUT /api/v1/nac/policy/rules/{rule_id}', 'DELETE /api/v1/nac/policy/rules/{rule_id}',
        'PUT /api/v1/nac/policy/rules/reorder', 'POST /api/v1/nac/policy/test', 'POST /api/v1/nac/policy/impact',
        'GET /api/v1/nac/profiling-rules', 'POST /api/v1/nac/profiling-rules', 'PUT /api/v1/nac/profiling-rules/{rule_id}', 'DELETE /api/v1/nac/profiling-rules/{rule_id}', 'POST /api/v1/nac/profiling-rules/apply',
        'GET /api/v1/nac/sessions', 'GET /api/v1/nac/sessions/export',
        'POST /api/v1/nac/endpoints/{endpoint_id}/coa', 'GET /api/v1/nac/endpoints/{endpoint_id}/coa', 'GET /api/v1/nac/coa-requests',
        'GET /api/v1/nac/endpoints', 'POST /api/v1/nac/endpoints', 'GET /api/v1/nac/endpoints/{endpoint_id}', 'PUT /api/v1/nac/endpoints/{endpoint_id}',
        'DELETE /api/v1/nac/endpoints/{endpoint_id}', 'GET /api/v1/nac/endpoints/export', 'POST /api/v1/nac/endpoints/import',
      ],
      console: ['GET /api/v1/console/extensions'],
    }
    for (const [owner, keys] of Object.entries(expected)) {
      for (const k of keys) {
        const found = byKey.get(k)
        expect(found, `${k} is not in the route table`).to.not.equal(undefined)
        expect(found!.owner, k).to.equal(owner)
        expect(found!.route.permission, `${k} is gated`).to.not.equal(PUBLIC)
      }
    }
    // Every pki route is walked too; its PUBLIC ones are exactly those of the allow-list.
    const pki = t.app.registry.routes.filter((r) => r.owner === 'pki')
    expect(pki.length, 'pki routes in the table').to.be.greaterThan(10)
    for (const { route } of pki.filter(({ route }) => route.permission === PUBLIC)) expect(PUBLIC_ALLOWLIST[routeKey(route)]?.owner, routeKey(route)).to.equal('pki')
  })

  it('bearer purposes are widened only as the contract allows', () => {
    for (const { route } of t.app.registry.routes) {
      const accepted: string[] = route.acceptTokenPurposes ?? ['session']
      const k = routeKey(route)
      // `mfa` and `byod_mfa` are never bearer tokens; each is spent in the body of its verify call.
      expect(accepted, k).not.to.include.members(['mfa'])
      expect(accepted, k).not.to.include.members(['byod_mfa'])
      if (accepted.includes('password_change')) expect(k).to.equal('POST /api/v1/auth/change-password')
      if (accepted.includes('mfa_enrollment')) expect(k).to.match(/^[A-Z]+ \/api\/v1\/mfa\//)
    }
  })

  it('answers every route × credential as declared', async function () {
    const routes = t.app.registry.routes
    const allPerms = [...t.app.registry.permissions.keys()]
    const failures: string[] = []
    let requests = 0

    /** Fresh accounts per route, so that a route with side effects on its caller cannot spoil another's credentials. */
    async function usersFor(route: RouteDefinition): Promise<Record<Who, string>> {
      const perm = typeof route.permission === 'string' ? route.permission : null
      const admin = await mkUser({ admin: true })
      const plain = await mkUser()
      const ids: Record<Who, string> = { admin: admin.id, plain: plain.id, holder: plain.id, 'group-holder': plain.id, sans: plain.id }
      if (perm) {
        ids.holder = (await mkUser({ permissions: [perm] })).id
        // A route needing a second permission: the group holder holds both (passes), the holder this one only (403 FORBIDDEN).
        const second = SECOND_PERMISSION[routeKey(route)]?.permission
        ids['group-holder'] = (await mkUser({ permissions: second ? [perm, second] : [perm], viaGroup: true })).id
        const others = allPerms.filter((x) => x !== perm)
        ids.sans = (await mkUser({ permissions: others.length ? others : ['nothing.at-all'] })).id
      }
      return ids
    }

    function credentials(route: RouteDefinition): Credential[] {
      const out: Credential[] = [...invalid]
      for (const purpose of ['session', 'password_change', 'mfa_enrollment', 'mfa', 'byod_mfa'] as const) {
        out.push({ name: `admin, purpose ${purpose}`, kind: 'valid', who: 'admin', purpose })
        out.push({ name: `user without permissions, purpose ${purpose}`, kind: 'valid', who: 'plain', purpose })
      }
      if (typeof route.permission === 'string') {
        out.push({ name: 'user with every permission but this one', kind: 'valid', who: 'sans', purpose: 'session' })
        out.push({ name: 'user with exactly this permission', kind: 'valid', who: 'holder', purpose: 'session' })
        out.push({ name: 'user with this permission through a group', kind: 'valid', who: 'group-holder', purpose: 'session' })
      }
      return out
    }

    /** null when the answer is as declared, else why not. */
    function judge(route: RouteDefinition, c: Credential, r: TestResponse): string | null {
      const code = typeof r.body === 'object' && r.body ? (r.body as { code?: string }).code : undefined
      if (r.status === 500) return `500 ${code ?? ''}`
      if (route.permission === PUBLIC) {
        const entry = PUBLIC_ALLOWLIST[routeKey(route)]
        if (code && GATE_CODES.includes(code)) return `PUBLIC route answered the gate's ${r.status} ${code}`
        if ((r.status === 401 || r.status === 403) && !entry?.ownCredential) return `PUBLIC route answered ${r.status} ${code ?? ''}`
        return null
      }
      const want401 = (codes: string[]) =>
        r.status === 401 && codes.includes(code ?? '') && /^Bearer/.test(r.headers.get('www-authenticate') ?? '') ? null : `expected 401 ${codes.join('|')}, got ${r.status} ${code ?? ''}`
      if (c.kind === 'invalid') return want401(['TOKEN_INVALID', 'TOKEN_PURPOSE_NOT_ACCEPTED'])
      const accepted: string[] = route.acceptTokenPurposes ?? ['session']
      if (!accepted.includes(c.purpose)) return want401(['TOKEN_PURPOSE_NOT_ACCEPTED'])
      if (ADMIN_ONLY[routeKey(route)]) {
        if (route.permission !== AUTHENTICATED) return 'an ADMIN_ONLY entry must be an AUTHENTICATED route'
        if (c.who === 'admin') return r.status === 401 || r.status === 403 ? `expected to pass, got ${r.status} ${code ?? ''}` : null
        return r.status === 403 && code === 'ADMIN_REQUIRED' ? null : `expected 403 ADMIN_REQUIRED (administrators only), got ${r.status} ${code ?? ''}`
      }
      const second = SECOND_PERMISSION[routeKey(route)]
      // The holder passes the gate; the handler (after the body's validation: a request without one is 422) refuses it at the field.
      if (second && c.who === 'holder') {
        const refused = r.status === 403 && code === 'FORBIDDEN' && (r.body as { field?: string }).field === second.field
        return refused || (r.status !== 401 && r.status !== 403) ? null : `expected to pass the gate and be refused 403 FORBIDDEN at ${second.field} (${second.permission} missing), got ${r.status} ${code ?? ''}`
      }
      const allowed = c.who === 'admin' || route.permission === AUTHENTICATED || c.who === 'holder' || c.who === 'group-holder'
      if (allowed) return r.status === 401 || r.status === 403 ? `expected to pass the gate, got ${r.status} ${code ?? ''}` : null
      return r.status === 403 && code === 'PERMISSION_DENIED' ? null : `expected 403 PERMISSION_DENIED, got ${r.status} ${code ?? ''}`
    }

    async function runRoute({ route }: { route: RouteDefinition }) {
      const ids = await usersFor(route)
      const url = fullPath(route).replace(/\{[^}]+\}/g, () => randomUUID())
      for (const c of credentials(route)) {
        // Tokens are minted per request: a route that signs out (or otherwise spends its
        // token) cannot spoil the credentials of the next request.
        const header = c.kind === 'invalid' ? c.header : `Bearer ${await sign(ids[c.who], c.purpose)}`
        // A route needing a second permission gets an empty (valid) body, so its handler's own check is reached.
        const body = SECOND_PERMISSION[routeKey(route)] ? { body: {} } : {}
        const r = await request(t.url, route.method, url, { headers: header ? { authorization: header } : {}, ...body })
        requests++
        const why = judge(route, c, r)
        if (why) failures.push(`${route.method} ${fullPath(route)} [${c.name}]: ${why}`)
      }
    }

    const started = Date.now()
    const BATCH = 8
    for (let i = 0; i < routes.length; i += BATCH) await Promise.all(routes.slice(i, i + BATCH).map(runRoute))
    const perRoute = requests / routes.length
    console.log(`      ${routes.length} routes × ~${perRoute.toFixed(1)} credentials = ${requests} requests in ${Date.now() - started} ms`)
    expect(failures, `${failures.length} answers differ from the declaration:\n${failures.join('\n')}\n`).to.deep.equal([])
    // Every credential kind was exercised on every route.
    expect(requests).to.be.at.least(routes.length * (invalid.length + 10))
  })
})
