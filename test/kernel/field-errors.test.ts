/**
 * Field errors that say what is allowed, all at once: a pattern failure names
 * the allowed characters (kernel/http/pattern-words.ts) in the caller's
 * language, a body that breaks its schema in several fields lists them all in
 * `errors`, and every `pattern` a request body of the OpenAPI document uses has
 * words (so a new pattern cannot ship as "invalid format").
 */
import { Ajv } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import { expect } from 'chai'
import { patternWords } from '../../kernel/http/pattern-words.js'
import { blankToNull } from '../../kernel/http/validation.js'
import type { TSchema } from '../../sdk/index.js'
import { bodyRules } from '../../ui/scripts/body-rules.js'
import { checkBody } from '../../ui/src/api/check.js'
import { startTestApp, type TestApp } from '../kit/app.js'

type Schema = { $ref?: string; pattern?: string; properties?: Record<string, Schema>; items?: Schema | Schema[]; additionalProperties?: Schema | boolean; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; not?: Schema }
type Doc = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>; components: { schemas: Record<string, Schema> } }

/** Every pattern under `schema` (references followed once), with where it was met. */
function patterns(doc: Doc, schema: Schema, where: string, out: Map<string, string>, seen = new Set<string>()): void {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!
    if (seen.has(name)) return
    seen.add(name)
    return patterns(doc, doc.components.schemas[name], where, out, seen)
  }
  if (typeof schema.pattern === 'string' && !out.has(schema.pattern)) out.set(schema.pattern, where)
  for (const [k, v] of Object.entries(schema.properties ?? {})) patterns(doc, v, `${where}.${k}`, out, seen)
  const items = Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : []
  const more = [...items, ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? []), ...(schema.not ? [schema.not] : [])]
  for (const s of more) patterns(doc, s, where, out, seen)
}

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv

/** Values a person might type into any field, and some no form sends. */
const SAMPLES: unknown[] = ['', '  ', 'a', 'core-sw1', 'core switch', 'Network Admins', 'jane.doe@example.com', 'x'.repeat(33), 'x'.repeat(65), 'x'.repeat(129), 'ünïcödé', 'a\u0000b', 'a\u202Eb', 'line\nbreak', '10:00', '24:00', '#1a2b3c', 'show run', 'CN=Admins,DC=example,DC=com', 'a${b}', '0123456789abcdef0123456789abcdef', 0, -1, 1.5, 70000, true, null, [], {}]

/** The schema with its references inlined (blankToNull walks properties, not references). */
function resolve(doc: Doc, s: Schema, depth = 0): Schema {
  if (s.$ref) return depth > 12 ? {} : resolve(doc, doc.components.schemas[s.$ref.split('/').pop()!], depth + 1)
  const out: Schema = { ...s }
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, resolve(doc, v, depth + 1)]))
  if (s.items && !Array.isArray(s.items)) out.items = resolve(doc, s.items, depth + 1)
  if (s.anyOf) out.anyOf = s.anyOf.map((b) => resolve(doc, b, depth + 1))
  return out
}

