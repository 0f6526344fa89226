/**
 * Requests built from the OpenAPI document, for the tests that drive every
 * operation with them (openapi-fuzz.test.ts, openapi-contract.test.ts): the
 * document's operations with an independent oracle of what is valid (Ajv over
 * the document's schemas, the router's path and query parsing), plausible
 * and hostile values for each schema, and requests with one part broken.
 */
import querystring from 'node:querystring'
import fc from 'fast-check'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import type { TSchema } from '../../sdk/index.js'
import { blankToNull } from '../../kernel/http/validation.js'
import type { TestApp } from '../kit/app.js'

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv

export type Json = Record<string, any>

/** Below this a body is read; the test app runs with the default BODY_LIMIT. */
export const BODY_LIMIT = 1024 * 1024
/** Node refuses a request line plus headers beyond this (maxHeaderSize) before koa sees it. */
export const HEADER_LIMIT = 16 * 1024
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

// ─── The oracle: independent of the kernel's compiled validators ──────────────

// RFC 4122's string form only: ajv-formats also admits `urn:uuid:…`, which
// PostgreSQL's uuid type does not read, so such a value must never pass.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const makeAjv = (coerce: boolean) => {
  const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: coerce ? 'array' : false, useDefaults: coerce, allowUnionTypes: true })
  addFormats(ajv)
  ajv.addFormat('uuid', UUID)
  return ajv
}
const bodyAjv = makeAjv(false)
const paramAjv = makeAjv(true)

export function deref(node: unknown, components: Json, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((n) => deref(n, components, seen))
  if (!node || typeof node !== 'object') return node
  const n = node as Json
  if (typeof n.$ref === 'string') {
    const name = n.$ref.replace('#/components/schemas/', '')
    if (seen.includes(name)) throw new Error(`recursive schema ${name} cannot be inlined`)
    return deref(components[name], components, [...seen, name])
  }
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, deref(v, components, seen)]))
}

/** Ajv coerces `Infinity` and `1e400` to numbers it then lets through; they are no integer or number. */
const finite = (coerced: Record<string, unknown>) => Object.values(coerced).flat().every((v) => typeof v !== 'number' || Number.isFinite(v))

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The router is case-insensitive and not strict about a trailing slash. */
const templateMatcher = (template: string) =>
  new RegExp('^' + template.split(/(\{[^}]+\})/).map((part) => (/^\{.+\}$/.test(part) ? '([^/]+)' : escapeRe(part))).join('') + '/?$', 'i')

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export interface Param {
  name: string
  schema: Json
  required: boolean
}

export interface Operation {
  id: string
  /** The plugin that mounts it (the document's x-plugin), `kernel` for the kernel's own. */
  owner: string
  method: string
  template: string
  gated: boolean
  rateLimited: boolean
  matcher: RegExp
  /** Methods the router answers on this path (HEAD comes free with GET). */
  methodsOnPath: string[]
  pathParams: Param[]
  queryParams: Param[]
  body: Json | null
  /** A body of its own media type (an OCSP request): raw bytes, not JSON. */
  rawBody: { mediaTypes: string[]; maxBytes: number } | null
  checkParam: Record<string, ValidateFunction>
  checkQuery: ValidateFunction | null
  checkBody: ValidateFunction | null
}

