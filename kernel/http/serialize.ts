/**
 * Answers are written by their schema, Fastify's way (fast-json-stringify):
 * only the properties a schema declares are written, so an undeclared field,
 * a sealed column or a hash that a handler lets through (a `select *`, a row
 * spread into the answer) never leaves the server, whatever the handler
 * returns. A `Type.Unknown()` value (audit before/after, setting values) is
 * written whole, as JSON.stringify would.
 *
 * The schema is rewritten once for writing, not for validating:
 * - `additionalProperties: false` is dropped: undeclared properties are not
 *   written anyway, and in a union it would make a branch refuse an answer
 *   that carries one, instead of writing it without it;
 * - `anyOf: [X, null]` (the SDK's Nullable) becomes X with `nullable: true`,
 *   which is written with one null test instead of a validation per branch.
 */
import fastJson from 'fast-json-stringify'
import type Koa from 'koa'
import type { ValidateFunction } from 'ajv'
import { isReply, type RouteDefinition, type TSchema } from '../../sdk/index.js'
import type { Validation } from './validation.js'

export type Serializer = (value: unknown) => string

type Json = Record<string, unknown>

const isNull = (s: unknown) => typeof s === 'object' && s !== null && (s as Json).type === 'null' && Object.keys(s).length === 1

/** A copy of `schema` shaped for writing (see above); the original, shared with validation and OpenAPI, is left alone. */
export function forWriting(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  if (Array.isArray(schema)) return schema.map(forWriting)
  const s = schema as Json
  const anyOf = s.anyOf as unknown[] | undefined
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNull)) {
    const other = forWriting(anyOf.find((b) => !isNull(b))) as Json
    // A branch with a type of its own takes `nullable`; a union or an untyped one keeps the anyOf.
    if (typeof other.type === 'string' && other.anyOf === undefined && other.const === undefined) {
      const { anyOf: _dropped, ...siblings } = s
      return { ...other, ...forWritingProps(siblings), nullable: true }
    }
  }
  return forWritingProps(s)
}

function forWritingProps(s: Json): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(s)) {
    if (k === 'additionalProperties' && v === false) continue
    if (k === 'properties' || k === 'patternProperties') out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, ps]) => [p, forWriting(ps)]))
    else if (k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'additionalProperties' || k === 'not') out[k] = forWriting(v)
    else out[k] = v
  }
  return out
}

/** A function writing values of `schema` as JSON text. Throws on a value the schema cannot write (a required field missing). */
export function compileSerializer(schema: TSchema): Serializer {
  return fastJson(forWriting(schema) as fastJson.AnySchema, { rounding: 'trunc' }) as Serializer
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * How a route's answers are sent. A handler's value goes out with the
 * success status, written by that status's schema; a Reply keeps its status,
 * headers and content type, a stream or a string/Buffer body goes out as it
 * is, and a JSON body is written by the schema of the Reply's status (a JSON
 * body for a status the route does not declare is a bug: 500). Serializers
 * are compiled on first use, so boot does not pay for routes nobody calls.
 *
 * `check` (VALIDATE_RESPONSES, on in tests) reports an answer outside its
 * schema as a bug (a 500 with the reason in the log) instead of sending it
 * trimmed: a wrong type or a missing field, and any field the writer would
 * drop.
 */
export class ResponseWriter {
  private readonly serializers = new Map<number, Serializer>()
  private readonly validators = new Map<number, ValidateFunction>()

  constructor(
    private readonly route: RouteDefinition,
    readonly okStatus: number,
    private readonly check: Validation | null,
  ) {}

  send(ctx: Koa.Context, out: unknown): void {
    if (!isReply(out)) {
      ctx.status = this.okStatus
      if (this.okStatus !== 204 && out !== undefined) this.json(ctx, this.okStatus, out)
      return
    }
    const status = out.status ?? this.okStatus
    ctx.status = status
    if (out.headers) for (const k of Object.keys(out.headers)) ctx.set(k, out.headers[k])
    if (out.contentType) ctx.type = out.contentType
    if (out.stream) ctx.body = out.stream
    else if (typeof out.body === 'string' || Buffer.isBuffer(out.body)) ctx.body = out.body
    else if (out.body !== undefined) this.json(ctx, status, out.body)
  }

  private json(ctx: Koa.Context, status: number, value: unknown): void {
    const schema = this.route.schema.response[status]
    if (!schema || schema === 'file') throw new Error(`${this.route.method} ${this.route.path} answered ${status} with a JSON body, which its schema does not declare`)
    if (this.check) this.validate(status, schema, value)
    let writer = this.serializers.get(status)
    if (!writer) this.serializers.set(status, (writer = compileSerializer(schema)))
    const text = writer(value)
    if (this.check) {
      const dropped = firstDifference(JSON.parse(JSON.stringify(value)) as unknown, JSON.parse(text) as unknown, '')
      if (dropped !== null) throw new Error(`response does not match its schema: ${dropped || '(value)'} is not declared or is written differently`)
    }
    if (!ctx.res.hasHeader('Content-Type')) ctx.res.setHeader('Content-Type', JSON_TYPE)
    ctx.body = text
  }

  private validate(status: number, schema: TSchema, value: unknown): void {
    let fn = this.validators.get(status)
    if (!fn) this.validators.set(status, (fn = this.check!.compileBody(schema)))
    // A handler answered outside its documented schema: a bug, reported as one.
    if (!fn(value)) throw new Error(`response does not match its schema: ${this.check!.describe(fn.errors)}`)
  }
}

/** The path of the first place where `b` differs from `a` (`items[0].password_hash`), or null. */
function firstDifference(a: unknown, b: unknown, at: string): string | null {
  if (a === b) return null
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return at
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    if (a.length !== bb.length) return at
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], bb[i], `${at}[${i}]`)
      if (d !== null) return d
    }
    return null
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const d = firstDifference(ao[k], bo[k], at ? `${at}.${k}` : k)
    if (d !== null) return d
  }
  return null
}
