/**
 * The console as the server answers it, without a browser: the app at `/`
 * and at every page path (SPA fallback) with its CSP and no-cache; hashed
 * assets cached for a year; what is not a file of the app stays the API's
 * 404 envelope (an unknown /api/ path never becomes a page); no path escapes
 * the built folder; and the pages a plugin adds (examples/console-pages).
 */
import { expect } from 'chai'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { rawRequest } from '../../../test/kit/raw-http.js'
import { uiIsStale } from '../../../ui/scripts/ensure-built.js'
import { execSync } from 'node:child_process'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const example = path.join(root, 'examples/console-pages/index.ts')

// Serving the built app's files is the same whatever the engine (an embedded boot costs twice a PostgreSQL one): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('console: serving the admin app', function () {
  this.timeout(240_000)
  let t: TestApp
  let asset: string
  before(async () => {
    // The app is built as `npm run build` builds it (the types from this server's OpenAPI document).
    if (uiIsStale()) execSync('npm run --silent build:ui', { cwd: root, stdio: 'inherit' })
    asset = readdirSync(path.join(root, 'ui/dist/assets')).find((f) => f.endsWith('.js'))!
    t = await startTestApp({ plugins: ['inventory', 'pki', 'console', example] })
  })
  after(() => t?.stop())

  for (const p of ['/', '/devices', '/device-groups', '/policy', '/logs', '/deploys', '/x/hello-console/hello']) {
    it(`answers the app's index at ${p}, with the console's CSP and revalidation`, async () => {
      const r = await t.req('GET', p)
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.match(/^text\/html/)
      expect(r.text).to.include('<div id="root"></div>')
      expect(r.headers.get('cache-control')).to.equal('no-cache')
      const csp = r.headers.get('content-security-policy')!
      expect(csp).to.include("script-src 'self'")
      expect(csp).not.to.match(/script-src[^;]*unsafe/)
      expect(csp).to.include("frame-ancestors 'none'")
      expect(csp).to.include("form-action 'none'")
      expect(r.headers.get('x-request-id')).to.be.a('string')
    })
  }

  it('serves a hashed asset for a year, with the deny-all CSP of non-pages', async () => {
    const r = await t.req('GET', `/assets/${asset}`)
    expect(r.status).to.equal(200)
    expect(r.headers.get('content-type')).to.match(/javascript/)
    expect(r.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable')
    expect(r.headers.get('content-security-policy')).to.include("default-src 'none'")
    const head = await t.req('HEAD', `/assets/${asset}`)
    expect(head.status).to.equal(200)
    expect(head.text).to.equal('')
  })

  it('sends the gzip copy made at build to a browser that accepts gzip, the file itself to one that does not', async () => {
    const bytes = readFileSync(path.join(root, 'ui/dist/assets', asset), 'utf8')
    const gz = await t.req('GET', `/assets/${asset}`, { headers: { 'Accept-Encoding': 'gzip, deflate, br' } })
    expect(gz.headers.get('content-encoding')).to.equal('gzip')
    expect(gz.headers.get('vary')).to.match(/Accept-Encoding/i)
    expect(Number(gz.headers.get('content-length'))).to.be.lessThan(bytes.length / 2)
    expect(gz.text).to.equal(bytes)
    const plain = await t.req('GET', `/assets/${asset}`, { headers: { 'Accept-Encoding': 'identity' } })
    expect(plain.headers.get('content-encoding')).to.equal(null)
    expect(plain.text).to.equal(bytes)
  })

  it('keeps the 404 envelope for a missing asset, an unknown API path and a wrong method, and a route\'s 405', async () => {
    expectError(await t.req('GET', '/assets/missing-0000.js'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.req('GET', '/api/v1/no-such-thing'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.req('GET', '/api'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.req('POST', '/devices', { body: {} }), 404, 'ROUTE_NOT_FOUND')
    // A route outside /api/ asked with a method it lacks is the route's 405, never the app's page.
    const r = await t.req('GET', '/.well-known/est/simpleenroll')
    expectError(r, 405, 'METHOD_NOT_ALLOWED')
    expect(r.headers.get('allow')).to.include('POST')
  })

  it('answers 404 in the envelope, never the app, at every root path the API owns (the documentation while it is off)', async () => {
    // DOCS_ENABLED is off in the test app: the contract's 404 for the documentation, not the console's page.
    for (const p of ['/docs', '/docs/', '/docs/swagger-ui.css', '/redoc', '/redoc/', '/redoc/redoc.standalone.js', '/openapi.json', '/.well-known/est/no-such-operation', '/.well-known/other', '/healthz/extra', '/ready/x']) {
      const r = await t.req('GET', p)
      expect(r.text, p).not.to.include('<div id="root"></div>')
      expectError(r, 404, 'ROUTE_NOT_FOUND')
      expect((await t.req('HEAD', p)).status, `HEAD ${p}`).to.equal(404)
    }
    // A page whose first segment only begins like one of them is still the app's.
    for (const p of ['/docs-and-notes', '/redocx', '/apis']) expect((await t.req('GET', p)).text, p).to.include('<div id="root"></div>')
  })

  it('never answers a file outside the built folder', async () => {
    for (const p of ['/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json', '/console/ext/hello-console/..%2findex.ts', '/.env', '/assets/.hidden.js']) {
      const r = await rawRequest(t.url, `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
      expect(r.text, p).not.to.include('"portcullis"')
      expect(r.text, p).not.to.include('definePlugin')
      expect(r.status, p).to.be.oneOf([400, 404])
    }
  })

  it('lists the pages plugins add to signed-in users only, and serves their modules', async () => {
    expectError(await t.req('GET', '/api/v1/console/extensions'), 401, 'TOKEN_INVALID')
    const token = await t.token({ permissions: [] })
    const r = await t.req('GET', '/api/v1/console/extensions', { token })
    expect(r.status).to.equal(200)
    expect(r.body.items).to.deep.equal([
      { plugin: 'hello-console', module: '/console/ext/hello-console/hello.js', pages: [{ path: 'hello', title: { en: 'Hello', ru: 'Привет' }, permission: 'inventory.read' }] },
    ])
    const js = await t.req('GET', r.body.items[0].module)
    expect(js.status).to.equal(200)
    expect(js.headers.get('content-type')).to.match(/javascript/)
    expect(js.text).to.include('export function mount')
    expectError(await t.req('GET', '/console/ext/hello-console/nope.js'), 404, 'ROUTE_NOT_FOUND')
    expectError(await t.req('GET', '/console/ext/other/hello.js'), 404, 'ROUTE_NOT_FOUND')
  })

  it('refuses to boot with a page path that is not a URL segment, naming the plugin and the path', async () => {
    let err: Error | null = null
    try {
      const bad = await startTestApp({ plugins: ['console', path.join(root, 'plugins/console/test/fixtures/bad-pages.ts')] })
      await bad.stop()
    } catch (e) {
      err = e as Error
    }
    expect(err?.message).to.match(/console pages of bad-pages: path "\.\.\/Reports"/)
  })
})
