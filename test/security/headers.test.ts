/**
 * What every answer carries for the browser's sake, and what a request must
 * look like as an HTTP message: security headers on successes, errors, 404s
 * and 429s; the docs pages' own Content-Security-Policy; a Swagger UI that
 * keeps no token in the browser's storage; and a missing or malformed Host,
 * an unknown Expect or a non-UTF-8 body answered in the envelope (with
 * X-Request-ID and X-API-Version) instead of Node's bare status line.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { rawRequest, type RawResponse } from '../kit/raw-http.js'

const PROBE = './test/fixtures/plugins/probe'

type HeaderSource = Headers | Record<string, string>
const get = (h: HeaderSource, name: string) => (h instanceof Headers ? h.get(name) : (h[name] ?? null))

function expectSecurityHeaders(h: HeaderSource, what: string) {
  expect(get(h, 'x-content-type-options'), what).to.equal('nosniff')
  expect(get(h, 'referrer-policy'), what).to.equal('no-referrer')
  expect(get(h, 'x-frame-options'), what).to.equal('DENY')
  expect(get(h, 'content-security-policy'), what).to.contain("frame-ancestors 'none'")
}

function expectRawEnvelope(r: RawResponse, status: number, code: string) {
  expect(r.status, r.text).to.equal(status)
  expect(r.headers['content-type']).to.match(/^application\/json/)
  const body = JSON.parse(r.body) as Record<string, unknown>
  expect(Object.keys(body).sort()).to.deep.equal(['code', 'detail', 'field'])
  expect(body).to.include({ code, field: null })
  expect(body.detail).to.be.a('string').and.not.equal('')
  expect(r.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/)
  expect(r.headers['x-api-version']).to.equal('1')
  expect(r.headers['cache-control']).to.equal('no-store')
  expectSecurityHeaders(r.headers, `${status} ${code}`)
}

for (const engine of testEngines()) {
  describe(`security headers and transport errors (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    let host: string
    before(async () => {
      t = await startTestApp({ engine, plugins: [PROBE], env: { DOCS_ENABLED: 'true' } })
      host = new URL(t.url).host
    })
    after(async () => t?.stop())

    describe('security headers', () => {
      it('are on a 200, a 401, a 404, a 422 and a 429, and API answers are never stored by a cache', async () => {
        const limiter = await t.token({ permissions: ['probe.use'] })
        let limited = await t.req('POST', '/api/v1/probe/limited', { token: limiter })
        for (let i = 0; i < 5 && limited.status !== 429; i++) limited = await t.req('POST', '/api/v1/probe/limited', { token: limiter })
        const answers = {
          200: await t.admin('GET', '/api/v1/probe/db'),
          401: await t.req('GET', '/api/v1/probe/db'),
          404: await t.req('GET', '/api/v1/nothing-here'),
          422: await t.admin('GET', '/api/v1/probe/items/not-a-uuid'),
          429: limited,
        }
        for (const [status, r] of Object.entries(answers)) {
          expect(r.status, r.text).to.equal(Number(status))
          expectSecurityHeaders(r.headers, status)
          expect(r.headers.get('cache-control'), status).to.equal('no-store')
          // JSON answers run no script: the policy forbids every source.
          expect(r.headers.get('content-security-policy'), status).to.match(/^default-src 'none'/)
        }
        expect(answers[429].body).to.have.keys('detail', 'retry_after')
      })

      it('are on the health endpoints and on a wrong method', async () => {
        for (const r of [await t.req('GET', '/healthz'), await t.req('GET', '/ready'), await t.req('PATCH', '/healthz')]) {
          expectSecurityHeaders(r.headers, `${r.status}`)
          expect(r.headers.get('cache-control')).to.equal('no-store')
        }
      })
    })

    describe('documentation pages', () => {
      it('carry a Content-Security-Policy that runs scripts from this origin only, and no inline script', async () => {
        for (const page of ['/docs', '/redoc']) {
          const r = await t.req('GET', page)
          expect(r.status, page).to.equal(200)
          expectSecurityHeaders(r.headers, page)
          const csp = r.headers.get('content-security-policy')!
          const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]))
          expect(directives['script-src'], `${page}: ${csp}`).to.deep.equal(["'self'"])
          expect(directives['default-src'], page).to.deep.equal(["'none'"])
          expect(directives['frame-ancestors'], page).to.deep.equal(["'none'"])
          expect(directives['object-src'] ?? directives['default-src'], page).to.deep.equal(["'none'"])
          // Every <script> of the page loads a file: an inline one would be blocked by script-src 'self'.
          const scripts = [...r.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
          expect(scripts.length, page).to.be.above(0)
          for (const [, attrs, inline] of scripts) {
            expect(attrs, page).to.match(/\ssrc="\/[^"]+"/)
            expect(inline.trim(), page).to.equal('')
          }
          for (const [, src] of r.text.matchAll(/\ssrc="([^"]+)"/g)) expect((await t.req('GET', src)).status, src).to.equal(200)
        }
      })

      it('ReDoc may run its search worker from a blob: and build its styles at run time; Swagger UI may not', async () => {
        const redoc = (await t.req('GET', '/redoc')).headers.get('content-security-policy')!
        expect(redoc).to.match(/worker-src blob:/)
        expect(redoc).to.match(/style-src 'self' 'unsafe-inline'/)
        const swagger = (await t.req('GET', '/docs')).headers.get('content-security-policy')!
        expect(swagger).to.match(/style-src 'self'(;|$)/)
        expect(swagger).not.to.contain('unsafe')
        expect(swagger).not.to.contain('blob:')
      })

      it('has Swagger UI keep the bearer token out of the browser storage', async () => {
        const init = await t.req('GET', '/docs/init.js')
        expect(init.status).to.equal(200)
        expect(init.headers.get('content-type')).to.match(/javascript/)
        expect(init.text).to.match(/persistAuthorization:\s*false/)
        expect(init.text).not.to.match(/persistAuthorization:\s*true/)
        expect(init.text).not.to.match(/localStorage|sessionStorage/)
      })
    })

    describe('Host and Expect', () => {
      it('answers an HTTP/1.1 request without Host with 400 HOST_REQUIRED in the envelope', async () => {
        const r = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')
        expectRawEnvelope(r, 400, 'HOST_REQUIRED')
        const empty = await rawRequest(t.url, 'GET /api/v1/nothing HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n')
        expectRawEnvelope(empty, 400, 'HOST_REQUIRED')
      })

      it('localizes the Host refusal like any other error', async () => {
        const r = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nAccept-Language: ru\r\nConnection: close\r\n\r\n')
        expectRawEnvelope(r, 400, 'HOST_REQUIRED')
        expect(JSON.parse(r.body).detail).to.match(/[А-Яа-я]/)
      })

      it('answers a malformed or repeated Host with 400 HOST_INVALID in the envelope', async () => {
        for (const bad of ['a b', 'evil.example/x', 'user@evil.example', 'example.com:99999', 'example.com:', '"quoted"', 'x'.repeat(300), '[zz::1]']) {
          const r = await rawRequest(t.url, `GET /healthz HTTP/1.1\r\nHost: ${bad}\r\nConnection: close\r\n\r\n`)
          expect(r.status, bad).to.equal(400)
          expectRawEnvelope(r, 400, 'HOST_INVALID')
        }
        const twice = await rawRequest(t.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`)
        expectRawEnvelope(twice, 400, 'HOST_INVALID')
      })

      it('serves well-formed hosts, and HTTP/1.0 without Host', async () => {
        for (const good of [host, 'portcullis.example.com', 'localhost:8080', '[::1]:8443', '10.0.0.1', 'nac_1.corp']) {
          const r = await rawRequest(t.url, `GET /healthz HTTP/1.1\r\nHost: ${good}\r\nConnection: close\r\n\r\n`)
          expect(r.status, `${good}: ${r.text}`).to.equal(200)
          expect(JSON.parse(r.body)).to.deep.equal({ status: 'ok' })
          expectSecurityHeaders(r.headers, good)
        }
        const old = await rawRequest(t.url, 'GET /healthz HTTP/1.0\r\n\r\n')
        expect(old.status, old.text).to.equal(200)
      })

      it('refuses an unknown expectation with 417 in the envelope, and honours 100-continue', async () => {
        const r = await rawRequest(t.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`)
        expectRawEnvelope(r, 417, 'EXPECTATION_FAILED')
        const body = JSON.stringify({ name: 'x', kind: 'tacacs' })
        const token = await t.token({ permissions: ['probe.use'] })
        const cont = await rawRequest(
          t.url,
          `POST /api/v1/probe/echo HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body}`,
        )
        expect(cont.text).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /)
      })

      it('answers a request Node cannot parse in the envelope, with the security headers', async () => {
        const r = await rawRequest(t.url, 'NOT AN HTTP REQUEST\r\n\r\n')
        expectRawEnvelope(r, 400, 'BAD_REQUEST')
      })
    })

    describe('body charset', () => {
      it('refuses JSON declared in a charset other than UTF-8 with 415 in the envelope, and creates nothing', async () => {
        const before = (await t.admin('GET', '/api/v1/user-groups?per_page=100')).body.total as number
        for (const charset of ['latin1', 'ISO-8859-1', 'utf-16', 'windows-1251']) {
          const r = await t.admin('POST', '/api/v1/user-groups', { raw: JSON.stringify({ name: `cs-${charset}` }), headers: { 'content-type': `application/json; charset=${charset}` } })
          expect(r.status, `${charset}: ${r.text}`).to.equal(415)
          expect(r.body).to.include({ code: 'BODY_UNSUPPORTED_TYPE', field: null })
          expect(r.body.detail).to.contain(charset.toLowerCase())
          expect(r.headers.get('x-request-id')).to.be.a('string')
          expect(r.headers.get('x-api-version')).to.equal('1')
          expectSecurityHeaders(r.headers, charset)
        }
        expect((await t.admin('GET', '/api/v1/user-groups?per_page=100')).body.total).to.equal(before)
      })

      it('accepts UTF-8 however it is spelled, and no charset at all', async () => {
        for (const ct of ['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
          const r = await t.admin('POST', '/api/v1/probe/echo', { raw: JSON.stringify({ name: 'Zürich', kind: 'radius' }), headers: { 'content-type': ct } })
          expect(r.status, `${ct}: ${r.text}`).to.equal(201)
          expect(r.body.name).to.equal('Zürich')
        }
      })
    })
  })
}
