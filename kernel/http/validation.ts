/**
 * The one validator. Bodies are validated as sent (no coercion); path and
 * query values arrive as strings and are coerced to the schema's types.
 * Ajv's first error becomes a 422 whose `field` names the offending path
 * (`commands[0].action`) and whose detail is localized from its keyword.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import { NAME_PATTERN, PortcullisError, TEXT_PATTERN, type TSchema } from '../../sdk/index.js'
import { toFieldPath } from '../../sdk/http-input.js'
import { patternWords } from './pattern-words.js'

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv

const make = (coerce: boolean, allErrors = false) => {
  // validateSchema: false: checking each schema against the JSON Schema meta-schema first costs a
  // compile of the meta-schema (~45 ms) in the boot; the warm-up after listen checks every schema
  // against it instead (Validation.compilePending), and strict mode still refuses unknown keywords.
  const ajv = new Ajv({ allErrors, strict: true, coerceTypes: coerce ? 'array' : false, useDefaults: coerce, allowUnionTypes: true, validateSchema: false })
  addFormats(ajv)
  // ajv-formats also admits `urn:uuid:…`, which PostgreSQL's uuid type cannot read (a 500 instead of a 422).
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
  return ajv
}


/**
 * The Ajv instances, one of each kind per process. Ajv keeps what it compiled by schema object, and a
 * route's schema is a module's constant: an app started again in the same process (a restart, every
 * test app of a test run) finds its validators compiled by the first. Nothing else is kept in them:
 * no schema is added by id, no keyword or format after `make`.
 */
const shared = { body: make(false), bodyAll: make(false, true), params: make(true) }
/**
 * Compiled validators by their schema's text, so that a schema a plugin builds again at each start
 * (an equal object, not the same one) is not compiled, nor kept, once more. Ajv reads only a schema's
 * JSON keywords (TypeBox's symbol-keyed metadata is not part of the text, nor of what Ajv checks).
 */
const compiledByText = new Map<Ajv, Map<string, ValidateFunction>>()
function compileShared(ajv: Ajv, schema: TSchema): ValidateFunction {
  let byText = compiledByText.get(ajv)
  if (!byText) compiledByText.set(ajv, (byText = new Map()))
  const text = JSON.stringify(schema)
  let fn = byText.get(text)
  if (!fn) byText.set(text, (fn = ajv.compile(schema)))
  return fn
}
/** The schemas that passed the meta-schema check, in this process. */
const checkedSchemas = new WeakSet<TSchema>()

/**
 * Compiling a validator is Ajv's code generation: about 4 ms a route, most of
 * a boot's time with every plugin loaded. So a validator compiles on its first
 * use, and `compilePending` compiles the rest once the server listens (idle
 * ticks, between requests). A schema Ajv refuses is a programming error the
 * test suite catches (test/kernel/validators.test.ts compiles every route's).
 */
export class Validation {
  private readonly body = shared.body
  /**
   * Every error of a body, asked only once the first-error validator has refused it: compiled
   * on that first refusal, so a route no one sends a bad body costs nothing.
   */
  private readonly bodyAll = shared.bodyAll
  private readonly allErrors = new WeakMap<TSchema, ValidateFunction>()
  private readonly params = shared.params
  private readonly pending = new Set<() => ValidateFunction>()
  /** Schemas not yet checked against the meta-schema (the warm-up checks them, compiled or not). */
  private readonly unchecked = new Set<TSchema>()

  compileBody(schema: TSchema): ValidateFunction {
    return this.lazy(schema, () => compileShared(this.body, schema))
  }

  private readonly once = new WeakMap<TSchema, ValidateFunction>()

  /** One validator a schema, however often asked (an import checks every row with it). */
  compileBodyOnce(schema: TSchema): ValidateFunction {
    let fn = this.once.get(schema)
    if (!fn) this.once.set(schema, (fn = this.compileBody(schema)))
    return fn
  }

  compileParams(schema: TSchema): ValidateFunction {
    return this.lazy(schema, () => finiteOnly(schema, compileShared(this.params, schema)))
  }

  /** Plain data (settings, config): no coercion. */
  compileData(schema: TSchema): ValidateFunction {
    return this.lazy(schema, () => compileShared(this.body, schema))
  }

  /** Validators not compiled yet (none are used before they compile; this is only how many are left). */
  get pendingCount(): number {
    return this.pending.size
  }

