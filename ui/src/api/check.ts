/**
 * The browser's check of a request body, from the same schema the server
 * validates with: the build cuts each operation's body schema out of the
 * server's OpenAPI document (ui/scripts/body-rules.ts; /openapi.json itself
 * is not served unless DOCS_ENABLED, and the console ships with its server).
 * A small validator, not Ajv: the keywords the body schemas use for values a
 * person types (type, required, pattern, lengths, ranges, enum). Formats and
 * what only the server knows (a name taken, an address that overlaps) stay
 * the server's: this only spares a round trip and reports every field at once.
 *
 * It must never be stricter than the server: blank optional text becomes null
 * first (as the server does), lengths count code points and patterns run with
 * the `u` flag (as Ajv does), and an operation without rules passes.
 */
// `.js`: the server's tests import this file too (test/kernel/field-errors.test.ts).
import fieldsEn from '../i18n/fields-en.js'
import fieldsRu from '../i18n/fields-ru.js'

export interface Rule {
  type?: string | string[]
  required?: string[]
  properties?: Record<string, Rule>
  items?: Rule
  anyOf?: Rule[]
  oneOf?: Rule[]
  allOf?: Rule[]
  enum?: unknown[]
  const?: unknown
  pattern?: string
  /** Id of the pattern's words in BodyRules.words. */
  words?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
}

export interface BodyRules {
  /** `POST /api/v1/devices` → the body's rule. */
  ops: Record<string, Rule>
  words: Record<string, { en: string; ru: string }>
}

/** One field's problem, as the server lists them in a 422's `errors`. */
export interface FieldProblem {
  field: string | null
  code: string
  detail: string
}

type Lang = 'en' | 'ru'
const codePoints = (s: string) => [...s].length
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const fieldPath = (base: string, key: string) => (base ? `${base}.${key}` : key)

function hasType(rule: Rule, v: unknown): boolean {
  if (rule.type === undefined) return true
  const types = Array.isArray(rule.type) ? rule.type : [rule.type]
  const t = typeOf(v)
  return types.some((x) => x === t || (x === 'integer' && typeof v === 'number' && Number.isInteger(v)))
}

/** Whether the rule admits a string and null (blank text is sent as null there, as the server reads it). */
function stringOrNull(rule: Rule): boolean {
  const branches = rule.anyOf ?? rule.oneOf ?? [rule]
  const types = branches.flatMap((b) => (Array.isArray(b.type) ? b.type : b.type ? [b.type] : []))
  return types.includes('string') && types.includes('null')
}

/** The words for what a field allows: its pattern's, then its length ("up to 64 characters"). */
export function allowedWords(rule: Rule | undefined, rules: BodyRules, lang: Lang): string | undefined {
  if (!rule) return undefined
  const branch = rule.words || rule.maxLength !== undefined ? rule : (rule.anyOf ?? rule.oneOf ?? []).find((b) => b.type === 'string')
  if (!branch) return undefined
  const m = lang === 'ru' ? fieldsRu : fieldsEn
  const parts: string[] = []
  if (branch.words) parts.push(rules.words[branch.words][lang])
  const len = m.length(branch.minLength ?? 0, branch.maxLength)
  if (len) parts.push(len)
  return parts.length ? m.capital(parts.join('; ')) : undefined
}

/** The rule of the field at `path` (`name`, `value.port`) of an operation's body. */
export function fieldRule(rules: BodyRules, op: string, path: string): Rule | undefined {
  let r: Rule | undefined = rules.ops[op]
  for (const key of path.split('.')) {
    const own: Rule | undefined = r?.properties?.[key] ?? (r?.anyOf ?? r?.oneOf ?? []).find((b) => b.properties?.[key])?.properties?.[key]
    r = own
  }
  return r
}

/**
 * Every problem of `body` for the operation `op` (`POST /api/v1/devices`), one per field, in the
 * schema's order; [] when it passes or the operation has no rules.
 */
