/**
 * Property-based fuzzing of the whole API, driven by the generated OpenAPI
 * document: every operation (so a new route is covered the day it is
 * mounted) receives hostile requests built from its own parameters and
 * request body schema. Each request is made invalid on purpose and checked to
 * be so by an independent oracle (Ajv over the document's schemas, the
 * router's path and query parsing), so the kernel must refuse it: a 4xx in
 * the envelope, with the convention headers, and not a row written. Without
 * a token every gated operation answers 401 whatever the input; read-only
 * operations also take valid requests with hostile text and must not fail.
 *
 * Two editions are walked: the kernel with the example plugin and the probe
 * fixture, and the plugins whose routes take the most hostile input from the
 * network side (nac, pki, console; with inventory, radius and aaa-logs, which
 * they reach when loaded). The second fuzzes the operations of those three
 * plugins only: the others' are walked by openapi-contract.test.ts.
 *
 * Reproduce a failure with FUZZ_SEED=<seed printed in the failure>; FUZZ_RUNS
 * scales the number of requests per operation.
 */
import { randomInt } from 'node:crypto'
import { connect, type AddressInfo } from 'node:net'
import { expect } from 'chai'
import fc from 'fast-check'
import { startTestApp, type TestApp } from '../kit/app.js'
import { baseRequest, breakers, build, HEADER_LIMIT, invalidRequest, judge, operations, printable, SAFE_REQUEST_ID, send, type Answer, type FuzzRequest, type Json, type Operation } from './requests.js'

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31)
const RUNS = Number(process.env.FUZZ_RUNS ?? 40)

// 431: a 100k-character value in a path or query makes the request line longer than Node accepts.
const ERROR_STATUSES = [400, 401, 403, 404, 405, 413, 415, 422, 431]

// boom and bad-sql answer 500 to any request that reaches their handler, and
// slow sleeps up to 10 s on a valid one: by design, to test the kernel's
// handling of exactly that, so here they would only fail the run or stall it.
const SKIPPED = new Set(['/api/v1/probe/boom', '/api/v1/probe/bad-sql', '/api/v1/probe/slow'])

// ─── Checking ─────────────────────────────────────────────────────────────────

function expectConventions(r: FuzzRequest, a: Answer) {
  expect(a.status, 'a server error on hostile input').to.be.lessThan(500)
  expect(a.headers.get('x-api-version'), 'X-API-Version').to.equal('1')
  const id = a.headers.get('x-request-id')
  expect(id, 'X-Request-ID').to.be.a('string').and.match(SAFE_REQUEST_ID)
  const sent = r.headers['x-request-id']?.trim()
  if (sent && SAFE_REQUEST_ID.test(sent) && a.status !== 431) expect(id, 'a sane X-Request-ID is echoed').to.equal(sent)
}

function expectEnvelope(a: Answer) {
  expect(ERROR_STATUSES, `status ${a.status}: ${a.text.slice(0, 300)}`).to.include(a.status)
  expect(a.headers.get('content-type'), 'content type of the envelope').to.match(/^application\/json/)
  const body = JSON.parse(a.text) as Json
  expect(body, 'the envelope is an object').to.be.an('object').and.not.an('array')
  // A refused body may add every field's problem (`errors`, docs/errors.md), never anything else.
  const keys = Object.keys(body).sort()
  expect(keys, `exactly { detail, code, field } (and errors[] for a refused body): ${a.text.slice(0, 300)}`).to.deep.equal(keys.includes('errors') ? ['code', 'detail', 'errors', 'field'] : ['code', 'detail', 'field'])
  if (keys.includes('errors')) {
    expect(a.status, 'errors[] only on a 422').to.equal(422)
    const errors = body.errors as Json[]
    expect(errors).to.be.an('array').that.is.not.empty
    for (const e of errors) expect(Object.keys(e as object).sort()).to.deep.equal(['code', 'detail', 'field'])
  }
  expect(body.detail).to.be.a('string').and.not.equal('')
  expect(body.code).to.be.a('string').and.match(/^[A-Z][A-Z0-9_]*$/)
  if (body.field !== null) expect(body.field).to.be.a('string')
}

async function check(op: Operation, property: fc.IAsyncProperty<any>, numRuns: number) {
  try {
    await fc.assert(property, { numRuns, seed: SEED, maxSkipsPerRun: 50 })
  } catch (e) {
    ;(e as Error).message = `${op.id} (reproduce with FUZZ_SEED=${SEED}):\n${(e as Error).message}`
    throw e
  }
}

