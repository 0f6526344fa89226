/**
 * Schema vocabulary shared by every route. One TypeBox schema validates a
 * request and documents it in OpenAPI; a schema given a `title` becomes a
 * named component (`CommandSetCreate` …) in the generated document.
 */
import Type, { type TSchema, type Static } from 'typebox'

export { Type }
export type { TSchema, Static }

/** UUID identifier (path values that are not UUIDs answer 422). */
export const Uuid = (opts: { description?: string } = {}) => Type.String({ format: 'uuid', ...opts })

/** ISO-8601 UTC timestamp. */
export const Timestamp = (opts: { description?: string } = {}) => Type.String({ format: 'date-time', ...opts })

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/**
 * Optional free text: bounded, and blank (empty or white space) is stored as
 * null. The kernel's request normalizer turns blank strings into null for any
 * property whose schema admits both a string and null.
 */
export const OptionalText = (opts: { maxLength: number; description?: string }) =>
  Type.Optional(Nullable(Type.String({ maxLength: opts.maxLength, description: opts.description })))

/** Required, bounded, non-blank text (a name). */
export const Name = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: opts.maxLength ?? 128, pattern: '\\S', description: opts.description })

/** A closed set of string values. */
export const StringEnum = <const V extends readonly string[]>(values: V, opts: { description?: string; default?: V[number] } = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...opts })

/** The error envelope every failure uses. */
export const ErrorBody = Type.Object(
  {
    detail: Type.String({ description: 'Human-readable message in the language of Accept-Language (en, ru).' }),
    code: Type.String({ description: 'Stable machine code; see docs/errors.md.' }),
    field: Nullable(Type.String({ description: 'Path of the offending field, or null.' })),
  },
  { title: 'ErrorBody', additionalProperties: false },
)

/** 429 body: not the error envelope, by contract. */
export const RateLimitBody = Type.Object(
  { detail: Type.String(), retry_after: Type.Integer({ minimum: 1, description: 'Seconds to wait.' }) },
  { title: 'RateLimitBody', additionalProperties: false },
)