export function operations(doc: Json): Operation[] {
  const ops: Operation[] = []
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [m, op] of Object.entries(item as Record<string, Json>)) {
      const params = ((op.parameters ?? []) as Json[]).map((p) => ({ name: p.name as string, where: p.in as string, schema: deref(p.schema, doc.components.schemas), required: p.required === true }))
      const pathParams = params.filter((p) => p.where === 'path')
      const queryParams = params.filter((p) => p.where === 'query')
      const content = (op.requestBody?.content ?? {}) as Record<string, Json>
      const body = content['application/json'] ? deref(content['application/json'].schema, doc.components.schemas) : null
      const rawTypes = Object.keys(content).filter((t) => t !== 'application/json')
      const rawBody = rawTypes.length ? { mediaTypes: rawTypes, maxBytes: (content[rawTypes[0]].schema?.maxLength as number | undefined) ?? BODY_LIMIT } : null
      ops.push({
        id: `${m.toUpperCase()} ${template}`,
        owner: typeof op['x-plugin'] === 'string' ? op['x-plugin'] : 'kernel',
        method: m.toUpperCase(),
        template,
        gated: Array.isArray(op.security) && op.security.length > 0,
        rateLimited: op.responses?.['429'] !== undefined,
        matcher: templateMatcher(template),
        methodsOnPath: Object.keys(item).map((x) => x.toUpperCase()).flatMap((x) => (x === 'GET' ? ['GET', 'HEAD'] : [x])),
        pathParams,
        queryParams,
        body,
        rawBody,
        checkParam: Object.fromEntries(pathParams.map((p) => [p.name, paramAjv.compile({ type: 'object', properties: { [p.name]: p.schema }, required: [p.name] })])),
        // The document lists the query parameters an operation takes; the
        // kernel's convention (listQuery, additionalProperties: false) is that
        // any other name is refused, and the fuzz holds every route to it.
        checkQuery: queryParams.length
          ? paramAjv.compile({
              type: 'object',
              properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
              required: queryParams.filter((p) => p.required).map((p) => p.name),
              additionalProperties: false,
            })
          : null,
        checkBody: body ? bodyAjv.compile(body) : null,
      })
    }
  }
  return ops
}

export interface FuzzRequest {
  method: string
  /** Path and query as sent, already percent-encoded. */
  target: string
  headers: Record<string, string>
  body: Buffer | null
  /** What was broken on purpose, for the failure report. */
  broken: string
}

export const JSON_TYPES = ['application/json', 'application/json; charset=utf-8']
const isJsonType = (ct: string | undefined) => ct !== undefined && JSON_TYPES.includes(ct)

/**
 * `invalid` when the kernel must refuse the request before any handler runs;
 * `valid` when it must let it through; `skip` when it would route to another
 * operation (`/greetings/hello` is not a bad `/greetings/{greeting_id}`) or to none.
 * The router tries routes in the order they were mounted, which is the
 * document's order of operations.
 */
export function judge(op: Operation, all: Operation[], r: FuzzRequest): { verdict: 'invalid' | 'valid' | 'skip'; why?: string } {
  const url = new URL('http://host' + r.target)
  const m = op.matcher.exec(url.pathname)
  if (!m) return { verdict: 'skip' }
  const routed = all.find((o) => o.methodsOnPath.includes(r.method) && o.matcher.test(url.pathname))
  if (routed && routed.template !== op.template) return { verdict: 'skip' }
  if (!routed) return { verdict: 'invalid', why: 'method' }
  for (const [i, p] of op.pathParams.entries()) {
    const value = { [p.name]: safeDecode(m[i + 1]) }
    if (!op.checkParam[p.name](value) || !finite(value)) return { verdict: 'invalid', why: `path ${p.name}` }
  }
  const query = { ...querystring.parse(url.search.slice(1)) }
  if (op.checkQuery && (!op.checkQuery(query) || !finite(query))) return { verdict: 'invalid', why: 'query' }
  if (op.rawBody && r.method === op.method) {
    if (!r.body || r.body.length === 0) return { verdict: 'invalid', why: 'no body' }
    if (!op.rawBody.mediaTypes.includes(r.headers['content-type'] ?? '')) return { verdict: 'invalid', why: 'content type' }
    if (r.body.length > op.rawBody.maxBytes) return { verdict: 'invalid', why: 'body size' }
  }
  if (op.body && r.method === op.method) {
    if (!r.body || r.body.length === 0) return { verdict: 'invalid', why: 'no body' }
    if (!isJsonType(r.headers['content-type'])) return { verdict: 'invalid', why: 'content type' }
    if (r.body.length > BODY_LIMIT) return { verdict: 'invalid', why: 'body size' }
    let parsed: unknown
    try {
      parsed = JSON.parse(r.body.toString('utf8'))
    } catch {
      return { verdict: 'invalid', why: 'malformed JSON' }
    }
    // The body parser is strict: only an object or an array at the top.
    if (typeof parsed !== 'object' || parsed === null) return { verdict: 'invalid', why: 'JSON scalar' }
    if (!op.checkBody!(blankToNull(op.body as unknown as TSchema, parsed))) return { verdict: 'invalid', why: 'body schema' }
  }
  return { verdict: 'valid' }
}