async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const knex = t.app.db.knex
  const tables = (await knex('pg_tables').where({ schemaname: 'public' }).pluck('tablename')) as string[]
  const out: Record<string, number> = {}
  // Rate-limit counters are bookkeeping about requests, not data a request writes.
  for (const table of tables.filter((x) => x !== 'rate_limit_hits').sort()) {
    out[table] = Number(((await knex(table).count({ n: '*' }).first()) as { n: string | number }).n)
  }
  return out
}

interface Edition {
  title: string
  plugins: string[]
  /** Only the operations of these owners (the document's x-plugin) are fuzzed; all when absent. */
  owners?: string[]
  /** Operation ids that must be among the fuzzed ones. */
  mustInclude: string[]
  minOperations: number
  /** Rows written before the walk, so that "nothing written" also means "nothing removed". */
  seed?: (t: TestApp) => Promise<void>
  /** Tables a background task of a plugin creates on its own (not a request): left out of the count. */
  background?: RegExp
}

function fuzzEdition(e: Edition, extra?: (app: () => TestApp) => void) {
  describe(e.title, function () {
    this.timeout(600_000)
    let t: TestApp
    let all: Operation[]
    let fuzzed: Operation[]
    let before_: Record<string, number>
    const counted = async () => {
      const counts = await rowCounts(t)
      for (const table of Object.keys(counts)) if (e.background?.test(table)) delete counts[table]
      return counts
    }

    before(async () => {
      t = await startTestApp({ plugins: e.plugins, env: { DOCS_ENABLED: 'true' } })
      const doc = await t.req('GET', '/openapi.json')
      expect(doc.status).to.equal(200)
      all = operations(doc.body)
      fuzzed = all.filter((op) => !SKIPPED.has(op.template) && (!e.owners || e.owners.includes(op.owner)))
      await e.seed?.(t)
      before_ = await counted()
    })
    after(async () => t?.stop())

    it(`walks every operation${e.owners ? ` of ${e.owners.join(', ')}` : ''} but those that fail or sleep by design`, () => {
      if (!e.owners) expect(all.length - fuzzed.length, 'the skip list matched something else').to.equal(SKIPPED.size)
      else expect([...new Set(fuzzed.map((o) => o.owner))].sort(), 'every plugin named contributes operations').to.deep.equal([...e.owners].sort())
      expect(fuzzed.length).to.be.greaterThan(e.minOperations)
      expect(fuzzed.map((o) => o.id)).to.include.members(e.mustInclude)
    })

    it('refuses every invalid request from an administrator with a 4xx in the envelope', async () => {
      for (const op of fuzzed) {
        const property = fc.asyncProperty(invalidRequest(op, { method: true }), async (r) => {
          fc.pre(judge(op, all, r).verdict === 'invalid')
          const a = await send(t, op, r, t.adminToken)
          expectConventions(r, a)
          expectEnvelope(a)
          expect(a.status, 'an administrator passes the gate').to.not.be.oneOf([401, 403])
          if (r.target.length > HEADER_LIMIT) expect(a.status, 'a request line beyond the header limit').to.equal(431)
          else if (r.method !== op.method) {
            expect(a.status, 'a method the path does not take').to.equal(405)
            expect(a.headers.get('allow')).to.be.a('string')
          }
        })
        await check(op, property, RUNS)
      }
    })

    it('answers 401 before looking at the input of a gated operation without a valid token', async () => {
      const badAuth = fc.oneof(
        fc.constant(null),
        fc.constantFrom('Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'bearer x', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', `Bearer ${'A'.repeat(8500)}`),
        printable.map((s) => `Bearer ${s}`),
      )
      for (const op of fuzzed.filter((o) => o.gated)) {
        // Method mismatches are the router's 405, and oversized request lines Node's 431: neither reaches the gate.
        // An operation that takes no input is fuzzed with noise: the missing token is what makes it invalid.
        const takesInput = breakers(op, { method: false }).length > 0
        const requests = takesInput ? invalidRequest(op, { method: false }) : baseRequest(op).map((b) => build(op, b, null))
        const property = fc.asyncProperty(requests, badAuth, async (r, auth) => {
          fc.pre(r.target.length <= HEADER_LIMIT - 10_240 && judge(op, all, r).verdict === (takesInput ? 'invalid' : 'valid'))
          const a = await send(t, op, r, null, auth === null ? {} : { authorization: auth })
          expectConventions(r, a)
          expectEnvelope(a)
          expect(a.status, `without a valid token (${op.id})`).to.equal(401)
          expect(JSON.parse(a.text).code).to.equal('TOKEN_INVALID')
          expect(a.headers.get('www-authenticate')).to.equal('Bearer')
        })
        await check(op, property, Math.max(5, Math.round(RUNS / 4)))
      }
    })

    // Read-only operations also take valid requests whose text is hostile (NUL,
    // RTL marks, LIKE wildcards, SQL): the handler runs and reaches the
    // database, where a NUL or a UUID PostgreSQL cannot read used to end in a 500.
    it('answers valid but hostile requests to read-only operations without a server error', async () => {
      for (const op of fuzzed.filter((o) => o.method === 'GET' && (o.pathParams.length || o.queryParams.length))) {
        const property = fc.asyncProperty(baseRequest(op).map((b) => build(op, b, null)), async (r) => {
          fc.pre(judge(op, all, r).verdict === 'valid')
          const a = await send(t, op, r, t.adminToken)
          expectConventions(r, a)
          if (a.status >= 400) expectEnvelope(a)
        })
        await check(op, property, Math.max(10, Math.round(RUNS / 2)))
      }
    })

    it('wrote nothing: every table holds the rows it held before', async () => {
      const after_ = await counted()
      expect(after_).to.deep.equal(before_)
      expect(after_.audit_log, 'the audit trail').to.equal(before_.audit_log)
    })

    extra?.(() => t)
  })
}