  /**
   * Compiles every validator not yet used. `yieldEvery` > 0 gives the event loop
   * a turn after that many, so a warm-up after listen never holds a request up
   * for more than a few milliseconds; `until` stops it early (a shutdown). Every
   * schema is first checked against the JSON Schema meta-schema, the validators
   * already compiled included. A schema that is not valid JSON Schema, or one Ajv's
   * strict mode refuses, rejects the promise.
   */
  async compilePending(yieldEvery = 0, until?: () => boolean): Promise<void> {
    let n = 0
    const turn = async () => {
      if (yieldEvery > 0 && ++n % yieldEvery === 0) await new Promise((r) => setImmediate(r))
    }
    for (const schema of [...this.unchecked]) {
      if (until?.()) return
      this.unchecked.delete(schema)
      if (checkedSchemas.has(schema)) continue
      if (!this.body.validateSchema(schema)) {
        this.unchecked.add(schema)
        throw new Error(`a schema is not valid JSON Schema: ${this.body.errorsText(this.body.errors)} in ${JSON.stringify(schema).slice(0, 200)}`)
      }
      checkedSchemas.add(schema)
      await turn()
    }
    for (const compile of [...this.pending]) {
      if (until?.()) return
      compile()
      await turn()
    }
  }

  private lazy(schema: TSchema, compile: () => ValidateFunction): ValidateFunction {
    let fn: ValidateFunction | null = null
    const once = () => {
      if (!fn) {
        fn = compile()
        this.pending.delete(once)
      }
      return fn
    }
    this.pending.add(once)
    this.unchecked.add(schema)
    const validate = ((data: unknown) => {
      const f = once()
      const ok = f(data)
      validate.errors = f.errors
      return ok
    }) as ValidateFunction
    return validate
  }

  /**
   * The 422 for a refused body: the first error as before (detail, code, field), and every field's
   * error in `errors` (one per field, at most MAX_LISTED), so a form can mark all its inputs at once.
   */
  bodyError(schema: TSchema, value: unknown, first: ErrorObject[] | null | undefined): PortcullisError {
    const head = this.toError(first)
    let fn = this.allErrors.get(schema)
    if (!fn) this.allErrors.set(schema, (fn = compileShared(this.bodyAll, schema)))
    fn(value)
    const groups = new Map<string, ErrorObject[]>()
    for (const e of fn.errors ?? []) {
      const p = e.params as Record<string, unknown>
      const key = e.keyword === 'required' ? toFieldPath(e.instancePath, String(p.missingProperty)) : e.keyword === 'additionalProperties' ? toFieldPath(e.instancePath, String(p.additionalProperty)) : toFieldPath(e.instancePath)
      const k = key ?? ''
      const g = groups.get(k)
      if (g) g.push(e)
      else groups.set(k, [e])
    }
    const list = [...groups.values()].map((g) => this.toError(g))
    const rest = list.filter((e) => e.field !== head.field).slice(0, MAX_LISTED - 1)
    return new PortcullisError(head.status, head.code, head.messageKey, { field: head.field, vars: head.vars, errors: [head, ...rest] })
  }

  describe(errors: ErrorObject[] | null | undefined): string {
    const e = errors?.[0]
    if (!e) return 'invalid'
    // Name the undeclared field itself: `password_hash is not declared`, not `(value) must NOT have additional properties`.
    if (e.keyword === 'additionalProperties') return `${toFieldPath(e.instancePath, String((e.params as { additionalProperty?: unknown }).additionalProperty))} is not declared`
    return `${toFieldPath(e.instancePath) ?? '(value)'} ${e.message}`
  }

  /** The 422 for Ajv's first error; `prefix` names where the value came from (`value` for a setting). */
  toError(errors: ErrorObject[] | null | undefined, prefix?: string): PortcullisError {
    const e = pickError(errors ?? [])
    if (!e) return new PortcullisError(422, 'VALIDATION_FAILED', 'core:errors.validation')
    const base = prefix ? `/${prefix}${e.instancePath}` : e.instancePath
    const p = e.params as Record<string, unknown>
    let field = toFieldPath(base)
    const vars: Record<string, unknown> = {}
    let code = 'VALIDATION_FAILED'
    switch (e.keyword) {
      case 'additionalProperties':
        field = toFieldPath(base, String(p.additionalProperty))
        vars.name = p.additionalProperty
        code = 'UNKNOWN_FIELD'
        break
      case 'required':
        field = toFieldPath(base, String(p.missingProperty))
        vars.name = p.missingProperty
        code = 'FIELD_REQUIRED'
        break
      case 'type':
        vars.type = Array.isArray(p.type) ? p.type.join(' or ') : p.type
        break
      case 'enum':
        vars.allowed = (p.allowedValues as unknown[]).join(', ')
        break
      case 'const':
        vars.allowed = String(p.allowedValue)
        break
      case 'format':
        vars.format = p.format
        break
      default:
        if ('limit' in p) vars.limit = p.limit
    }
    const known = ['additionalProperties', 'required', 'type', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'uniqueItems', 'enum', 'const', 'format', 'pattern', 'anyOf']
    let key = `core:validation.${known.includes(e.keyword) ? e.keyword : 'default'}`
    // A pattern failure says what is allowed (kernel/http/pattern-words.ts), not just "invalid format";
    // the SDK's character rules for names and free text say what they refuse. A pattern the table
    // lacks (an out-of-tree plugin's) is shown as it is.
    if (e.keyword === 'pattern') {
      const words = patternWords(String(p.pattern))
      if (words) {
        key = 'core:validation.pattern_allowed'
        vars.id = words.id
      } else vars.pattern = p.pattern
    }
    if (e.keyword === 'pattern' && p.pattern === NAME_PATTERN) key = 'core:validation.name_chars'
    if (e.keyword === 'pattern' && p.pattern === TEXT_PATTERN) key = 'core:validation.text_chars'
    return new PortcullisError(422, code, key, { field, vars })
  }
}

