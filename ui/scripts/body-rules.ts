/**
 * The request-body rules the console checks before it sends (ui/src/api/rules.ts), cut from the
 * server's own OpenAPI document at build: for each operation with a JSON body, its schema with
 * references inlined and only the keywords the browser checks (type, required, properties,
 * items, anyOf/oneOf/allOf, enum, const, pattern, lengths, ranges, item counts), and for each
 * pattern the id of its words (kernel/http/pattern-words.ts), which travel once in `words`.
 */
import { patternWords } from '../../kernel/http/pattern-words.js'
import type { BodyRules, Rule } from '../src/api/check.js'

type Json = Record<string, unknown>
const KEEP = ['type', 'required', 'enum', 'const', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems'] as const

export function bodyRules(doc: Json): BodyRules {
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>
  const words: BodyRules['words'] = {}
  const cut = (s: Json, depth: number): Rule => {
    if (typeof s.$ref === 'string') {
      const target = components[s.$ref.split('/').pop()!]
      // A schema that refers to itself ends here: the server checks the rest.
      return depth > 12 || !target ? {} : cut(target, depth + 1)
    }
    const r: Json = {}
    for (const k of KEEP) if (s[k] !== undefined) r[k] = s[k]
    if (typeof s.pattern === 'string') {
      const w = patternWords(s.pattern)
      if (w) {
        r.words = w.id
        words[w.id] = { en: w.en, ru: w.ru }
      }
    }
    if (s.properties) r.properties = Object.fromEntries(Object.entries(s.properties as Record<string, Json>).map(([k, v]) => [k, cut(v, depth + 1)]))
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) r.items = cut(s.items as Json, depth + 1)
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(s[k])) r[k] = (s[k] as Json[]).map((b) => cut(b, depth + 1))
    return r as Rule
  }
  const ops: BodyRules['ops'] = {}
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const schema = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined
      if (schema) ops[`${method.toUpperCase()} ${path}`] = cut(schema, 0)
    }
  }
  return { ops, words }
}
