/**
 * The OpenAPI document holds to the letter: every operation of the default
 * edition (and the example plugin) is driven with valid requests and with the
 * fuzz suite's hostile ones, and each real answer must be one the document
 * declares for that operation: its status, its media type, every header it
 * carries (and every header declared as required), and a JSON body valid
 * against the declared schema. A client generated from the document then
 * meets no answer it was not told about: an export's xlsx or csv,
 * Content-Disposition and X-Service-Export-* headers, X-Request-ID and
 * X-API-Version, Retry-After, WWW-Authenticate and the security headers.
 *
 * Valid requests reach the handlers: collections are seeded first by POSTing
 * plausible bodies until one is accepted, and the ids created fill the path
 * parameters of the operations below them. Each request carries a fresh
 * session token of the administrator, so an operation that ends a session
 * (sign-out) cannot lock the rest out.
 *
 * Reproduce a failure with FUZZ_SEED=<seed printed in the failure>;
 * CONTRACT_RUNS sets the requests per operation and kind (default 6).
 */
import { randomInt } from 'node:crypto'
import { expect } from 'chai'
import fc from 'fast-check'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { baseRequest, build, deref, invalidRequest, judge, operations, plausible, send, type Answer, type FuzzRequest, type Json, type Operation } from './requests.js'

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31)
const RUNS = Number(process.env.CONTRACT_RUNS ?? 6)

const PLUGINS = ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac', 'ncm', 'update-feed', 'console', './examples/greetings-plugin', './pro/reports']

/** HTTP framing, not part of an answer's contract (OpenAPI ignores Content-Type among headers: the media type says it). */
const FRAMING = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])

const mediaType = (ct: string | null) => (ct ?? '').split(';')[0].trim().toLowerCase()

interface Checker {
  /** What is wrong with this answer for this operation, or null. */
  problems(op: Operation, a: Answer): string[]
}

function contractChecker(doc: Json): Checker {
  const schemas = doc.components.schemas as Json
  const headerComponents = (doc.components.headers ?? {}) as Json
  const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true })
  addFormats(ajv)
  const validators = new Map<string, ValidateFunction>()
  const validatorFor = (key: string, schema: unknown) => {
    let v = validators.get(key)
    if (!v) validators.set(key, (v = ajv.compile(deref(schema, schemas) as object)))
    return v
  }
  const header = (h: Json): Json => (typeof h.$ref === 'string' ? (headerComponents[h.$ref.replace('#/components/headers/', '')] as Json) : h)

  return {
    problems(op, a) {
      const out: string[] = []
      const declared = doc.paths[op.template][op.method.toLowerCase()].responses as Json
      const response = (declared[String(a.status)] ?? declared.default) as Json | undefined
      if (!response) return [`status ${a.status} is not declared (declared: ${Object.keys(declared).join(', ')}): ${a.text.slice(0, 200)}`]
      const headers = Object.fromEntries(Object.entries((response.headers ?? {}) as Json).map(([k, v]) => [k.toLowerCase(), header(v as Json)]))
      a.headers.forEach((_v, name) => {
        if (!FRAMING.has(name) && !headers[name]) out.push(`header ${name} is not declared for ${a.status}`)
      })
      for (const [name, h] of Object.entries(headers)) if (h.required && !a.headers.has(name)) out.push(`declared required header ${name} is missing from ${a.status}`)
      const content = (response.content ?? {}) as Json
      const types = Object.keys(content).map((t) => t.toLowerCase())
      const type = mediaType(a.headers.get('content-type'))
      if (a.text.length === 0 && type === '') {
        if (types.length && a.status !== 204) out.push(`an empty answer where ${a.status} declares ${types.join(', ')}`)
      } else if (!types.includes(type)) {
        out.push(`media type ${type || '(none)'} is not declared for ${a.status} (declared: ${types.join(', ') || 'no body'})`)
      } else if (type === 'application/json') {
        const schema = content[Object.keys(content).find((t) => t.toLowerCase() === type)!].schema
        const validate = validatorFor(`${op.id} ${a.status}`, schema)
        if (!validate(JSON.parse(a.text))) out.push(`body does not match the declared schema of ${a.status}: ${ajv.errorsText(validate.errors)}; ${a.text.slice(0, 200)}`)
      }
      return out
    },
  }
}