// ─── Hostile values ───────────────────────────────────────────────────────────

const NASTY = [
  '', ' ', '   ', '\t\r\n', '\u0000', 'a\u0000b', '\u202eevil\u202c', '\u200f\u200e\u200b', '😀', '👨‍👩‍👧‍👦', 'ﷺ', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇', '\ufeff', '\uffff',
  "' OR 1=1 --", '"; DROP TABLE greetings_greeting; --', '%', '_', '\\', '%_\\%', '../../etc/passwd', '<script>alert(1)</script>', '${jndi:ldap://x/a}', '{{7*7}}',
  'null', 'true', '0', '-1', '1e309', 'NaN', 'Infinity', '[]', '{}', '__proto__', 'constructor',
]
const nasty = fc.constantFrom(...NASTY)
/** 100k characters: past every maxLength, past the header limit in a URL, well under the body limit. */
const huge = fc.tuple(fc.constantFrom('a', 'é', '😀', '\u0000', '\u202e', ' '), fc.integer({ min: 100_000, max: 100_050 })).map(([c, n]) => c.repeat(Math.ceil(n / c.length)))
const shortText = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), nasty)
const text = fc.oneof({ arbitrary: shortText, weight: 8 }, { arbitrary: huge, weight: 1 })
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, -1, 1.5, 65536, 2 ** 53 + 2, 1e308, -1e308))
const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', 'ID', 'Name', '\u0000', '😀', 'a.b', 'a[0]', '$ref', 'x'.repeat(300)))
export const garbage: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, number, fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).value

export const propsOf = (s: Json): Record<string, Json> => (s && typeof s.properties === 'object' ? s.properties : {})
const notDeclared = (declared: string[]) => key.filter((k) => !declared.includes(k))
/** Query and path values are strings on the wire. */
const asText = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))

/**
 * Strings a pattern accepts. fast-check builds them from the pattern itself, but not from every
 * construct (a lookahead such as TACACS+ attribute values' `\$(?!\{)`): then printable ASCII
 * that the pattern accepts, which such patterns admit nearly always.
 */
function matching(re: RegExp, max: number): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(re)
  } catch {
    return fc.string({ unit: 'grapheme-ascii', maxLength: max }).filter((v) => re.test(v))
  }
}

/** Values that satisfy the schema as often as not, with hostile content where the schema allows it. */
export function plausible(s: Json): fc.Arbitrary<unknown> {
  if (!s || Object.keys(s).length === 0) return garbage
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Json[]).map(plausible))
  switch (s.type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 })
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true })
    case 'string': {
      if (s.format === 'uuid') return fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
      if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString())
      const min = s.minLength ?? 0
      const max = Math.max(min, Math.min(s.maxLength ?? 64, 64))
      const base = s.pattern ? matching(new RegExp(s.pattern as string), max) : fc.oneof(fc.string({ unit: 'binary', maxLength: max }), nasty)
      return base.map((v) => v.slice(0, max).padEnd(min, 'x'))
    }
    case 'array':
      return fc.array(plausible(s.items ?? {}), { maxLength: Math.min(s.maxItems ?? 3, 3) })
    case 'object': {
      const props = propsOf(s)
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, plausible(v)])), { requiredKeys: (s.required ?? []) as string[] })
    }
    default:
      return garbage
  }
}

