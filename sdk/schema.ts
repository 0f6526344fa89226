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
 * Characters no name may hold, as a regular-expression class body: C0
 * controls, DEL and C1 controls (NEL U+0085 among them), the line and
 * paragraph separators U+2028/U+2029, the bidirectional embeddings and
 * overrides U+202A–U+202E, the isolates U+2066–U+2069 and the invisible
 * direction marks LRM, RLM and ALM. Names are shown to people (lists, audit,
 * logs) and some are written into daemon configuration: a line break there
 * forges a line, and a direction control makes `admin\u202Eexe` read as
 * something else than it is. Letters of every script stay allowed.
 */
const NAME_REFUSED = '\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069'

/**
 * A name: at least one visible character, none of NAME_REFUSED. Written so
 * that it runs in linear time whatever the input: the leading run holds only
 * the white space a name may have, which the first visible character cannot
 * be, so there is nothing to backtrack into (a plain `[^R]*[^\\sR][^R]*` is
 * quadratic on a long string that ends in a refused character). No lookahead,
 * so generators that build matching strings from the pattern can read it.
 * The kernel's validator answers a mismatch with a message saying what is refused.
 */
/**
 * One character a name may not hold (NAME_REFUSED), for the values a plugin checks in code rather
 * than by schema (a reply attribute's value, a rule's compared text): one rule for every one-line
 * value a person reads or a daemon receives.
 */
export const NAME_REFUSED_CHAR = new RegExp(`[${NAME_REFUSED}]`)

export const NAME_PATTERN = `^[ \\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000\\uFEFF]*[^\\s${NAME_REFUSED}][^${NAME_REFUSED}]*$`

/**
 * Multi-line free text (descriptions, comments): tab and line feed are
 * allowed, the other C0 controls (carriage return included), DEL, C1 controls
 * and the bidirectional embeddings, overrides and isolates are not. Direction
 * marks stay allowed: right-to-left prose needs them, and unlike overrides
 * they cannot reorder the text around them. Such text is stored and shown,
 * never written into a daemon's configuration (the renderers use names only).
 */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$'

/**
 * Optional free text: bounded, and blank (empty or white space) is stored as
 * null. The kernel's request normalizer turns blank strings into null for any
 * property whose schema admits both a string and null. Multi-line: see TEXT_PATTERN.
 */
export const OptionalText = (opts: { maxLength: number; description?: string }) =>
  Type.Optional(Nullable(Type.String({ maxLength: opts.maxLength, pattern: TEXT_PATTERN, description: opts.description })))

/** Required, bounded, non-blank text (a name) on one line, without control or direction characters (NAME_PATTERN). */
export const Name = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: opts.maxLength ?? 128, pattern: NAME_PATTERN, description: opts.description })

/** An optional one-line label (a display name, a vendor): as Name, but blank is stored as null. */
export const OptionalName = (opts: { maxLength: number; description?: string }) =>
  Type.Optional(Nullable(Type.String({ maxLength: opts.maxLength, pattern: NAME_PATTERN, description: opts.description })))

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
