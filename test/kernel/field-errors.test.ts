/**
 * Field errors that say what is allowed, all at once: a pattern failure names
 * the allowed characters (kernel/http/pattern-words.ts) in the caller's
 * language, a body that breaks its schema in several fields lists them all in
 * `errors`, and every `pattern` a request body of the OpenAPI document uses has
 * words (so a new pattern cannot ship as "invalid format").
 */
import { expect } from 'chai'
import { patternWords } from '../../kernel/http/pattern-words.js'
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

describe('field errors: what is allowed, every field at once', () => {
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
