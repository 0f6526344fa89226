/** What input a setting needs, read from the JSON Schema the server gives with it (GET /settings). */
type Schema = { type?: string | string[]; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; minimum?: number; maximum?: number; maxLength?: number }

export type SettingInput =
  | { kind: 'boolean'; nullable: boolean }
  | { kind: 'number'; nullable: boolean; integer: boolean; min?: number; max?: number }
  | { kind: 'choice'; nullable: boolean; choices: string[] }
  | { kind: 'string'; nullable: boolean; maxLength?: number }
  | { kind: 'json'; nullable: boolean }

export function settingInput(raw: unknown): SettingInput {
  const s = (raw ?? {}) as Schema
  let nullable = false
  let inner: Schema = s
  if (s.anyOf) {
    const rest = s.anyOf.filter((x) => x.type !== 'null')
    nullable = rest.length < s.anyOf.length
    // A union of constants is a choice; one other member is the value's type.
    if (rest.length > 1 && rest.every((x) => typeof x.const === 'string')) return { kind: 'choice', nullable, choices: rest.map((x) => x.const as string) }
    if (rest.length !== 1) return { kind: 'json', nullable }
    inner = rest[0]
  }
  const types = Array.isArray(inner.type) ? inner.type : [inner.type]
  if (types.includes('null')) nullable = true
  const type = types.find((x) => x !== 'null')
  if (inner.enum && inner.enum.every((x) => typeof x === 'string')) return { kind: 'choice', nullable, choices: inner.enum as string[] }
  if (inner.anyOf && inner.anyOf.every((x) => typeof x.const === 'string')) return { kind: 'choice', nullable, choices: inner.anyOf.map((x) => x.const as string) }
  if (type === 'boolean') return { kind: 'boolean', nullable }
  if (type === 'integer' || type === 'number') return { kind: 'number', nullable, integer: type === 'integer', min: inner.minimum, max: inner.maximum }
  if (type === 'string') return { kind: 'string', nullable, maxLength: inner.maxLength }
  return { kind: 'json', nullable }
}

/** A value as the default hint shows it. */
export const shown = (v: unknown) => (v === null ? 'null' : typeof v === 'string' ? (v === '' ? '""' : v) : JSON.stringify(v))
