/**
 * The generated OpenAPI document and the documentation UIs: a valid 3.1
 * document that lists every mounted route as it is gated, named schemas as
 * components, UIs served from local assets only, and nothing at all when
 * documentation is off.
 */
import { expect } from 'chai'
import { Validator } from '@seriousme/openapi-schema-validator'
import { AUTHENTICATED, PUBLIC } from '../../sdk/index.js'
import { fullPath } from '../../kernel/http/mount.js'
import { packageJson } from '../../kernel/version.js'
import { runsOn, startTestApp, type TestApp } from '../kit/app.js'
import type { TestResponse } from '../kit/http.js'

const PLUGINS = ['./examples/greetings-plugin', './test/fixtures/plugins/probe']

type Json = Record<string, any>

/** Every `title` a route schema carries, as the generator would name a component. */
function titles(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) titles(s, out)
  else if (schema && typeof schema === 'object') {
    const s = schema as Json
    if (typeof s.title === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(s.title)) out.add(s.title)
    for (const v of Object.values(s)) titles(v, out)
  }
  return out
}

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refs(n, out)
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v)
      else refs(v, out)
    }
  }
  return out
}

function expectEnvelope404(res: TestResponse, what: string) {
  expect(res.status, what).to.equal(404)
  expect(res.headers.get('x-api-version'), what).to.equal('1')
  expect(res.headers.get('x-request-id'), what).to.be.a('string').and.not.equal('')
  expect(Object.keys(res.body).sort(), what).to.deep.equal(['code', 'detail', 'field'])
  expect(res.body.detail, what).to.be.a('string').and.not.equal('')
  expect(res.body.code, what).to.equal('ROUTE_NOT_FOUND')
  expect(res.body.field, what).to.equal(null)
}