export function checkBody(rules: BodyRules, op: string, body: unknown, lang: Lang): FieldProblem[] {
  const rule = rules.ops[op]
  if (!rule) return []
  const m = lang === 'ru' ? fieldsRu : fieldsEn
  const out = new Map<string, FieldProblem>()
  const add = (field: string, code: string, detail: string) => {
    if (!out.has(field)) out.set(field, { field: field || null, code, detail })
  }

  /** Problems of `v` against `r` at `at`, into `add`; returns whether it passed. */
  const check = (r: Rule, v: unknown, at: string, report: typeof add): boolean => {
    let ok = true
    const fail = (code: string, detail: string, field = at) => {
      ok = false
      report(field, code, detail)
    }
    const union = r.anyOf ?? r.oneOf
    if (union) {
      const quiet = () => {}
      if (!union.some((b) => check(b, v, at, quiet))) {
        // `X | null`: X's own problem says more than "matches no form".
        const branch = union.find((b) => b.type !== 'null' && (b.type === undefined || hasType(b, v))) ?? union.find((b) => b.type !== 'null')
        if (!branch || check(branch, v, at, report)) fail('VALIDATION_FAILED', m.anyOf)
        ok = false
      }
    }
    for (const b of r.allOf ?? []) if (!check(b, v, at, report)) ok = false
    if (!hasType(r, v)) {
      fail('VALIDATION_FAILED', m.type(Array.isArray(r.type) ? r.type.join(' | ') : String(r.type)))
      return false
    }
    if (r.enum && !r.enum.some((x) => x === v)) fail('VALIDATION_FAILED', m.enum(r.enum.join(', ')))
    if (r.const !== undefined && r.const !== v) fail('VALIDATION_FAILED', m.enum(String(r.const)))
    if (typeof v === 'string') {
      const n = codePoints(v)
      if (r.minLength !== undefined && n < r.minLength) fail('VALIDATION_FAILED', r.minLength === 1 && n === 0 ? m.empty : m.minLength(r.minLength))
      else if (r.maxLength !== undefined && n > r.maxLength) fail('VALIDATION_FAILED', m.maxLength(r.maxLength))
      else if (r.pattern !== undefined && !new RegExp(r.pattern, 'u').test(v)) fail('VALIDATION_FAILED', r.words ? m.allowed(rules.words[r.words][lang]) : m.pattern(r.pattern))
    }
    if (typeof v === 'number') {
      if (r.minimum !== undefined && v < r.minimum) fail('VALIDATION_FAILED', m.minimum(r.minimum))
      if (r.maximum !== undefined && v > r.maximum) fail('VALIDATION_FAILED', m.maximum(r.maximum))
      if (r.exclusiveMinimum !== undefined && v <= r.exclusiveMinimum) fail('VALIDATION_FAILED', m.greater(r.exclusiveMinimum))
      if (r.exclusiveMaximum !== undefined && v >= r.exclusiveMaximum) fail('VALIDATION_FAILED', m.less(r.exclusiveMaximum))
    }
    if (Array.isArray(v)) {
      if (r.minItems !== undefined && v.length < r.minItems) fail('VALIDATION_FAILED', m.minItems(r.minItems))
      if (r.maxItems !== undefined && v.length > r.maxItems) fail('VALIDATION_FAILED', m.maxItems(r.maxItems))
      if (r.items) v.forEach((x, i) => check(r.items!, x, `${at}[${i}]`, report) || (ok = false))
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const obj = v as Record<string, unknown>
      for (const k of r.required ?? []) if (obj[k] === undefined) fail('FIELD_REQUIRED', m.required, fieldPath(at, k))
      for (const [k, pr] of Object.entries(r.properties ?? {})) {
        let x = obj[k]
        if (x === undefined) continue
        if (typeof x === 'string' && x.trim() === '' && stringOrNull(pr)) x = null
        if (!check(pr, x, fieldPath(at, k), report)) ok = false
      }
    }
    return ok
  }
  check(rule, body, '', add)
  return [...out.values()]
}