/** Values aimed at the schema's edges: wrong types, out of range, too long, near misses, nested garbage. */
export function hostile(s: Json): fc.Arbitrary<unknown> {
  const generic: fc.Arbitrary<unknown>[] = [garbage, text, number, fc.constant(null), fc.array(garbage, { maxLength: 3 })]
  // Near misses find more than noise does, so they weigh as much as all the noise together.
  const picks: fc.Arbitrary<unknown>[] = []
  if (Array.isArray(s.anyOf)) picks.push(...(s.anyOf as Json[]).map(hostile))
  if (typeof s.maxLength === 'number') picks.push(fc.string({ minLength: s.maxLength + 1, maxLength: s.maxLength + 4 }))
  if (typeof s.minLength === 'number' && s.minLength > 0) picks.push(fc.constantFrom('', ' '.repeat(s.minLength)))
  if (typeof s.minimum === 'number') picks.push(fc.constantFrom(s.minimum - 1, s.minimum - 0.5, -(2 ** 53)))
  if (typeof s.maximum === 'number') picks.push(fc.constantFrom(s.maximum + 1, s.maximum + 0.5, 2 ** 53, 1e308))
  if (s.type === 'integer' || s.type === 'number') picks.push(fc.constantFrom(1.5, '1', '0x10', true, 'Infinity', '-Infinity', '1e400', 'NaN', '1e-400', ' 1', '1_000'))
  if (Array.isArray(s.enum)) {
    const values = (s.enum as unknown[]).map(String)
    picks.push(fc.constantFrom(...values).chain((v) => fc.constantFrom(v.toUpperCase(), ` ${v}`, `${v} `, `${v}\u0000`, v.slice(1), `${v}s`, 'password', '')))
  }
  if (s.format === 'uuid') {
    picks.push(
      fc.uuid().chain((u) =>
        fc.constantFrom(`urn:uuid:${u}`, `{${u}}`, u.replace(/-/g, ''), u.slice(1), `${u}0`, `${u}\u0000`, u.replace(/[0-9a-f]/, 'g'), ` ${u}`, `${u}/`, `${u}%00`),
      ),
    )
  }
  if (s.type === 'object') {
    const declared = Object.keys(propsOf(s))
    picks.push(fc.tuple(plausible(s), notDeclared(declared), garbage).map(([o, k, v]) => Object.assign(Object.create(null), o, { [k]: v })))
    picks.push(fc.array(plausible(s), { maxLength: 2 }))
  }
  if (s.type === 'array') {
    const item = (s.items ?? {}) as Json
    if (typeof s.maxItems === 'number') picks.push(fc.array(plausible(item), { minLength: s.maxItems + 1, maxLength: s.maxItems + 2 }))
    picks.push(fc.tuple(fc.array(plausible(item), { maxLength: 2 }), hostile(item)).map(([a, h]) => [...a, h]))
    picks.push(plausible(item))
  }
  return fc.oneof(...generic.map((arbitrary) => ({ arbitrary, weight: picks.length || 1 })), ...picks.map((arbitrary) => ({ arbitrary, weight: generic.length })))
}

// ─── Requests ─────────────────────────────────────────────────────────────────

export type Breaker =
  | { kind: 'method'; method: string }
  | { kind: 'path'; name: string; value: string; raw?: boolean }
  | { kind: 'query-unknown'; key: string; value: string }
  | { kind: 'query-value'; name: string; value: string }
  | { kind: 'query-repeat'; name: string; values: string[] }
  | { kind: 'query-missing'; name: string }
  | { kind: 'body-unknown'; key: string; value: unknown }
  | { kind: 'body-field'; name: string; value: unknown }
  | { kind: 'body-missing'; name: string }
  | { kind: 'body-root'; value: unknown }
  | { kind: 'body-malformed'; text: string }
  | { kind: 'body-type'; contentType: string | null }
  | { kind: 'body-none'; contentType: string | null }
  | { kind: 'body-oversize'; char: string }

