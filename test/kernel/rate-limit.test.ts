/** Per-client-IP rate limits, held in PostgreSQL so a cluster shares one budget. */
import { expect } from 'chai'
import { startTestApp, type TestApp, runsOn } from '../kit/app.js'

// PostgreSQL only: skipped (pending) in the embedded run of `npm test`, where it would repeat the PostgreSQL run's.
;(runsOn('postgres') ? describe : describe.skip)('rate limiting', function () {
  this.timeout(90_000)
  let a: TestApp
  let b: TestApp
  before(async () => {
    // A second node on the same database (the same cluster): PostgreSQL, whatever TEST_ENGINE says.
    a = await startTestApp({ engine: 'postgres', plugins: ['./test/fixtures/plugins/probe'] })
    b = await startTestApp({ plugins: ['./test/fixtures/plugins/probe'], databaseUrl: a.databaseUrl!, masterKey: a.masterKey })
  })
  after(async () => {
    await b?.stop()
    await a?.stop()
  })

  it('answers 429 with Retry-After and { detail, retry_after } once the budget is spent, across nodes', async () => {
    // Fixed one-minute windows: start well inside one so the budget cannot reset mid-test.
    const intoWindow = Date.now() % 60_000
    if (intoWindow > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoWindow))
    const statuses: number[] = []
    // 3 allowed a minute: two on node a, one on node b, then both refuse.
    for (const t of [a, a, b, a, b]) statuses.push((await t.admin('POST', '/api/v1/probe/limited')).status)
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429])
    const r = await b.admin('POST', '/api/v1/probe/limited', { headers: { 'accept-language': 'ru' } })
    expect(r.status).to.equal(429)
    expect(Object.keys(r.body).sort()).to.deep.equal(['detail', 'retry_after'])
    expect(r.body.retry_after).to.be.within(1, 60)
    expect(r.headers.get('retry-after')).to.equal(String(r.body.retry_after))
    expect(r.body.detail).to.match(/^Слишком много запросов/)
    expect(r.headers.get('x-api-version')).to.equal('1')
  })

  it('leaves routes without the option unlimited', async () => {
    for (let i = 0; i < 10; i++) expect((await a.admin('GET', '/api/v1/probe/db')).status).to.equal(200)
  })

  it('documents the limit in OpenAPI as a 429 answer', async () => {
    const { buildOpenApi } = await import('../../kernel/http/openapi.js')
    const doc = buildOpenApi(a.app.registry.routes, { version: a.app.version }) as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> }
    expect(doc.paths['/api/v1/probe/limited'].post.responses['429'].description).to.match(/3 per 60 s per client IP/)
  })
})