describe('field errors: what is allowed, every field at once', function () {
  // The whole Pro edition boots (every body schema in the document): slow on a busy machine.
  this.timeout(180_000)
  let t: TestApp
  before(async () => {
    t = await startTestApp({ edition: 'pro', env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  it('every pattern of a request body in the OpenAPI document has words, in English and Russian', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body as Doc
    const found = new Map<string, string>()
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema
        if (schema) patterns(doc, schema, `${method.toUpperCase()} ${path} body`, found)
      }
    expect(found.size, 'the walk found the patterns').to.be.greaterThan(20)
    const missing = [...found].filter(([p]) => !patternWords(p)).map(([p, where]) => `${where}: ${p}`)
    expect(missing, 'patterns without words in kernel/http/pattern-words.ts').to.deep.equal([])
    for (const p of found.keys()) {
      const w = patternWords(p)!
      expect(w.en, p).to.match(/\w/)
      expect(w.ru, p).to.match(/[а-я]/)
    }
  })

  it('the console\'s check of a body is never stricter than the server\'s, field by field, in every operation', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body as Doc & Record<string, unknown>
    const rules = bodyRules(doc)
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }))
    ajv.addSchema({ $id: 'doc', components: doc.components })
    let compared = 0
    const stricter: string[] = []
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema
        if (!schema) continue
        const key = `${method.toUpperCase()} ${path}`
        const server = ajv.compile(schema.$ref ? { $ref: `doc${schema.$ref}` } : JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components')))
        const props = Object.keys(rules.ops[key]?.properties ?? {})
        for (const prop of props)
          for (const sample of SAMPLES) {
            const body = { [prop]: structuredClone(sample) }
            const mine = checkBody(rules, key, body, 'en').some((p) => p.field === prop || p.field?.startsWith(`${prop}.`) || p.field?.startsWith(`${prop}[`))
            server(blankToNull(resolve(doc, schema) as TSchema, structuredClone(body)))
            const theirs = (server.errors ?? []).some((e) => e.instancePath === `/${prop}` || e.instancePath.startsWith(`/${prop}/`))
            compared++
            if (mine && !theirs) stricter.push(`${key} ${prop} = ${JSON.stringify(sample)}`)
          }
      }
    expect(compared, 'values compared').to.be.greaterThan(5000)
    expect(stricter, 'refused in the browser, accepted by the server').to.deep.equal([])
  })

  it('a name refused by its pattern says what is allowed, in the caller\'s language', async () => {
    const en = await t.admin('POST', '/api/v1/device-groups', { body: { name: 'core switches' } })
    expect(en.status).to.equal(422)
    expect(en.body).to.include({ code: 'VALIDATION_FAILED', field: 'name' })
    expect(en.body.detail).to.equal('Allowed: Latin letters, digits and . _ -, starting with a letter or digit; no spaces.')
    const ru = await t.admin('POST', '/api/v1/device-groups', { body: { name: 'core switches' }, headers: { 'accept-language': 'ru' } })
    expect(ru.body.detail).to.equal('Допустимо: латинские буквы, цифры и . _ -, первый символ — буква или цифра; без пробелов.')
    const user = await t.admin('POST', '/api/v1/users', { body: { username: 'jane doe', password: 'Correct-Horse-Battery-77' } })
    expect(user.status).to.equal(422)
    const problem = [user.body, ...(user.body.errors ?? [])].find((e: { field: string }) => e.field === 'username')
    expect(problem.detail).to.equal('Allowed: Latin letters, digits and . _ @ -; no spaces.')
  })

  it('a body wrong in several fields answers every field error, the first one also in the envelope', async () => {
    const r = await t.admin('POST', '/api/v1/devices', { body: { name: 'edge router', address: '10.0.0.1', vendor: 'x'.repeat(65), bogus: 1 } })
    expect(r.status).to.equal(422)
    const errors = r.body.errors as { field: string; code: string; detail: string }[]
    expect(errors.map((e) => e.field)).to.have.members(['name', 'vendor', 'bogus'])
    expect(errors[0]).to.deep.equal({ field: r.body.field, code: r.body.code, detail: r.body.detail })
    expect(errors.find((e) => e.field === 'bogus')).to.include({ code: 'UNKNOWN_FIELD' })
    expect(errors.find((e) => e.field === 'vendor')!.detail).to.equal('Must be at most 64 characters long.')
    const missing = await t.admin('POST', '/api/v1/devices', { body: {}, headers: { 'accept-language': 'ru' } })
    expect((missing.body.errors as { field: string; code: string }[]).map((e) => [e.field, e.code])).to.deep.equal([
      ['name', 'FIELD_REQUIRED'],
      ['address', 'FIELD_REQUIRED'],
    ])
    expect(missing.body.errors[1].detail).to.equal('Поле «address» обязательно.')
  })

  it('a nullable field wrong in its string branch names its own problem, not "matches no form"', async () => {
    const r = await t.admin('POST', '/api/v1/devices', { body: { name: 'e1', address: '10.0.0.9', tacacs_key: ' lead', radius_secret: 'x'.repeat(200) } })
    expect(r.status).to.equal(422)
    const byField = Object.fromEntries((r.body.errors as { field: string; detail: string }[]).map((e) => [e.field, e.detail]))
    expect(byField.tacacs_key).to.match(/^Allowed: printable ASCII/)
    expect(byField.radius_secret).to.match(/at most/)
  })
})