/** Field errors listed in one 422 at most: enough for any form, bounded for a hostile body. */
const MAX_LISTED = 50

/**
 * Ajv coerces `Infinity` or `1e400` to a number and then skips the type and
 * range checks of a non-finite one, so `?page=Infinity` would reach a handler.
 */
function finiteOnly(schema: TSchema, fn: ValidateFunction): ValidateFunction {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}
  const wrapped = ((data: unknown) => {
    wrapped.errors = null
    if (!fn(data)) {
      wrapped.errors = fn.errors
      return false
    }
    const obj = data as Record<string, unknown>
    for (const k in obj) {
      const v = obj[k]
      // Checked without allocating: this runs on every request that has a query or path parameters.
      if (typeof v === 'number' ? !Number.isFinite(v) : Array.isArray(v) && v.some((x) => typeof x === 'number' && !Number.isFinite(x))) {
        const type = typeof props[k]?.type === 'string' ? props[k].type : 'number'
        wrapped.errors = [{ keyword: 'type', instancePath: `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, schemaPath: `#/properties/${k}/type`, params: { type }, message: `must be ${type}` }]
        return false
      }
    }
    return true
  }) as ValidateFunction
  return wrapped
}

/**
 * For a union (`string | null`), Ajv reports each branch's failure and then
 * `anyOf`; the branch error with the deepest path says more than `anyOf`.
 */
function pickError(errors: ErrorObject[]): ErrorObject | undefined {
  const first = errors[0]
  if (!first) return undefined
  const anyOf = errors.find((e) => e.keyword === 'anyOf')
  if (!anyOf) return first
  const branch = errors.find((e) => e !== anyOf && e.keyword !== 'type' && e.instancePath === anyOf.instancePath)
  // `X | null` with X an object or array: X's own error inside the value names the field (`time_window.start`).
  const nullable = errors.some((e) => e.keyword === 'type' && e.instancePath === anyOf.instancePath && (e.params as { type?: unknown }).type === 'null')
  const inside = nullable ? errors.find((e) => e.instancePath.startsWith(anyOf.instancePath + '/')) : undefined
  return branch ?? inside ?? anyOf
}

/**
 * Blank optional text becomes null: for every property whose schema admits
 * both a string and null, a value that is empty or only white space is
 * replaced by null before validation. Walks nested objects and arrays.
 */
export function blankToNull(schema: TSchema | undefined, value: unknown): unknown {
  if (!schema || value === null || typeof value !== 'object') return value
  const s = schema as { properties?: Record<string, TSchema>; items?: TSchema; type?: unknown }
  if (Array.isArray(value)) {
    if (s.items) for (let i = 0; i < value.length; i++) value[i] = blankToNull(s.items, value[i])
    return value
  }
  if (s.properties) {
    const obj = value as Record<string, unknown>
    for (const [k, ps] of Object.entries(s.properties)) {
      if (!(k in obj)) continue
      const v = obj[k]
      if (typeof v === 'string' && v.trim() === '' && admitsStringAndNull(ps)) obj[k] = null
      else obj[k] = blankToNull(ps, v)
    }
  }
  return value
}

function admitsStringAndNull(schema: TSchema): boolean {
  const s = schema as { anyOf?: { type?: string }[]; type?: string | string[] }
  if (Array.isArray(s.type)) return s.type.includes('string') && s.type.includes('null')
  if (!s.anyOf) return false
  return s.anyOf.some((b) => b.type === 'string') && s.anyOf.some((b) => b.type === 'null')
}
