/**
 * The HTTP contracts the runtime holds (the compiler's half is
 * test/types/route-answers.ts): answers are written by their schema, so an
 * undeclared field never leaves the server; with VALIDATE_RESPONSES such an
 * answer is reported as a bug; routes match by specificity, not by the order
 * they were registered; `req.resolve` reaches the request's own services and
 * what the plugin named in `deps`, nothing else.
 */
import { expect } from 'chai'
import type { Logger } from '../../sdk/index.js'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { capturedLogger } from '../kit/captured-log.js'

const FIXTURE = './test/fixtures/plugins/contracts'


for (const engine of testEngines()) {
  describe(`HTTP contracts (${engine})`, function () {
    this.timeout(60_000)
    let served: TestApp
    let checked: TestApp
    let checkedLog: ReturnType<typeof capturedLogger>
    let token: string
    before(async () => {
      // As in production: answers are written by their schema, nothing validated.
      served = await startTestApp({ engine, plugins: [FIXTURE], env: { VALIDATE_RESPONSES: 'false' } })
      checkedLog = capturedLogger()
      // As in tests: an answer outside its schema is a bug, reported.
      checked = await startTestApp({ engine, plugins: [FIXTURE], log: checkedLog.log })
      token = await served.token({ permissions: ['contracts.use'] })
    })
    after(async () => {
      await served?.stop()
      await checked?.stop()
    })

    describe('answers are written by their schema', () => {
      it('drops undeclared fields, hashes and sealed columns at every depth, whatever the handler returns', async () => {
        const r = await served.req('GET', '/api/v1/contracts/smuggle', { token })
        expect(r.status).to.equal(200)
        expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8')
        expect(r.body).to.deep.equal({
          id: '5f0c6a52-56d7-4f5e-9a57-2f4a3ad1f3a1',
          username: 'alice',
          profile: { display_name: 'Alice' },
          groups: [{ name: 'ops' }],
          manager: { username: 'bob' },
        })
        for (const secret of ['password_hash', 'argon2id', 'tacacs_key_sealed', 'sealed-bytes', 'totp_seed', 'JBSWY3DP', 'member_key']) expect(r.text).not.to.include(secret)
      })

      it('drops them through a sealed schema too', async () => {
        const r = await served.req('GET', '/api/v1/contracts/smuggle-sealed', { token })
        expect(r.status).to.equal(200)
        expect(r.body).to.deep.equal({ id: '5f0c6a52-56d7-4f5e-9a57-2f4a3ad1f3a1', username: 'alice' })
      })

      it('writes Type.Unknown values whole (nested objects, arrays, null, dates)', async () => {
        const r = await served.req('GET', '/api/v1/contracts/free-form', { token })
        expect(r.status).to.equal(200)
        expect(r.body).to.deep.equal({
          before: null,
          after: { name: 'core', nested: { list: [1, 'two', { three: true }], empty: {} }, when: '2026-01-02T03:04:05.678Z' },
          value: [42, 'x', null],
          at: '2026-01-02T03:04:05.678Z',
        })
      })

      it('keeps a Reply\'s status and headers, and writes its body by the schema of that status', async () => {
        const r = await served.req('POST', '/api/v1/contracts/replied', { token })
        expect(r.status).to.equal(202)
        expect(r.headers.get('x-contracts')).to.equal('yes')
        expect(r.body).to.deep.equal({ queued: true })
      })

      it('streams a file Reply as it is', async () => {
        const r = await served.req('GET', '/api/v1/contracts/download', { token })
        expect(r.status).to.equal(200)
        expect(r.headers.get('content-type')).to.equal('text/csv; charset=utf-8')
        expect(r.headers.get('content-disposition')).to.equal('attachment; filename="x.csv"')
        expect(r.text).to.equal('a,b\n1,2\n')
      })

      it('keeps the error envelope', async () => {
        const r = await served.req('GET', '/api/v1/contracts/smuggle')
        expect(r.status).to.equal(401)
        expect(Object.keys(r.body).sort()).to.deep.equal(['code', 'detail', 'field'])
      })
    })

    describe('with VALIDATE_RESPONSES', () => {
      const reported = (path: string) =>
        checkedLog.lines.find((l) => l.msg === 'unhandled error' && String((l.err as { message?: string })?.message).includes(path))

      it('reports an answer with an undeclared field as a bug, naming the field, and sends none of it', async () => {
        const t = await checked.token({ permissions: ['contracts.use'] })
        for (const [route, field] of [['smuggle', 'password_hash'], ['smuggle-sealed', 'password_hash']] as const) {
          const r = await checked.req('GET', `/api/v1/contracts/${route}`, { token: t })
          expect(r.status, route).to.equal(500)
          expect(r.body.code).to.equal('INTERNAL_ERROR')
          expect(r.text).not.to.include('argon2id')
          expect(reported(field), `log line for ${route}`).to.not.equal(undefined)
        }
      })

      it('still sends what matches its schema', async () => {
        const t = await checked.token({ permissions: ['contracts.use'] })
        expect((await checked.req('GET', '/api/v1/contracts/free-form', { token: t })).status).to.equal(200)
        expect((await checked.req('GET', '/api/v1/contracts/download', { token: t })).status).to.equal(200)
      })
    })

    describe('routes match by specificity, not by registration order', () => {
      it('answers a fixed path from its own route although a parameter route that matches it was registered first', async () => {
        expect((await served.req('GET', '/api/v1/contracts/items/counts')).body).to.deep.equal({ route: 'fixed' })
        expect((await served.req('GET', '/api/v1/contracts/items/other')).body).to.deep.equal({ route: 'param', id: 'other' })
      })

      it('lets the leftmost fixed segment decide between two overlapping parameter routes', async () => {
        expect((await served.req('GET', '/api/v1/contracts/tree/branch/leaf')).body).to.deep.equal({ route: 'fixed-first', id: 'leaf' })
        expect((await served.req('GET', '/api/v1/contracts/tree/other/leaf')).body).to.deep.equal({ route: 'param-first', id: 'other' })
        expect((await served.req('GET', '/api/v1/contracts/tree/branch/x%20y')).body).to.deep.equal({ route: 'fixed-first', id: 'x y' })
      })

      it('keeps a trailing slash optional, fixed segments case-insensitive, and 405 with Allow for a known path', async () => {
        expect((await served.req('GET', '/api/v1/contracts/items/counts/')).body).to.deep.equal({ route: 'fixed' })
        expect((await served.req('GET', '/api/v1/Contracts/Items/Counts')).body).to.deep.equal({ route: 'fixed' })
        const r = await served.req('DELETE', '/api/v1/contracts/items/counts')
        expect(r.status).to.equal(405)
        expect(r.headers.get('allow')).to.equal('GET')
      })
    })

    describe('the request scope', () => {
      it('resolves the actor, the request id, the request logger and transaction, and a declared dependency', async () => {
        const r = await served.req('GET', '/api/v1/contracts/scope', { token, headers: { 'x-request-id': `scope-${engine}` } })
        expect(r.status).to.equal(200)
        const me = await served.req('GET', '/api/v1/auth/me', { token })
        expect(r.body).to.deep.equal({ username: me.body.username, request_id: `scope-${engine}`, in_transaction: 1, version: served.app.version, logs: true })
      })

      it('binds the request logger to the request id', async () => {
        const t = await checked.token({ permissions: ['contracts.use'] })
        await checked.req('GET', '/api/v1/contracts/scope', { token: t, headers: { 'x-request-id': `log-${engine}` } })
        const line = checkedLog.lines.find((l) => l.probe === 'contracts' && l.request_id === `log-${engine}`)
        expect(line).to.not.equal(undefined)
      })

      it('refuses a service the plugin did not name in its deps, with an error saying so', async () => {
        const r = await checked.req('GET', '/api/v1/contracts/undeclared', { token: await checked.token({ permissions: ['contracts.use'] }) })
        expect(r.status).to.equal(500)
        expect(r.body.code).to.equal('INTERNAL_ERROR')
        const line = checkedLog.lines.find((l) => String((l.err as { message?: string })?.message).includes('core.secrets'))
        expect(String((line?.err as { message?: string })?.message)).to.equal('plugin contracts resolves service core.secrets in a request without naming it in its deps: add it to definePlugin({ deps })')
      })
    })
  })
}
