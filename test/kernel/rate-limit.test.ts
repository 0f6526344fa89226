/** Per-client-IP rate limits, held in PostgreSQL so a cluster shares one budget. */
import { expect } from 'chai'
import { startTestApp, type TestApp, runsOn } from '../kit/app.js'
import { RateLimiter, type Charge } from '../../kernel/http/rate-limit.js'

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

/**
 * The limiter itself, on both engines, with its clock in the test's hand: a burst that straddles a
 * minute boundary gets the limit and no more (fixed windows let it through twice), the budget comes
 * back as the oldest hits leave the last window, and concurrent hits on two nodes' limiters never
 * pass more than the limit.
 */
describe('rate limiting: a sliding window', function () {
  this.timeout(90_000)
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(() => t?.stop())

  const limit = { max: 3, windowSeconds: 60 }
  /** A minute boundary well away from now, so that no real hit shares the client's window. */
  const boundary = (Math.floor(Date.now() / 60_000) + 1000) * 60_000

  it('lets a burst straddling a window boundary through once: the limit, not twice the limit', async () => {
    let now = boundary - 1000
    const rl = new RateLimiter(t.app.db.knex, () => now)
    const client = `burst-${Math.random()}`
    const before = [] as boolean[]
    for (let i = 0; i < 3; i++) before.push((await rl.charge('test-burst', client, limit)).ok)
    now = boundary + 1000
    const after = [] as Charge[]
    for (let i = 0; i < 3; i++) after.push(await rl.charge('test-burst', client, limit))
    expect(before).to.deep.equal([true, true, true])
    expect(after.map((c) => c.ok), 'hits past the boundary within a minute of the first three').to.deep.equal([false, false, false])
    // Retry when the oldest hit leaves the last minute: 58 s from now; only the first refusal is worth auditing.
    expect(after.map((c) => (c.ok ? null : [c.retryAfter, c.first]))).to.deep.equal([[58, true], [58, false], [58, false]])
    // A minute after the first three, their budget is back, and only theirs.
    now = boundary - 1000 + 60_000 + 1
    const later = [] as boolean[]
    for (let i = 0; i < 4; i++) later.push((await rl.charge('test-burst', client, limit)).ok)
    expect(later).to.deep.equal([true, true, true, false])
  })

  it('never passes more than the limit to concurrent hits from two nodes sharing the database', async () => {
    const now = () => boundary + 5000
    const a = new RateLimiter(t.app.db.knex, now)
    const b = new RateLimiter(t.app.db.knex, now)
    const client = `race-${Math.random()}`
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).charge('test-race', client, limit)))
    expect(all.filter((c) => c.ok)).to.have.length(3)
    expect(all.filter((c) => !c.ok && c.first)).to.have.length(1)
  })
})