// The OpenAPI document and its pages are built from the routes' schemas, the same whatever the engine (an embedded boot costs twice a PostgreSQL one): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('OpenAPI document and documentation UIs (DOCS_ENABLED=true)', () => {
  let t: TestApp
  let doc: Json

  before(async () => {
    t = await startTestApp({ plugins: PLUGINS, env: { DOCS_ENABLED: 'true' } })
    const res = await t.req('GET', '/openapi.json')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^application\/json/)
    doc = res.body
  })
  after(async () => t?.stop())

  it('is a valid OpenAPI 3.1 document by the reference schema', async () => {
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
    expect(validator.version).to.equal('3.1')
    expect(doc.openapi).to.match(/^3\.1\./)
  })

  it('states the platform version, which is package.json without an override', async () => {
    expect(doc.info.version).to.equal(t.app.version)
    expect(t.app.version).to.equal(packageJson().version)
  })

  it('lists every mounted route with its method, owner and gate, and nothing else', () => {
    // The bearer token, or the console's cookie with its header (docs/security.md "The console's session").
    const GATED = [{ bearer: [] }, { consoleSession: [], consoleHeader: [] }]
    const routes = t.app.registry.routes
    expect(routes.length).to.be.greaterThan(10)
    for (const { owner, route } of routes) {
      const where = `${route.method} ${fullPath(route)}`
      const op = doc.paths[fullPath(route)]?.[route.method.toLowerCase()] as Json | undefined
      expect(op, `${where} is missing from paths`).to.be.an('object')
      expect(op!['x-plugin'], where).to.equal(owner)
      if (route.permission === PUBLIC) {
        expect(op!.security, where).to.deep.equal([])
        expect(op!, where).to.not.have.property('x-permission')
      } else if (route.permission === AUTHENTICATED) {
        expect(op!.security, where).to.deep.equal(GATED)
        expect(op!['x-permission'], where).to.be.a('string').and.not.equal('')
        expect(op!.responses, where).to.include.keys('401')
      } else {
        expect(op!.security, where).to.deep.equal(GATED)
        expect(op!['x-permission'], where).to.equal(route.permission)
        expect(op!.responses, where).to.include.keys('401', '403')
      }
      if (route.schema.params || route.schema.query || route.schema.body) {
        expect(op!.responses['422'].content['application/json'].schema, where).to.deep.equal({ $ref: '#/components/schemas/HTTPValidationError' })
      }
    }
    const operations = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.keys(item))
    expect(operations.length, 'operations without a mounted route').to.equal(routes.length)
    expect(doc.components.securitySchemes.bearer).to.deep.include({ type: 'http', scheme: 'bearer' })
    expect(doc.components.securitySchemes.consoleSession).to.deep.include({ type: 'apiKey', in: 'cookie', name: 'portcullis_session' })
    expect(doc.components.securitySchemes.consoleHeader).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-Portcullis-Console' })
  })

  it('documents the console session: its header on the routes that give a session, Set-Cookie on their answers and on the sign-out', () => {
    const param = { name: 'X-Portcullis-Console', in: 'header', required: false }
    const login = doc.paths['/api/v1/auth/login'].post as Json
    const change = doc.paths['/api/v1/auth/change-password'].post as Json
    for (const op of [login, change]) {
      expect(op.parameters).to.deep.include.members([{ ...param, description: (op.parameters as Json[]).find((p) => p.name === param.name)?.description, schema: { type: 'string', const: '1' } }])
      expect(op.responses['200'].headers).to.have.property('Set-Cookie')
    }
    expect((doc.paths['/api/v1/auth/me'].get as Json).parameters).to.deep.equal([])
    expect((doc.paths['/api/v1/auth/logout'].post as Json).responses['204'].headers['Set-Cookie'].required).to.equal(true)
  })

  it('gives every operation a distinct operationId', () => {
    const ids = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.values(item).map((op) => (op as Json).operationId as string))
    expect(new Set(ids).size).to.equal(ids.length)
  })

  it('turns every titled schema into a component, and every $ref resolves', () => {
    const schemas = doc.components.schemas as Json
    expect(schemas).to.include.keys('GreetingCreate', 'GreetingResponse', 'GreetingListResponse', 'ProbeEchoRequest', 'ErrorBody', 'HTTPValidationError', 'RateLimitBody', 'ReadinessReport')
    const expected = new Set<string>()
    for (const { route } of t.app.registry.routes) titles(route.schema, expected)
    for (const title of expected) expect(schemas, `titled schema ${title}`).to.have.property(title)
    for (const ref of refs(doc)) {
      // Schemas, and the headers every answer carries (X-Request-ID, X-API-Version, the security headers).
      const m = /^#\/components\/(schemas|headers)\/([A-Za-z0-9-]+)$/.exec(ref)
      expect(m, `${ref} is not a local component reference`).to.not.equal(null)
      expect(doc.components[m![1]], `${ref} dangles`).to.have.property(m![2])
    }
    expect(schemas.ErrorBody.required).to.have.members(['detail', 'code', 'field'])
    expect(schemas.GreetingCreate.additionalProperties).to.equal(false)
  })

  it('serves Swagger UI at /docs from local assets only', async () => {
    const page = await t.req('GET', '/docs')
    expect(page.status).to.equal(200)
    expect(page.headers.get('content-type')).to.match(/^text\/html/)
    expect(page.headers.get('x-api-version')).to.equal('1')
    const assets = [...page.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1])
    expect(assets).to.include.members(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css'])
    expect(page.text, 'a page that loads from a CDN does not work offline').to.not.match(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i)
    for (const a of assets) {
      expect(a, `${a} must be served by this server`).to.match(/^\/[^/]/)
      const res = await t.req('GET', a)
      expect(res.status, a).to.equal(200)
      expect(res.text.length, a).to.be.greaterThan(0)
    }
    const css = await t.req('GET', '/docs/swagger-ui.css')
    expect(css.headers.get('content-type')).to.match(/^text\/css/)
    const bundle = await t.req('GET', '/docs/swagger-ui-bundle.js')
    expect(bundle.headers.get('content-type')).to.match(/javascript/)
    const init = await t.req('GET', '/docs/init.js')
    expect(init.text).to.include("'/openapi.json'")
    expect(init.text).to.not.match(/https?:\/\//)
  })

  it('serves ReDoc at /redoc from local assets only', async () => {
    const page = await t.req('GET', '/redoc')
    expect(page.status).to.equal(200)
    expect(page.headers.get('content-type')).to.match(/^text\/html/)
    expect(page.text).to.not.match(/(?:src|href|spec-url)\s*=\s*["']?(?:https?:)?\/\//i)
    expect(page.text).to.include('src="/redoc/redoc.standalone.js"')
    const js = await t.req('GET', '/redoc/redoc.standalone.js')
    expect(js.status).to.equal(200)
    expect(js.headers.get('content-type')).to.match(/javascript/)
    expect(js.text.length).to.be.greaterThan(1000)
  })

  it('serves only the listed Swagger UI files, not the rest of the package directory', async () => {
    expectEnvelope404(await t.req('GET', '/docs/package.json'), '/docs/package.json')
    expectEnvelope404(await t.req('GET', '/docs/..%2Fpackage.json'), '/docs/..%2Fpackage.json')
  })
})

;(runsOn('postgres') ? describe : describe.skip)('OpenAPI document with SERVICE_VERSION', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ env: { DOCS_ENABLED: 'true', SERVICE_VERSION: '9.9.9' } })
  })
  after(async () => t?.stop())

  it('reports the override in info.version and in /ready', async () => {
    expect(t.app.version).to.equal('9.9.9')
    const doc = await t.req('GET', '/openapi.json')
    expect(doc.status).to.equal(200)
    expect(doc.body.info.version).to.equal('9.9.9')
    const ready = await t.req('GET', '/ready')
    expect(ready.status).to.equal(200)
    expect(ready.body.version).to.equal('9.9.9')
  })
})

;(runsOn('postgres') ? describe : describe.skip)('documentation when DOCS_ENABLED is unset', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: PLUGINS })
  })
  after(async () => t?.stop())

  // The docs middleware is the only code that serves these paths or calls the
  // generator; a 404 from the router's fallback for every one of them (assets
  // included) shows it is not mounted, so the document is never built.
  it('answers 404 in the envelope for the document, both UIs and their assets', async () => {
    for (const p of ['/openapi.json', '/docs', '/docs/', '/docs/init.js', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/redoc', '/redoc/redoc.standalone.js']) {
      expectEnvelope404(await t.req('GET', p), p)
    }
  })

  it('still serves the API itself', async () => {
    expect((await t.req('GET', '/healthz')).status).to.equal(200)
    expect((await t.admin('GET', '/api/v1/greetings')).status).to.equal(200)
  })
})
