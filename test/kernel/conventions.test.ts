/** The HTTP conventions every route gets from the kernel, errors and 404s included. */
import { expect } from 'chai'
import { listMigrationFiles } from '../../kernel/db/migrate.js'
import { startTestApp, type TestApp } from '../kit/app.js'

const ENVELOPE_KEYS = ['code', 'detail', 'field']

describe('HTTP conventions', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['./test/fixtures/plugins/probe'] })
  })
  after(async () => t?.stop())

  describe('X-Request-ID and X-API-Version', () => {
    it('echoes a sane request id and generates one otherwise', async () => {
      const echoed = await t.req('GET', '/healthz', { headers: { 'x-request-id': 'abc-123_x.y' } })
      expect(echoed.headers.get('x-request-id')).to.equal('abc-123_x.y')
      const generated = await t.req('GET', '/healthz')
      expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/)
    })

    it('replaces an overlong or unsafe request id instead of echoing it', async () => {
      for (const bad of ['x'.repeat(129), 'a b', 'a"b', '<script>', 'é']) {
        const r = await t.req('GET', '/healthz', { headers: { 'x-request-id': bad } })
        expect(r.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/)
      }
    })

    it('sends X-API-Version: 1 on success, 401, 403, 404, 405, 422 and 500', async () => {
      const noPerm = await t.token({ permissions: [] })
      const answers = await Promise.all([
        t.req('GET', '/healthz'),
        t.req('GET', '/api/v1/probe/db'),
        t.req('GET', '/api/v1/probe/db', { token: noPerm }),
        t.req('GET', '/api/v1/nothing-here'),
        t.req('PATCH', '/healthz'),
        t.admin('GET', '/api/v1/probe/items/not-a-uuid'),
        t.admin('GET', '/api/v1/probe/boom'),
      ])
      expect(answers.map((a) => a.status)).to.deep.equal([200, 401, 403, 404, 405, 422, 500])
      for (const a of answers) {
        expect(a.headers.get('x-api-version')).to.equal('1')
        expect(a.headers.get('x-request-id')).to.be.a('string')
      }
    })
  })

  describe('error envelope', () => {
    it('answers unknown paths with 404 ROUTE_NOT_FOUND in the envelope', async () => {
      const r = await t.req('GET', '/api/v1/nothing-here')
      expect(Object.keys(r.body).sort()).to.deep.equal(ENVELOPE_KEYS)
      expect(r.body).to.include({ code: 'ROUTE_NOT_FOUND', field: null })
    })

    it('answers a wrong method with 405 and an Allow header', async () => {
      const r = await t.req('DELETE', '/api/v1/probe/db')
      expect(r.status).to.equal(405)
      expect(r.headers.get('allow')).to.equal('GET')
      expect(r.body.code).to.equal('METHOD_NOT_ALLOWED')
    })

    it('answers a bug with 500 INTERNAL_ERROR that leaks neither stack nor SQL, quoting the request id', async () => {
      for (const path of ['/api/v1/probe/boom', '/api/v1/probe/bad-sql']) {
        const r = await t.admin('GET', path, { headers: { 'x-request-id': 'req-500-check' } })
        expect(r.status).to.equal(500)
        expect(r.body.code).to.equal('INTERNAL_ERROR')
        expect(r.text).not.to.match(/SELECT|secret_column|table_that_does_not_exist|at .*\.ts|stack/i)
        expect(r.body.detail).to.contain('req-500-check')
      }
    })

    it('localizes detail from Accept-Language (ru), falling back to en for other languages', async () => {
      const ru = await t.req('GET', '/api/v1/nothing-here', { headers: { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' } })
      expect(ru.body.detail).to.equal('Нет такого метода API: GET /api/v1/nothing-here.')
      const de = await t.req('GET', '/api/v1/nothing-here', { headers: { 'accept-language': 'de-DE' } })
      expect(de.body.detail).to.equal('No such endpoint: GET /api/v1/nothing-here.')
      const preferEn = await t.req('GET', '/api/v1/nothing-here', { headers: { 'accept-language': 'ru;q=0.2, en;q=0.9' } })
      expect(preferEn.body.detail).to.match(/^No such endpoint/)
    })
  })

  it('gives each request a scope that resolves its actor, its request id and core services by typed ref', async () => {
    const r = await t.admin('GET', '/api/v1/probe/whoami', { headers: { 'x-request-id': 'scope-check-1' } })
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({ username: (await t.admin('GET', '/api/v1/auth/me')).body.username, request_id: 'scope-check-1', node_id: t.app.nodeId })
  })

  describe('authentication gate', () => {
    it('refuses a missing, malformed, tampered, expired or wrong-purpose token with 401', async () => {
      const good = await t.token({ permissions: ['probe.use'] })
      const [h, p, s] = good.split('.')
      const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), adm: true })).toString('base64url')}.${s}`
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`
      const expired = await t.token({ permissions: ['probe.use'], ttlSeconds: -10 })
      const mfa = await t.token({ permissions: ['probe.use'], purpose: 'mfa' })
      const pwChange = await t.token({ permissions: ['probe.use'], purpose: 'password_change' })
      const cases: [string, Record<string, string>][] = [
        ['none', {}],
        ['basic', { authorization: 'Basic YWRtaW46YWRtaW4=' }],
        ['garbage', { authorization: 'Bearer not.a.jwt' }],
        ['tampered', { authorization: `Bearer ${tampered}` }],
        ['alg none', { authorization: `Bearer ${none}` }],
        ['expired', { authorization: `Bearer ${expired}` }],
        ['mfa purpose', { authorization: `Bearer ${mfa}` }],
        ['password_change purpose', { authorization: `Bearer ${pwChange}` }],
      ]
      for (const [name, headers] of cases) {
        const r = await t.req('GET', '/api/v1/probe/db', { headers })
        expect(r.status, name).to.equal(401)
        expect(r.body.code, name).to.be.oneOf(['TOKEN_INVALID', 'TOKEN_PURPOSE_NOT_ACCEPTED'])
      }
      expect((await t.req('GET', '/api/v1/probe/db', { token: good })).status).to.equal(200)
    })

    it('lets an admin through without the permission and stops others with 403', async () => {
      expect((await t.admin('GET', '/api/v1/probe/db')).status).to.equal(200)
      const other = await t.token({ permissions: ['something.else'] })
      const r = await t.req('GET', '/api/v1/probe/db', { token: other })
      expect(r.status).to.equal(403)
      expect(r.body).to.include({ code: 'PERMISSION_DENIED' })
    })

    it('gates system-info and leaves /healthz and /ready public', async () => {
      expect((await t.req('GET', '/api/v1/dashboard/system-info')).status).to.equal(401)
      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.status).to.equal(200)
      // The head is the kernel's last migration file, whichever part of the work added it.
      expect(info.body.schema_revision).to.deep.equal({ kernel: listMigrationFiles('migrations').at(-1) })
      expect(info.body.version).to.equal(t.app.version)
      expect(Math.abs(Date.parse(info.body.server_time) - Date.now())).to.be.below(5000)
      expect(info.body).to.have.keys(['version', 'schema_revision', 'uptime_seconds', 'timezone', 'server_time', 'node_id', 'role', 'database_engine', 'edition', 'installation_id', 'plugins', 'security_settings', 'server_options', 'deploy', 'daemons'])
      // The Community edition (the default): no installation id, even for an administrator.
      expect(info.body).to.deep.include({ edition: { id: 'community', name: 'Community' }, installation_id: null })
      // No daemons.supervise on this node: it runs no daemon itself.
      expect(info.body.daemons).to.deep.equal([])
      // No renderer in this edition: nothing to deploy, so nothing pending.
      const { checked_at, ...deploy } = info.body.deploy
      expect(Date.parse(checked_at)).to.be.a('number').and.not.NaN
      expect(deploy).to.deep.equal({ pending: false, daemons: [], render_error: null, dry_run: { method: 'POST', path: '/api/v1/deploys', body: { dry_run: true } } })
      const health = await t.req('GET', '/healthz')
      expect(health.body).to.deep.equal({ status: 'ok' })
      const ready = await t.req('GET', '/ready')
      expect(ready.status).to.equal(200)
      expect(ready.body).to.deep.include({ status: 'healthy', version: t.app.version, edition: { id: 'community', name: 'Community' }, checks: { database: 'ok', master_key: 'loaded' } })
      expect(ready.body.plugins).to.be.an('array')
    })
  })
})