/** `/api/v1/inventory/devices/{device_id}/x` → the collection whose POST makes `device_id`: `/api/v1/inventory/devices`. */
const collectionOf = (template: string, param: string) => template.slice(0, template.indexOf(`/{${param}}`))

describe('the OpenAPI document declares every status, header and media type the API answers', function () {
  for (const engine of testEngines()) {
    describe(engine, function () {
      this.timeout(600_000)
      let t: TestApp
      let doc: Json
      let all: Operation[]
      let check: Checker
      let adminSub: string
      /** Records made or listed while seeding, by the collection that holds them. */
      const records = new Map<string, Json[]>()
      // Never the acting administrator: a valid PUT or DELETE on it would lock the walk out.
      const remember = (collection: string, found: Json[]) => records.set(collection, [...(records.get(collection) ?? []), ...found.filter((r) => r.id !== adminSub)])
      /** Operations that received requests of a kind (`valid GET /…`), to show the walk left none aside. */
      const driven = new Set<string>()
      /** Statuses each operation answered. */
      const seen: Record<string, Set<number>> = {}
      const freshToken = () => t.token({ sub: adminSub, admin: true })

      before(async () => {
        t = await startTestApp({ engine, plugins: PLUGINS, env: { DOCS_ENABLED: 'true' } })
        const res = await t.req('GET', '/openapi.json')
        expect(res.status).to.equal(200)
        doc = res.body
        all = operations(doc)
        check = contractChecker(doc)
        adminSub = (JSON.parse(Buffer.from(t.adminToken.split('.')[1], 'base64url').toString('utf8')) as { sub: string }).sub
      })
      after(async () => t?.stop())

      /** Sends and checks one request; the failure names the request and every problem found. */
      async function drive(op: Operation, r: FuzzRequest) {
        const a = await send(t, op, r, await freshToken())
        ;(seen[op.id] ??= new Set()).add(a.status)
        const problems = check.problems(op, a)
        if (problems.length) throw new Error(`${op.id} ← ${fc.stringify(r)}:\n  ${problems.join('\n  ')}`)
        return a
      }

      /** Drives one operation; returns its first failure (every operation is driven, so one run reports them all). */
      async function property(op: Operation, arb: fc.Arbitrary<FuzzRequest>, verdict: 'valid' | 'invalid', runs: number): Promise<string | null> {
        const details = await fc.check(
          fc.asyncProperty(arb, async (r) => {
            fc.pre(judge(op, all, r).verdict === verdict)
            await drive(op, r)
          }),
          { numRuns: runs, seed: SEED, maxSkipsPerRun: 50, endOnFailure: true },
        )
        if (!details.failed) {
          driven.add(`${verdict} ${op.id}`)
          return null
        }
        // Too many draws the oracle judged otherwise: nothing was sent that could fail (counted below).
        if (details.errorInstance === null) return null
        driven.add(`${verdict} ${op.id}`)
        return (details.errorInstance as Error).message
      }

      const expectNone = (failures: (string | null)[]) => {
        const found = failures.filter((f): f is string => f !== null)
        if (found.length) throw new Error(`${found.length} operation(s) answered outside the document (reproduce with FUZZ_SEED=${SEED}):\n${found.join('\n')}`)
      }

      /** A valid request whose path parameters name seeded records when there are some. */
      const validRequest = (op: Operation): fc.Arbitrary<FuzzRequest> =>
        fc.tuple(baseRequest(op), fc.boolean()).map(([b, useSeed]) => {
          const params = { ...b.params }
          for (const p of op.pathParams) {
            // The parameter names the record by its id, or by the field of its name (a setting's `key`).
            const known = (records.get(collectionOf(op.template, p.name)) ?? []).map((r) => r[p.name] ?? r.id).filter((v): v is string => typeof v === 'string')
            if (useSeed && known.length) params[p.name] = known[known.length - 1]
          }
          return build(op, { ...b, params }, null)
        })

      it('walks the default edition: every plugin contributes operations, one of them an export', () => {
        const owners = new Set(Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json).map((o) => (o as Json)['x-plugin'] as string)))
        expect([...owners]).to.include.members(['kernel', 'inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'mfa', 'pki', 'nac', 'console', 'greetings'])
        expect(all.filter((o) => o.template.endsWith('/export')).length).to.be.greaterThan(0)
      })

      it('documents every 422 with the kernel envelope (HTTPValidationError), whichever plugin answers it', () => {
        for (const op of all) {
          const r422 = doc.paths[op.template][op.method.toLowerCase()].responses['422'] as Json | undefined
          if (r422) expect(r422.content['application/json'].schema, op.id).to.deep.equal({ $ref: '#/components/schemas/HTTPValidationError' })
        }
      })

      it('seeds the collections with plausible bodies until one is accepted, and reads the lists', async () => {
        const creators = all.filter((o) => o.method === 'POST' && o.pathParams.length === 0 && o.body && !/\/(auth|mfa|deploys|test|password)/.test(o.template))
        for (const op of creators) {
          const samples = fc.sample(plausible(op.body!), { numRuns: 40, seed: SEED })
          for (const body of samples) {
            const r = build(op, { params: {}, query: [], body, headers: {} }, null)
            if (judge(op, all, r).verdict !== 'valid') continue
            const a = await drive(op, r)
            if (a.status === 201) {
              remember(op.template, [JSON.parse(a.text) as Json])
              break
            }
          }
        }
        expect(records.size, `seeded: ${[...records.keys()].join(', ')}`).to.be.greaterThan(5)
        // And what the lists already hold (the settings, the administrator, the default rule).
        for (const op of all.filter((o) => o.method === 'GET' && o.pathParams.length === 0)) {
          const a = await drive(op, build(op, { params: {}, query: [], body: undefined, headers: {} }, null))
          const body = a.status === 200 && /json/.test(a.headers.get('content-type') ?? '') ? (JSON.parse(a.text) as unknown) : null
          const items = Array.isArray(body) ? body : Array.isArray((body as Json | null)?.items) ? (body as Json).items : []
          remember(op.template, (items as unknown[]).filter((i): i is Json => typeof i === 'object' && i !== null))
        }
      })

      it('answers valid requests only as declared (statuses, headers, media types, bodies)', async () => {
        const failures: (string | null)[] = []
        for (const op of all) failures.push(await property(op, validRequest(op), 'valid', RUNS))
        expectNone(failures)
        if (process.env.CONTRACT_DEBUG) for (const op of all) console.log(op.id, [...(seen[op.id] ?? [])].sort().join(' '))
        const missed = all.filter((op) => !driven.has(`valid ${op.id}`)).map((op) => op.id)
        expect(missed, 'operations no valid request could be drawn for').to.deep.equal([])
      })

      it('answers the fuzz suite\'s hostile requests only as declared', async () => {
        // A method the path does not take is the router's 405, which no operation answers: not drawn here.
        const failures: (string | null)[] = []
        for (const op of all) {
          let arb: fc.Arbitrary<FuzzRequest>
          try {
            arb = invalidRequest(op, { method: false })
          } catch {
            continue // an operation that takes no input cannot be made invalid
          }
          failures.push(await property(op, arb, 'invalid', RUNS))
        }
        expectNone(failures)
      })

      it('declares the export answers: xlsx and csv, Content-Disposition, X-Service-Export-Rows and -Truncated', async () => {
        const exports = all.filter((o) => o.template.endsWith('/export'))
        for (const op of exports) {
          for (const format of ['xlsx', 'csv']) {
            const a = await drive(op, build(op, { params: {}, query: [['format', format]], body: undefined, headers: {} }, null))
            expect(a.status, `${op.id} ${format}: ${a.text.slice(0, 200)}`).to.equal(200)
            expect(a.headers.get('x-service-export-rows')).to.equal('0')
          }
          const declared = doc.paths[op.template].get.responses['200'] as Json
          expect(Object.keys(declared.content)).to.have.members(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv'])
          expect(declared.headers).to.include.keys('Content-Disposition', 'X-Service-Export-Rows', 'X-Service-Export-Truncated', 'X-Request-ID', 'X-API-Version')
        }
      })
    })
  }
})