export interface Base {
  params: Record<string, string>
  query: [string, string][]
  body: unknown
  headers: Record<string, string>
}

export const printable = fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}[\x21-\x7e]$/)
const headerNoise = fc.record(
  {
    'accept-language': fc.oneof(fc.constantFrom('en', 'ru', 'ru-RU;q=0.9, en;q=0.1', '*', 'zz', 'ru;q=abc', ';;;,,,', 'en;q=-1', 'ru;q=1e999', 'ru,'.repeat(100)), printable),
    'x-request-id': fc.oneof(fc.uuid(), printable, fc.constantFrom('a'.repeat(129), 'id with spaces', '"quoted"', '../../etc/passwd')),
  },
  { requiredKeys: [] },
)

const MALFORMED = ['{', '{"name": ', "{'a': 1}", '{"a": 1,}', '{a: 1}', '[1, 2', 'NaN', 'undefined', '\u0000', '{"a": "\u0000', '"just a string"', '42', 'true', 'null', '{"__proto__": {"admin": true}}', '{"constructor": {"prototype": {"admin": true}}}', '{}garbage', '\ufeff{}', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', '{"a":'.repeat(10_000)]
const WRONG_TYPES = ['text/plain', 'text/html', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=----fuzz', 'application/octet-stream', 'application/jsonx', 'text/json', 'application/vnd.api+json', 'application/ld+json', 'application/json-patch+json', '*/*', 'application/*', 'json']

export function breakers(op: Operation, o: { method: boolean }): fc.Arbitrary<Breaker>[] {
  const out: fc.Arbitrary<Breaker>[] = []
  const wrong = METHODS.filter((m) => !op.methodsOnPath.includes(m))
  if (o.method && wrong.length) out.push(fc.constantFrom(...wrong).map((method) => ({ kind: 'method' as const, method })))
  for (const p of op.pathParams) {
    out.push(hostile(p.schema).map((v) => ({ kind: 'path' as const, name: p.name, value: asText(v) })))
    // Percent-encoding the router cannot decode, or decodes into something odd.
    const raw = fc.constantFrom('%', '%ZZ', '%C0%AF', '%ED%A0%80', '%00', '%E2%80%AE', '%FF%FE', '%2e%2e', '%252F', 'x%', '%%')
    out.push(fc.tuple(raw, fc.stringMatching(/^[A-Za-z0-9-]{0,8}$/)).map(([r, s]) => ({ kind: 'path' as const, name: p.name, value: s + r, raw: true })))
  }
  if (op.queryParams.length) {
    const declared = op.queryParams.map((p) => p.name)
    out.push(fc.tuple(notDeclared(declared), text).map(([k, v]) => ({ kind: 'query-unknown' as const, key: k, value: v })))
    for (const p of op.queryParams) {
      out.push(hostile(p.schema).map((v) => ({ kind: 'query-value' as const, name: p.name, value: asText(v) })))
      out.push(fc.array(plausible(p.schema).map(asText), { minLength: 2, maxLength: 3 }).map((values) => ({ kind: 'query-repeat' as const, name: p.name, values })))
      if (p.required) out.push(fc.constant({ kind: 'query-missing' as const, name: p.name }))
    }
  }
  if (op.body) {
    const props = propsOf(op.body)
    const declared = Object.keys(props)
    if (op.body.additionalProperties === false) out.push(fc.tuple(notDeclared(declared), garbage).map(([k, v]) => ({ kind: 'body-unknown' as const, key: k, value: v })))
    for (const [name, s] of Object.entries(props)) out.push(hostile(s).map((value) => ({ kind: 'body-field' as const, name, value })))
    for (const name of (op.body.required ?? []) as string[]) out.push(fc.constant({ kind: 'body-missing' as const, name }))
    out.push(fc.oneof(fc.array(garbage, { maxLength: 3 }), text, number, fc.boolean(), fc.constant(null)).map((value) => ({ kind: 'body-root' as const, value })))
    out.push(fc.oneof(fc.constantFrom(...MALFORMED), fc.string({ unit: 'binary', maxLength: 30 })).map((t) => ({ kind: 'body-malformed' as const, text: t })))
    out.push(fc.constantFrom<string | null>(...WRONG_TYPES, null).map((contentType) => ({ kind: 'body-type' as const, contentType })))
    out.push(fc.constantFrom<string | null>(...JSON_TYPES, null).map((contentType) => ({ kind: 'body-none' as const, contentType })))
    out.push(fc.constantFrom('x', 'é', '\u0000').map((char) => ({ kind: 'body-oversize' as const, char })))
  }
  if (op.rawBody) {
    out.push(fc.constantFrom<string | null>(...WRONG_TYPES, null).map((contentType) => ({ kind: 'body-type' as const, contentType })))
    out.push(fc.constantFrom<string | null>(...op.rawBody.mediaTypes, null).map((contentType) => ({ kind: 'body-none' as const, contentType })))
    out.push(fc.constantFrom('x', '\u0000').map((char) => ({ kind: 'body-oversize' as const, char })))
  }
  return out
}

export function baseRequest(op: Operation): fc.Arbitrary<Base> {
  const params = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, plausible(p.schema).map(asText)])) as Record<string, fc.Arbitrary<string>>)
  // An array parameter is the parameter repeated (`?id=a&id=b`), as a client sends it; one value at least (none is absent).
  const values = (p: Param): fc.Arbitrary<string[]> =>
    p.schema.type === 'array'
      ? fc.array(plausible((p.schema.items ?? {}) as Json).map(asText), { minLength: 1, maxLength: Math.max(1, Math.min(p.schema.maxItems ?? 3, 3)) })
      : plausible(p.schema).map((v) => [asText(v)])
  const query = op.queryParams.length
    ? fc.record(Object.fromEntries(op.queryParams.map((p) => [p.name, values(p)])) as Record<string, fc.Arbitrary<string[]>>, {
        requiredKeys: op.queryParams.filter((p) => p.required).map((p) => p.name),
      }).map((q) => Object.entries(q).flatMap(([name, vs]) => vs.map((v): [string, string] => [name, v])))
    : // An operation without query parameters ignores the query: noise, never the breaker.
      fc.array(fc.tuple(key, shortText), { maxLength: 2 })
  const body = op.body ? plausible(op.body) : op.rawBody ? fc.uint8Array({ minLength: 1, maxLength: 200 }) : op.method === 'GET' ? fc.constant(undefined) : fc.option(garbage, { nil: undefined })
  return fc.record({ params, query, body, headers: headerNoise })
}

/** Long strings are shortened, so a failure report stays readable. */
const short = (s: string) => (s.length > 120 ? `${JSON.stringify(s.slice(0, 60))}…(${s.length} chars)` : JSON.stringify(s))

export function build(op: Operation, b: Base, k: Breaker | null): FuzzRequest {
  let method = op.method
  const params = { ...b.params }
  const raw: Record<string, boolean> = {}
  let query = [...b.query]
  let body: unknown = b.body
  let bodyText: string | null = body === undefined ? null : JSON.stringify(body)
  let contentType: string | null = bodyText === null ? null : 'application/json'
  // A raw body (an OCSP request) goes as the bytes drawn, with the operation's media type.
  let rawBytes: Buffer | null = null
  if (op.rawBody && body instanceof Uint8Array) {
    rawBytes = Buffer.from(body)
    bodyText = null
    contentType = op.rawBody.mediaTypes[0]
  }
  const setBody = (v: unknown) => {
    body = v
    bodyText = JSON.stringify(v)
    contentType = 'application/json'
  }
  switch (k?.kind) {
    case 'method':
      method = k.method
      break
    case 'path':
      params[k.name] = k.value
      raw[k.name] = k.raw === true
      break
    case 'query-unknown':
      query.push([k.key, k.value])
      break
    case 'query-value':
      query = [...query.filter(([n]) => n !== k.name), [k.name, k.value]]
      break
    case 'query-repeat':
      query = [...query.filter(([n]) => n !== k.name), ...k.values.map((v): [string, string] => [k.name, v])]
      break
    case 'query-missing':
      query = query.filter(([n]) => n !== k.name)
      break
    case 'body-unknown':
      setBody(Object.assign(Object.create(null), body, { [k.key]: k.value }))
      break
    case 'body-field':
      setBody(Object.assign(Object.create(null), body, { [k.name]: k.value }))
      break
    case 'body-missing': {
      const copy = Object.assign(Object.create(null), body) as Record<string, unknown>
      delete copy[k.name]
      setBody(copy)
      break
    }
    case 'body-root':
      setBody(k.value)
      break
    case 'body-malformed':
      bodyText = k.text
      contentType = 'application/json'
      break
    case 'body-type':
      contentType = k.contentType
      break
    case 'body-none':
      bodyText = null
      rawBytes = null
      contentType = k.contentType
      break
    case 'body-oversize':
      if (op.rawBody) {
        rawBytes = Buffer.alloc(op.rawBody.maxBytes + 1, k.char)
        break
      }
      setBody({ ...(body as object), padding: k.char.repeat(BODY_LIMIT + 1024) })
      break
  }
  const path = op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => (raw[name] ? params[name] : encodeURIComponent(params[name] ?? '')))
  const search = new URLSearchParams(query).toString()
  const headers: Record<string, string> = { ...b.headers }
  if (contentType !== null) headers['content-type'] = contentType
  // GET and HEAD cannot carry a body through fetch; the kernel never reads one there anyway.
  const sendBody = bodyText !== null && method !== 'GET' && method !== 'HEAD'
  const bytes = rawBytes && method !== 'GET' && method !== 'HEAD' ? rawBytes : sendBody ? Buffer.from(bodyText!, 'utf8') : null
  const req: FuzzRequest = { method, target: path + (search ? `?${search}` : ''), headers, body: bytes, broken: k ? k.kind : 'nothing' }
  return Object.assign(req, {
    [fc.toStringMethod]: () =>
      `${req.method} ${short(req.target)} broken=${req.broken} headers=${JSON.stringify(req.headers)} body=${req.body ? short(req.body.toString('utf8')) : 'none'}`,
  })
}

/**
 * A request with one part broken on purpose. Whether it really is invalid is
 * the oracle's call, made with fc.pre in the property: a rejected draw counts
 * as a skip, so an operation that can never be fuzzed fails loudly instead of
 * spinning in a filter.
 */
export function invalidRequest(op: Operation, o: { method: boolean }): fc.Arbitrary<FuzzRequest> {
  const ks = breakers(op, o)
  if (!ks.length) throw new Error(`${op.id}: no way to make a request invalid`)
  return fc.tuple(baseRequest(op), fc.oneof(...ks)).map(([b, k]) => build(op, b, k))
}

// ─── Sending and checking ─────────────────────────────────────────────────────

export interface Answer {
  status: number
  headers: Headers
  text: string
}

export async function send(t: TestApp, op: Operation, r: FuzzRequest, token: string | null, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  // The limiter counts a request before validating it; a spent budget would
  // hide everything behind it under 429s.
  if (op.rateLimited) await t.app.db.knex('rate_limit_hits').delete()
  const headers: Record<string, string> = { ...r.headers, ...extraHeaders }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(t.url + r.target, { method: r.method, headers, body: r.body ? new Uint8Array(r.body) : undefined })
  return { status: res.status, headers: res.headers, text: await res.text() }
}