fuzzEdition(
  {
    title: 'fuzzing every operation of the OpenAPI document with hostile input',
    plugins: ['./examples/greetings-plugin', './test/fixtures/plugins/probe'],
    mustInclude: ['POST /api/v1/greetings', 'PUT /api/v1/settings/{key}', 'POST /api/v1/probe/echo', 'DELETE /api/v1/greetings/{greeting_id}'],
    minOperations: 15,
    seed: async (t) => {
      // A row to delete or read, so that "nothing written" also means "nothing removed".
      expect((await t.admin('POST', '/api/v1/greetings', { body: { name: 'seed', message: 'Hello' } })).status).to.equal(201)
    },
  },
  (app) => {
    it('kept the seeded greeting', async () => {
      expect((await rowCounts(app())).greetings_greeting).to.equal(1)
    })

    // Node refuses these before koa sees them; random draws reach the first only now and then.
    it('answers requests Node refuses before routing in the envelope too', async () => {
      const t = app()
      const long = await fetch(`${t.url}/api/v1/greetings?search=${'a'.repeat(100_000)}`, { headers: { authorization: `Bearer ${t.adminToken}` } })
      const longAnswer = { status: long.status, headers: long.headers, text: await long.text() }
      expect(longAnswer.status).to.equal(431)
      expectEnvelope(longAnswer)
      expect(long.headers.get('x-api-version')).to.equal('1')
      expect(long.headers.get('x-request-id')).to.match(SAFE_REQUEST_ID)

      const raw = await new Promise<string>((resolve, reject) => {
        const { port } = t.app.server.address() as AddressInfo
        const socket = connect(port, '127.0.0.1', () => socket.end('NOT A REQUEST \u0000\r\n\r\n'))
        let data = ''
        socket.on('data', (d) => (data += d.toString('latin1')))
        socket.on('close', () => resolve(data))
        socket.on('error', reject)
      })
      const [head, body] = raw.split('\r\n\r\n')
      expect(head).to.match(/^HTTP\/1\.1 400 /)
      expect(head).to.match(/\r\nX-API-Version: 1\r\n/i)
      expect(head).to.match(/\r\nX-Request-ID: [0-9a-f-]{36}\r\n/i)
      expect(JSON.parse(body)).to.deep.include({ code: 'BAD_REQUEST', field: null })
    })
  },
)

fuzzEdition({
  title: 'fuzzing every operation of the nac, pki and console plugins with hostile input',
  plugins: ['inventory', 'radius', 'aaa-logs', 'pki', 'nac', 'console'],
  owners: ['nac', 'pki', 'console'],
  mustInclude: [
    'GET /api/v1/console/extensions',
    'PUT /api/v1/nac/policy/rules/reorder',
    'POST /api/v1/nac/policy/test',
    'POST /api/v1/nac/policy/rules',
    'POST /api/v1/nac/authorization-profiles',
    'POST /api/v1/nac/profiling-rules',
    'GET /api/v1/nac/sessions',
    'POST /api/v1/nac/endpoints/{endpoint_id}/coa',
    'GET /api/v1/nac/endpoints',
  ],
  minOperations: 40,
  // aaa-logs makes the coming months' partitions on a timer after start (empty tables, no request's doing).
  background: /^aaa_log_\w+_y\d{4}m\d{2}$/,
})
